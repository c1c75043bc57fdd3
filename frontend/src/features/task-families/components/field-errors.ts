import { isApiError } from "@/lib/api-client";

/** The server's message for each field path, the first one when there are several. */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isApiError(error)) return out;
  for (const item of error.errors) {
    if (item.field && !(item.field in out)) out[item.field] = item.message;
  }
  return out;
}

/** Messages that no field on the form shows: general ones and fields not in `shown`. */
export function otherErrors(error: unknown, shown: (field: string) => boolean): string[] {
  if (!isApiError(error)) return error instanceof Error ? [error.message] : [];
  return error.errors.filter((e) => !e.field || !shown(e.field)).map((e) => (e.field ? `${e.field}: ${e.message}` : e.message));
}

/** Errors about generator parameters (`params.ops`, `params[ops][0]`), keyed by parameter name. */
export function paramErrors(errors: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(errors)
      .filter(([field]) => field === "params" || field.startsWith("params.") || field.startsWith("params["))
      .map(([field, message]) => [field.replace(/^params\.?/, "").replace(/^\[/, "").split(/[.[\]]/)[0] || "params", message]),
  );
}
