// The deployment's request log, newest first, read again every 2 s while the page is open.
import { useQuery } from "@tanstack/react-query";

import { api, type Query } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

import { deploymentsKey, type ServedRequest } from "./types";

export const REQUESTS_POLL_MS = 2_000;

export type RequestFilter = { side?: "production" | "candidate"; canary?: number; status?: "ok" | "error" | "timeout" };

export function useServedRequests(slug: string, filter: RequestFilter = {}, pageSize = 25) {
  const query: Query = { ...filter, page_size: pageSize };
  return useQuery({
    queryKey: [...deploymentsKey, "requests", slug, filter, pageSize],
    queryFn: ({ signal }) =>
      api.get<Paginated<ServedRequest>>(`/api/v1/deployments/${slug}/requests/`, query, signal),
    refetchInterval: REQUESTS_POLL_MS,
  });
}
