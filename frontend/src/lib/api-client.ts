// One fetch wrapper for the REST API: same-origin session cookie, CSRF header on
// unsafe methods, and the single error format parsed into ApiError.
import type { components } from "@/api/schema";

/** The platform's error codes (the schema's enum); a field's validator may use its own. */
export type ApiErrorCode = components["schemas"]["ApiErrorCode"];

export type ApiErrorItem = {
  field: string | null;
  code: ApiErrorCode | (string & Record<never, never>);
  message: string;
};

export class ApiError extends Error {
  readonly status: number;
  readonly errors: ApiErrorItem[];
  readonly body: unknown;

  constructor(status: number, errors: ApiErrorItem[], body: unknown) {
    super(errors[0]?.message ?? `Request failed with status ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.errors = errors;
    this.body = body;
  }

  /** Messages about one field, or (with null) those about the request as a whole. */
  messagesFor(field: string | null): string[] {
    return this.errors.filter((e) => e.field === field).map((e) => e.message);
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

function isErrorItem(value: unknown): value is ApiErrorItem {
  if (typeof value !== "object" || value === null) return false;
  const item = value as Record<string, unknown>;
  return (
    typeof item.code === "string" &&
    typeof item.message === "string" &&
    (item.field === null || typeof item.field === "string")
  );
}

/** Turns any error response into ApiError; bodies not in the API's format get one generic item. */
export function parseApiError(status: number, body: unknown): ApiError {
  const raw = (body as { errors?: unknown } | null)?.errors;
  if (Array.isArray(raw) && raw.length > 0 && raw.every(isErrorItem)) {
    return new ApiError(status, raw, body);
  }
  const detail = (body as { detail?: unknown } | null)?.detail;
  const message = typeof detail === "string" ? detail : `Request failed with status ${status}`;
  return new ApiError(status, [{ field: null, code: `http_${status}`, message }], body);
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export type RequestOptions = {
  method?: string;
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
};

export function buildUrl(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = (options.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (!SAFE_METHODS.has(method)) {
    const csrf = readCookie("csrftoken");
    if (csrf) headers["X-CSRFToken"] = csrf;
  }
  const response = await fetch(buildUrl(path, options.query), {
    method,
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const body = await readBody(response);
  if (!response.ok) throw parseApiError(response.status, body);
  return body as T;
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) =>
    apiRequest<T>(path, { query, signal }),
  post: <T>(path: string, body?: unknown, query?: Query) =>
    apiRequest<T>(path, { method: "POST", body, query }),
  patch: <T>(path: string, body?: unknown, query?: Query) =>
    apiRequest<T>(path, { method: "PATCH", body, query }),
  delete: <T = void>(path: string, query?: Query) =>
    apiRequest<T>(path, { method: "DELETE", query }),
};

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

const AUTH_CODES = new Set(["not_authenticated", "authentication_failed"]);

/**
 * The request failed because nobody is signed in: a 401, or a 403 whose code says so
 * (DRF answers 403 to anonymous session users). A plain 403 is "not allowed", not "signed out".
 */
export function isUnauthenticated(error: unknown): boolean {
  if (!isApiError(error)) return false;
  if (error.status === 401) return true;
  return error.status === 403 && error.errors.some((e) => AUTH_CODES.has(e.code));
}
