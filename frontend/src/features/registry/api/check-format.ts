// Compare a serving format with what a version was trained with: the differences in words.
import { useMutation } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

export type FormatCheck = components["schemas"]["FormatCheck"];
export type ServedFormat = ApiRequestBody<"/api/v1/model-versions/{id}/check-format/", "post">;

export function useCheckFormat(version: number) {
  return useMutation({
    mutationFn: (input: ServedFormat) =>
      api.post<FormatCheck>(`/api/v1/model-versions/${version}/check-format/`, input),
  });
}
