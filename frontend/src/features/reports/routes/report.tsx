// One report version: the headline, the family table with its intervals, the capability
// profiles, and the review panel. Figures are frozen; everything else updates live.
import { Link, useParams } from "react-router";

import { HealthSignalList } from "@/components/health/health-signals";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";

import { useReport, type Report } from "../api/reports";
import { FamilyTable } from "../components/family-table";
import { ProfilePlots } from "../components/profile-plots";
import { PromotionPanel } from "../components/promotion-panel";
import { ReportCanaries } from "../components/report-canaries";
import { ReviewPanel } from "../components/review-panel";
import "../reports.css";

function TrainingSignals({ report }: { report: Report }) {
  const found = report.figures.signals;
  if (!found) return null;
  return (
    <section className="card rn-health" aria-label="Training signals">
      <h3>
        Reward-hacking and drift signals{" "}
        <span className="subtle">
          of <Link to={`/runs/${found.run}`}>run {found.run}</Link>
          {found.step === null ? ", never checked" : `, checked at step ${found.step}`}, frozen with this report
        </span>
      </h3>
      <HealthSignalList runId={found.run} signals={found.signals} />
    </section>
  );
}

export function ReportRoute() {
  const id = Number(useParams().reportId);
  const query = useReport(id);
  const report = query.data;
  if (!report) return <div className="page"><QueryPlaceholder query={query} /></div>;
  const { figures } = report;
  return (
    <div className="page stack">
      <PageHeader
        title={`${report.lineage} · v${report.version}`}
        actions={
          <>
            <a className="btn" href={`/api/v1/reports/${report.id}/export/`} download>
              Export HTML
            </a>
            <a className="btn" href={`/api/v1/reports/${report.id}/export/?as=json`} download>
              Export JSON
            </a>
          </>
        }
        description={
          <>
            <strong className="rp-headline" aria-label="Headline">{report.headline}</strong>
            <br />
            <span className="subtle">
              k = {figures.settings.k}, temperature {figures.settings.temperature}; {figures.settings.bootstrap_resamples} paired
              bootstrap resamples over tasks (seed {figures.settings.seed})
            </span>
          </>
        }
      />
      <Card title="Families" description="Success of each side on the same held-out tasks; a family regresses when the whole interval is below zero and the drop passes its threshold (the dashed line).">
        <div className="card-body">
          <FamilyTable rows={figures.families} />
        </div>
      </Card>
      <div className="rp-columns">
        <Card title="Capability profile" description={`Candidate: ${report.candidate_subject} · baseline: ${report.baseline_subject}`}>
          <div className="card-body">
            <ProfilePlots candidate={figures.candidate_profile} baseline={figures.baseline_profile} />
          </div>
        </Card>
        <div className="stack">
          <Card title="Review">
            <ReviewPanel report={report} />
          </Card>
          <Card title="Promotion" description="A checkpoint is promoted only on the approved, newest version of its report.">
            <div className="card-body">
              <PromotionPanel report={report} />
            </div>
          </Card>
          <Card title="Canary releases" description="Live releases of this checkpoint, judged by the verifiers: each canary's report says why it ended as it did.">
            <div className="card-body">
              <ReportCanaries report={report} />
            </div>
          </Card>
        </div>
      </div>
      <TrainingSignals report={report} />
    </div>
  );
}
