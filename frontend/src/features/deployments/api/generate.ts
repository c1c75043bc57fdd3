// "Try it": one prompt to the deployment. Unlike the other calls it keeps the answer's
// Retry-After header, which a 503 (no replica ready, or a full queue) carries.
import { useMutation, useQueryClient } from "@tanstack/react-query";

import { ApiError, buildUrl, parseApiError, readCookie } from "@/lib/api-client";

import { deploymentsKey, type GenerateAnswer, type PromptInput } from "./types";

export class GenerateError extends ApiError {
  /** Seconds the server asks to wait before trying again, when it said. */
  readonly retryAfter: number | null;

  constructor(error: ApiError, retryAfter: number | null) {
    super(error.status, error.errors, error.body);
    this.name = "GenerateError";
    this.retryAfter = retryAfter;
  }
}

/** Retry-After in seconds: a number of seconds, or an HTTP date (counted from `now`). */
export function parseRetryAfter(header: string | null, now: Date = new Date()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

export async function generate(slug: string, input: PromptInput): Promise<GenerateAnswer> {
  const headers: Record<string, string> = { Accept: "application/json", "Content-Type": "application/json" };
  const csrf = readCookie("csrftoken");
  if (csrf) headers["X-CSRFToken"] = csrf;
  const response = await fetch(buildUrl(`/api/v1/deployments/${slug}/generate/`), {
    method: "POST",
    headers,
    credentials: "same-origin",
    body: JSON.stringify(input),
  });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!response.ok) {
    throw new GenerateError(parseApiError(response.status, body), parseRetryAfter(response.headers.get("Retry-After")));
  }
  return body as GenerateAnswer;
}

export function useGenerate(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: PromptInput) => generate(slug, input),
    // The request is in the log now, answered or not.
    onSettled: () => client.invalidateQueries({ queryKey: [...deploymentsKey, "requests", slug] }),
  });
}
