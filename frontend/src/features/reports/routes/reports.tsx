import { ConceptPage } from "@/components/ui/concept-page";

export function ReportsRoute() {
  return (
    <ConceptPage
      title="Reports"
      icon="reports"
      description="An evaluation report compares a checkpoint with its baseline on held-out sets of every family, flags regressions and reward hacking, and collects reviews."
      emptyTitle="No reports yet"
      emptyBody="Evaluation reports will appear here once a run has been evaluated."
    />
  );
}
