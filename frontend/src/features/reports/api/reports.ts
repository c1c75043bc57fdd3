// Regression reports and their review. The team's events socket says "report.updated" (and
// the audited "report.*" actions) whenever a report changes, which refetches ["report", ...]
// (see lib/live.ts), so a comment or an approval shows at once on every open page.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { ApiRequestBody, Paginated } from "@/lib/api-types";

export type Report = components["schemas"]["Report"];
export type ReportListItem = components["schemas"]["ReportList"];
export type FamilyRow = components["schemas"]["FamilyRow"];
export type Profile = components["schemas"]["Profile"];
export type ReportComment = components["schemas"]["Comment"];
export type ReportReview = components["schemas"]["Review"];
export type CommentInput = ApiRequestBody<"/api/v1/reports/{id}/comments/", "post">;
export type ReviewInput = ApiRequestBody<"/api/v1/reports/{id}/review/", "post">;
export type ReportInput = ApiRequestBody<"/api/v1/reports/", "post">;

export const reportQueryKey = ["report"] as const;

export function reportsOptions(team: string) {
  return queryOptions({
    queryKey: [...reportQueryKey, "list", team],
    queryFn: ({ signal }) => api.get<Paginated<ReportListItem>>("/api/v1/reports/", { team }, signal),
  });
}

export function useReports(team: string | undefined) {
  return useQuery({ ...reportsOptions(team ?? ""), enabled: !!team });
}

export function reportOptions(id: number) {
  return queryOptions({
    queryKey: [...reportQueryKey, id],
    queryFn: ({ signal }) => api.get<Report>(`/api/v1/reports/${id}/`, undefined, signal),
  });
}

export function useReport(id: number) {
  return useQuery(reportOptions(id));
}

/** The reports whose candidate or baseline is evaluation ``evaluation``. */
export function useReportsOfEvaluation(evaluation: number) {
  return useQuery({
    queryKey: [...reportQueryKey, "list", "evaluation", evaluation],
    queryFn: ({ signal }) =>
      api.get<Paginated<ReportListItem>>("/api/v1/reports/", { evaluation: String(evaluation) }, signal),
  });
}

function useReportAction<I, R>(send: (input: I) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => client.invalidateQueries({ queryKey: reportQueryKey }),
  });
}

export function useCreateReport() {
  return useReportAction((input: ReportInput) => api.post<Report>("/api/v1/reports/", input));
}

export function useSubmitReport(id: number) {
  return useReportAction(() => api.post<Report>(`/api/v1/reports/${id}/submit/`));
}

export function useReviewReport(id: number) {
  return useReportAction((input: ReviewInput) => api.post<Report>(`/api/v1/reports/${id}/review/`, input));
}

export function useCommentOnReport(id: number) {
  return useReportAction((input: CommentInput) =>
    api.post<ReportComment>(`/api/v1/reports/${id}/comments/`, input),
  );
}

export type Promotion = components["schemas"]["Promotion"];
export type PromotionInput = ApiRequestBody<"/api/v1/promotions/", "post">;

/** Promote the report's candidate checkpoint; a refusal (409) names the field and the reason. */
export function usePromoteCheckpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: PromotionInput) => api.post<Promotion>("/api/v1/promotions/", input),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: reportQueryKey });
      void client.invalidateQueries({ queryKey: ["runs", "detail"] });
    },
  });
}
