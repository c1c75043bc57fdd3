import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Curriculum } from "./types";

export function curriculumQueryKey(id: number) {
  return ["curricula", "detail", id] as const;
}

export function getCurriculum(id: number, signal?: AbortSignal): Promise<Curriculum> {
  return api.get<Curriculum>(`/api/v1/curricula/${id}/`, undefined, signal);
}

export function curriculumQueryOptions(id: number) {
  return queryOptions({ queryKey: curriculumQueryKey(id), queryFn: ({ signal }) => getCurriculum(id, signal) });
}

export function useCurriculum(id: number | null) {
  return useQuery({ ...curriculumQueryOptions(id ?? 0), enabled: id !== null });
}
