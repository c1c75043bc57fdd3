import { isApiError } from "@/lib/api-client";

/**
 * The first message per field path across failed requests; messages for paths the form
 * does not show, and those without a field, are returned as `other`.
 */
export function collectErrors(errors: unknown[], shown: (field: string) => boolean) {
  const byField: Record<string, string> = {};
  const other: string[] = [];
  for (const error of errors) {
    if (!error) continue;
    if (!isApiError(error)) {
      other.push(error instanceof Error ? error.message : "Something went wrong.");
      continue;
    }
    for (const { field, message } of error.errors) {
      if (field && shown(field)) byField[field] ??= message;
      else other.push(field ? `${field}: ${message}` : message);
    }
  }
  return { byField, other: [...new Set(other)] };
}
