import { useMutation } from "@tanstack/react-query";

import { postVersion, useInvalidateVersions, type VersionResult } from "./version-request";

export type EditVersionInput = { base: number; remove: string[]; note: string };

/** A new version: `base` without the tasks whose content hashes are in `remove`. */
export function editVersion(familyId: number, input: EditVersionInput): Promise<VersionResult> {
  return postVersion(`/api/v1/families/${familyId}/versions/edit/`, input);
}

export function useEditVersion(familyId: number) {
  const invalidate = useInvalidateVersions();
  return useMutation({
    mutationFn: (input: EditVersionInput) => editVersion(familyId, input),
    onSuccess: invalidate,
  });
}
