import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Algorithm } from "./types";

/** Every algorithm with its hyper-parameters' types, defaults and help, from the engine. */
export function getAlgorithms(signal?: AbortSignal): Promise<Algorithm[]> {
  return api.get<Algorithm[]>("/api/v1/algorithms/", undefined, signal);
}

export function algorithmsQueryOptions() {
  return queryOptions({ queryKey: ["algorithms"], queryFn: ({ signal }) => getAlgorithms(signal), staleTime: Infinity });
}

export function useAlgorithms() {
  return useQuery(algorithmsQueryOptions());
}
