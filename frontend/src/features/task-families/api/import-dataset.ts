import { useMutation } from "@tanstack/react-query";

import { postVersion, useInvalidateVersions, type VersionResult } from "./version-request";

export type BundledDataset = "humaneval" | "gsm8k";

export function importDataset(familyId: number, dataset: BundledDataset): Promise<VersionResult> {
  return postVersion(`/api/v1/families/${familyId}/versions/dataset/`, { dataset });
}

export function useImportDataset(familyId: number) {
  const invalidate = useInvalidateVersions();
  return useMutation({
    mutationFn: (dataset: BundledDataset) => importDataset(familyId, dataset),
    onSuccess: invalidate,
  });
}
