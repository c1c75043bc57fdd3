import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type ApiResponse, type ListItem } from "@/lib/api-types";

import { verifierQueryKey } from "./get-verifier";

type ExampleList = ApiResponse<"/api/v1/verifiers/{id}/examples/", "get">;
export type Example = ListItem<ExampleList>;

export function examplesQueryKey(id: number) {
  return [...verifierQueryKey(id), "examples"] as const;
}

export async function getExamples(id: number, signal?: AbortSignal): Promise<Example[]> {
  // The endpoint answers a plain list although the schema documents pages; take either.
  const data = await api.get<ExampleList | Example[]>(`/api/v1/verifiers/${id}/examples/`, undefined, signal);
  return listResults(data);
}

export function examplesQueryOptions(id: number) {
  return queryOptions({
    queryKey: examplesQueryKey(id),
    queryFn: ({ signal }) => getExamples(id, signal),
  });
}

export function useExamples(id: number) {
  return useQuery(examplesQueryOptions(id));
}
