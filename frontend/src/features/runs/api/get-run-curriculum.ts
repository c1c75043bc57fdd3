import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { runQueryKey } from "./types";

export type RunCurriculum = components["schemas"]["RunCurriculum"];

export function runCurriculumQueryKey(id: number) {
  return [...runQueryKey(id), "curriculum"] as const;
}

/** The curriculum as the run trains it now: every change so far, and the last step's
 * distributions. */
export function getRunCurriculum(id: number, signal?: AbortSignal): Promise<RunCurriculum> {
  return api.get<RunCurriculum>(`/api/v1/runs/${id}/curriculum/`, undefined, signal);
}

export function useRunCurriculum(id: number) {
  return useQuery(queryOptions({ queryKey: runCurriculumQueryKey(id), queryFn: ({ signal }) => getRunCurriculum(id, signal) }));
}
