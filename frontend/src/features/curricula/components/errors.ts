import { isApiError } from "@/lib/api-client";

const CONFIG_KEYS = /^(band|floor|window|step|dynamic|families)\b/;

/**
 * Some config errors arrive on the field `config` with the key only in the message
 * ("band must satisfy ..."); those are filed under `config.<key>` so they show by that field.
 */
export function errorPath(field: string | null, message: string): string | null {
  if (field !== "config") return field;
  const key = CONFIG_KEYS.exec(message)?.[1];
  return key ? `config.${key}` : field;
}

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
    for (const item of error.errors) {
      const field = errorPath(item.field, item.message);
      if (field && shown(field)) byField[field] ??= item.message;
      else other.push(field ? `${field}: ${item.message}` : item.message);
    }
  }
  return { byField, other: [...new Set(other)] };
}
