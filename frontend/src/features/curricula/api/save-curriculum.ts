import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Curriculum, CurriculumConfigInput } from "./types";

export type CurriculumInput = { name: string; description: string; config: CurriculumConfigInput };

/** Creates a curriculum (no id) or updates one, which bumps its revision. */
export function saveCurriculum(id: number | null, input: CurriculumInput, team?: string): Promise<Curriculum> {
  return id === null
    ? api.post<Curriculum>("/api/v1/curricula/", input, { team })
    : api.patch<Curriculum>(`/api/v1/curricula/${id}/`, input);
}

export function useSaveCurriculum(id: number | null, team?: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CurriculumInput) => saveCurriculum(id, input, team),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["curricula"] }),
  });
}
