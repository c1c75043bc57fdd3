// The four ways to make a pool version answer 201 with a new version, or 200 with the
// latest one when the content is identical; callers need to tell the two apart.
import { useQueryClient } from "@tanstack/react-query";

import { parseApiError, readCookie } from "@/lib/api-client";

import type { PoolVersion } from "./types";

export type VersionResult = { version: PoolVersion; created: boolean };

export async function postVersion(path: string, body: FormData | object): Promise<VersionResult> {
  const { data, status } = await post(path, body);
  return { version: data as PoolVersion, created: status === 201 };
}

/** A multipart POST answered with JSON: the file endpoints that freeze nothing (inspect, preview). */
export async function postForm<T>(path: string, body: FormData): Promise<T> {
  return (await post(path, body)).data as T;
}

async function post(path: string, body: FormData | object): Promise<{ data: unknown; status: number }> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const csrf = readCookie("csrftoken");
  if (csrf) headers["X-CSRFToken"] = csrf;
  const isForm = body instanceof FormData;
  if (!isForm) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method: "POST",
    headers,
    credentials: "same-origin",
    body: isForm ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = text;
  }
  if (!response.ok) throw parseApiError(response.status, data);
  return { data, status: response.status };
}

/** Refreshes what a new version changes: the family's counts and its version list. */
export function useInvalidateVersions() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["families"] }),
      queryClient.invalidateQueries({ queryKey: ["pool-versions"] }),
    ]);
}
