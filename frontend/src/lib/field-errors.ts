import { isApiError } from "@/lib/api-client";

/**
 * A failed request's messages: the first one per field path the form shows, and the rest
 * (paths it has no control for, a 409, a failure without a field) as `other`, to list above it.
 */
export function fieldErrors(error: unknown, shown: (field: string) => boolean) {
  const byField: Record<string, string> = {};
  const other: string[] = [];
  if (error && !isApiError(error)) other.push(error instanceof Error ? error.message : "Something went wrong.");
  for (const { field, message } of isApiError(error) ? error.errors : []) {
    if (field && shown(field)) byField[field] ??= message;
    else other.push(field ? `${field}: ${message}` : message);
  }
  return { byField, other: [...new Set(other)] };
}
