import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { runQueryKey } from "./types";

export type RunEvent = components["schemas"]["RunEvent"];

export function runEventsQueryKey(id: number) {
  return [...runQueryKey(id), "events"] as const;
}

/** Pauses, resumes, budget stops and curriculum changes, oldest first. The run's socket says
 * when they change (an `events` frame), and the page reads them again. */
export function getRunEvents(id: number, signal?: AbortSignal): Promise<RunEvent[]> {
  return api.get<RunEvent[]>(`/api/v1/runs/${id}/events/`, undefined, signal);
}

/** `active`: also read every so often, for pages without a socket (they poll the metrics). */
export function runEventsQueryOptions(id: number, active = false) {
  return queryOptions({
    queryKey: runEventsQueryKey(id),
    queryFn: ({ signal }) => getRunEvents(id, signal),
    refetchInterval: active ? 10_000 : false,
  });
}

export function useRunEvents(id: number, active = false) {
  return useQuery(runEventsQueryOptions(id, active));
}
