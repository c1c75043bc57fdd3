// One page of the audit log of the current team (or of all the caller's teams), filtered by
// the server: ?search=, ?actor=, ?action=, ?target_type=, ?since=, ?until=, ?page=. The team's
// socket sends the audited actions themselves, so a new event refetches ["audit", ...].
import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiResponse, ListItem } from "@/lib/api-types";

type AuditPage = ApiResponse<"/api/v1/audit/", "get">;
export type AuditEntry = ListItem<AuditPage>;

export type AuditFilters = {
  search: string;
  actor: string;
  action: string;
  target_type: string;
  /** ISO date-times, or "" for no bound. */
  since: string;
  until: string;
};

export const NO_FILTERS: AuditFilters = { search: "", actor: "", action: "", target_type: "", since: "", until: "" };
export const PAGE_SIZE = 25;

export function useAuditLog(team: string | undefined, filters: AuditFilters, page: number) {
  const query = { team, page, page_size: PAGE_SIZE, ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) };
  return useQuery({
    queryKey: ["audit", "log", query],
    queryFn: ({ signal }) => api.get<AuditPage>("/api/v1/audit/", query, signal),
    placeholderData: keepPreviousData,
  });
}

export function useAuditActions(team: string | undefined) {
  return useQuery({
    queryKey: ["audit", "actions", team ?? null],
    queryFn: ({ signal }) => api.get<string[]>("/api/v1/audit/actions/", team ? { team } : {}, signal),
  });
}
