// Evaluation jobs of the team: each one's progress arrives as "evaluation.updated" on the
// team's socket (refetching ["evaluation", ...]); a slow poll covers a lost socket.
import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

export type EvaluationJob = components["schemas"]["EvaluationJob"];
export type EvaluationDetail = components["schemas"]["EvaluationJobDetail"];

const POLL_MS = 10_000;

const unfinished = (j: EvaluationJob) => j.state === "queued" || j.state === "running";

export function evaluationsOptions(team: string) {
  return queryOptions({
    queryKey: ["evaluation", "list", team],
    queryFn: ({ signal }) => api.get<Paginated<EvaluationJob>>("/api/v1/evaluations/", { team }, signal),
    refetchInterval: (query) => (query.state.data?.results.some(unfinished) ? POLL_MS : false),
  });
}

export function useEvaluations(team: string | undefined) {
  return useQuery({ ...evaluationsOptions(team ?? ""), enabled: !!team });
}

/** The team's succeeded evaluations: what a report can compare. `waitingFor`: ids of evaluations the page was sent to compare; until each has succeeded the
 * list is read again every few seconds, since a worker in another process (the embedded default's
 * in-memory channel layer) never reaches this page's socket. */
export function useFinishedEvaluations(team: string | undefined, waitingFor: readonly string[] = []) {
  return useQuery({
    queryKey: ["evaluation", "list", team, "succeeded"],
    queryFn: ({ signal }) =>
      api.get<Paginated<EvaluationJob>>("/api/v1/evaluations/", { team: team ?? "", state: "succeeded" }, signal),
    enabled: !!team,
    refetchInterval: (query) => {
      const rows = query.state.data?.results ?? [];
      return waitingFor.some((id) => !rows.some((j) => String(j.id) === id)) ? POLL_MS : false;
    },
  });
}

export function useEvaluation(id: number) {
  return useQuery({
    queryKey: ["evaluation", id],
    queryFn: ({ signal }) => api.get<EvaluationDetail>(`/api/v1/evaluations/${id}/`, undefined, signal),
    refetchInterval: (query) => (query.state.data && unfinished(query.state.data) ? POLL_MS : false),
  });
}
