import { useMutation } from "@tanstack/react-query";

import type { GenerateInput } from "./types";
import { postVersion, useInvalidateVersions, type VersionResult } from "./version-request";

export type GenerateVersionInput = GenerateInput & { note: string };

export function generateVersion(familyId: number, input: GenerateVersionInput): Promise<VersionResult> {
  return postVersion(`/api/v1/families/${familyId}/versions/generate/`, input);
}

export function useGenerateVersion(familyId: number) {
  const invalidate = useInvalidateVersions();
  return useMutation({
    mutationFn: (input: GenerateVersionInput) => generateVersion(familyId, input),
    onSuccess: invalidate,
  });
}
