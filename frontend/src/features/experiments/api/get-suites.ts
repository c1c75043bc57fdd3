import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type Paginated } from "@/lib/api-types";
import { teamQuery, useCurrentTeam } from "@/lib/current-team";

import type { EvaluationSuite } from "./types";

/** The team's evaluation suites, one of which `eval.suite` may name. */
export function suitesQueryOptions(team: string | undefined) {
  return queryOptions({
    queryKey: ["evaluation_suite", "list", "experiments", team ?? null],
    queryFn: async ({ signal }) =>
      listResults(await api.get<Paginated<EvaluationSuite>>("/api/v1/evaluation-suites/", { team, page_size: 200 }, signal)),
  });
}

export function useSuites() {
  const { team } = useCurrentTeam();
  return useQuery(suitesQueryOptions(teamQuery(team).team));
}
