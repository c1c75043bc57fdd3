import { useMutation } from "@tanstack/react-query";

import type { FileSummary } from "./types";
import type { UploadFormat } from "./upload-version";
import { postForm } from "./version-request";

/** A file's columns, first rows and text labels, read before it is mapped and uploaded. */
export function inspectUpload(familyId: number, file: File, format: UploadFormat): Promise<FileSummary> {
  const form = new FormData();
  form.append("file", file);
  form.append("format", format);
  return postForm<FileSummary>(`/api/v1/families/${familyId}/versions/inspect/`, form);
}

export function useInspectUpload(familyId: number) {
  return useMutation({
    mutationFn: ({ file, format }: { file: File; format: UploadFormat }) => inspectUpload(familyId, file, format),
  });
}
