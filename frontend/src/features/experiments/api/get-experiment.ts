import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { experimentQueryKey, type Experiment } from "./types";

export function getExperiment(id: number, signal?: AbortSignal): Promise<Experiment> {
  return api.get<Experiment>(`/api/v1/experiments/${id}/`, undefined, signal);
}

export function experimentQueryOptions(id: number) {
  return queryOptions({ queryKey: experimentQueryKey(id), queryFn: ({ signal }) => getExperiment(id, signal) });
}

export function useExperiment(id: number | null) {
  return useQuery({ ...experimentQueryOptions(id ?? 0), enabled: id !== null && id > 0 });
}
