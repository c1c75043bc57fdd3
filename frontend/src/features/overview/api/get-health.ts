import { queryOptions, useQuery } from "@tanstack/react-query";

import { api, isApiError } from "@/lib/api-client";

// /healthz is a plain Django view outside the REST API, so it is not in the OpenAPI schema.
/** `detail` is a string for most checks and a capability report (an object) for the sandbox. */
export type HealthCheck = { ok: boolean; detail?: unknown; ms?: number };
export type Health = {
  status: "ok" | "degraded";
  checks: Record<string, HealthCheck>;
};

function isHealth(body: unknown): body is Health {
  return typeof body === "object" && body !== null && "status" in body && "checks" in body;
}

export async function getHealth(signal?: AbortSignal): Promise<Health> {
  try {
    return await api.get<Health>("/healthz", undefined, signal);
  } catch (error) {
    // A degraded service may answer 503 with the same report in the body.
    if (isApiError(error) && isHealth(error.body)) return error.body;
    throw error;
  }
}

export function healthQueryOptions() {
  return queryOptions({
    queryKey: ["health"],
    queryFn: ({ signal }) => getHealth(signal),
    refetchInterval: 30_000,
  });
}

export function useHealth() {
  return useQuery(healthQueryOptions());
}
