import { useMutation } from "@tanstack/react-query";

import { postVersion, useInvalidateVersions, type VersionResult } from "./version-request";

export type UploadFormat = "jsonl" | "csv" | "parquet";

export type UploadVersionInput = {
  file: File;
  format: UploadFormat;
  /** kind field -> column in the file */
  mapping: Record<string, string>;
  near_duplicates: boolean;
  note: string;
};

export function uploadVersion(familyId: number, input: UploadVersionInput): Promise<VersionResult> {
  const form = new FormData();
  form.append("file", input.file);
  form.append("format", input.format);
  form.append("mapping", JSON.stringify(input.mapping));
  form.append("near_duplicates", String(input.near_duplicates));
  form.append("note", input.note);
  return postVersion(`/api/v1/families/${familyId}/versions/upload/`, form);
}

export function useUploadVersion(familyId: number) {
  const invalidate = useInvalidateVersions();
  return useMutation({
    mutationFn: (input: UploadVersionInput) => uploadVersion(familyId, input),
    onSuccess: invalidate,
  });
}
