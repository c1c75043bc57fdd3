// Evaluation jobs of the team: each one's progress arrives as "evaluation.updated" on the
// team's socket (refetching ["evaluation", ...]); a slow poll covers a lost socket.
import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

export type EvaluationJob = components["schemas"]["EvaluationJob"];

const POLL_MS = 10_000;

export function evaluationsOptions(team: string) {
  return queryOptions({
    queryKey: ["evaluation", "list", team],
    queryFn: ({ signal }) => api.get<Paginated<EvaluationJob>>("/api/v1/evaluations/", { team }, signal),
    refetchInterval: (query) =>
      query.state.data?.results.some((j) => j.state === "queued" || j.state === "running") ? POLL_MS : false,
  });
}

export function useEvaluations(team: string | undefined) {
  return useQuery({ ...evaluationsOptions(team ?? ""), enabled: !!team });
}
