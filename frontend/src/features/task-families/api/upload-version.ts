import { useMutation } from "@tanstack/react-query";

import type { PromptMode, UploadMode, UploadPreview } from "./types";
import { postForm, postVersion, useInvalidateVersions, type VersionResult } from "./version-request";

export type UploadFormat = "jsonl" | "csv" | "parquet";

/** How to read a file into a version; the same for its preview and its upload. */
export type UploadOptions = {
  file: File;
  format: UploadFormat;
  /** kind field -> column in the file */
  mapping: Record<string, string>;
  /** text difficulty -> level */
  difficulty_labels: Record<string, number>;
  prompt_mode: PromptMode;
  mode: UploadMode;
  near_duplicates: boolean;
  /** The version the preview was made against (0: none); the upload is refused if it changed. */
  base?: number;
};

export type UploadVersionInput = UploadOptions & { note: string };

function uploadForm(input: UploadOptions & { note?: string }): FormData {
  const form = new FormData();
  form.append("file", input.file);
  form.append("format", input.format);
  form.append("mapping", JSON.stringify(input.mapping));
  form.append("difficulty_labels", JSON.stringify(input.difficulty_labels));
  form.append("prompt_mode", input.prompt_mode);
  form.append("mode", input.mode);
  form.append("near_duplicates", String(input.near_duplicates));
  if (input.base !== undefined) form.append("base", String(input.base));
  if (input.note !== undefined) form.append("note", input.note);
  return form;
}

export function previewUpload(familyId: number, input: UploadOptions): Promise<UploadPreview> {
  return postForm<UploadPreview>(`/api/v1/families/${familyId}/versions/upload/preview/`, uploadForm(input));
}

export function uploadVersion(familyId: number, input: UploadVersionInput): Promise<VersionResult> {
  return postVersion(`/api/v1/families/${familyId}/versions/upload/`, uploadForm(input));
}

export function usePreviewUpload(familyId: number) {
  return useMutation({ mutationFn: (input: UploadOptions) => previewUpload(familyId, input) });
}

export function useUploadVersion(familyId: number) {
  const invalidate = useInvalidateVersions();
  return useMutation({
    mutationFn: (input: UploadVersionInput) => uploadVersion(familyId, input),
    onSuccess: invalidate,
  });
}
