import { useMutation, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import { runCurriculumQueryKey } from "./get-run-curriculum";
import { runEventsQueryKey, type RunEvent } from "./get-run-events";

export type CurriculumChange = components["schemas"]["CurriculumChangeRequest"];

/** A change of distributions, mixture weights or band; the worker applies it at its next
 * step boundary. A change the curriculum cannot take is a 400 naming the field. */
export function changeCurriculum(id: number, change: CurriculumChange): Promise<RunEvent> {
  return api.post<RunEvent>(`/api/v1/runs/${id}/curriculum/`, change);
}

export function useChangeCurriculum(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: CurriculumChange) => changeCurriculum(id, change),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: runEventsQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: runCurriculumQueryKey(id) });
    },
  });
}
