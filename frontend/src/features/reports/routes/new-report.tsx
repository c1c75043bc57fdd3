// Compare two finished evaluations of the team in a new report: the candidate first, then a
// baseline among those that evaluated the same pool versions; the server's refusal names the field.
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { FormAlert, FormField } from "@/components/ui/form-field";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { fieldErrors } from "@/lib/field-errors";

import { useFinishedEvaluations, type EvaluationJob } from "../api/evaluations";
import { useCreateReport } from "../api/reports";
import { comparable, evaluationLabel } from "../lib/compatible";
import "../reports.css";

const shownField = (path: string) => path === "candidate" || path === "baseline";

function EvaluationSelect({ jobs, value, onChange, empty, control }: {
  jobs: EvaluationJob[];
  value: string;
  onChange: (value: string) => void;
  empty: string;
  control: object;
}) {
  return (
    <select {...control} className="select" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{empty}</option>
      {jobs.map((j) => (
        <option key={j.id} value={j.id}>
          {evaluationLabel(j)}
        </option>
      ))}
    </select>
  );
}

function CompareForm({ jobs }: { jobs: EvaluationJob[] }) {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const create = useCreateReport();
  const [candidate, setCandidate] = useState(params.get("candidate") ?? "");
  const [baseline, setBaseline] = useState(params.get("baseline") ?? "");
  const chosen = jobs.find((j) => String(j.id) === candidate);
  const baselines = chosen ? jobs.filter((j) => comparable(chosen, j)) : [];
  const left = chosen ? jobs.length - 1 - baselines.length : 0;
  const { byField, other } = fieldErrors(create.error, shownField);

  function pickCandidate(value: string) {
    setCandidate(value);
    const next = jobs.find((j) => String(j.id) === value);
    const kept = jobs.find((j) => String(j.id) === baseline);
    if (!next || !kept || !comparable(next, kept)) setBaseline("");
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(
      { candidate: Number(candidate), baseline: Number(baseline) },
      { onSuccess: (report) => navigate(`/reports/${report.id}`) },
    );
  }

  return (
    <form className="card-body stack" onSubmit={submit} aria-label="Compare evaluations" noValidate>
      <FormAlert messages={other} />
      <FormField label="Candidate" hint="The evaluation of the checkpoint you want to ship." error={byField.candidate}>
        {(control) => <EvaluationSelect jobs={jobs} value={candidate} onChange={pickCandidate} empty="Choose the candidate…" control={control} />}
      </FormField>
      <FormField
        label="Baseline"
        hint={
          !chosen
            ? "Choose the candidate first."
            : left > 0
              ? `${left} other evaluation${left === 1 ? "" : "s"} left out: they evaluated none of the candidate's pool versions.`
              : "What the candidate must not fall behind: the base model or the checkpoint in production."
        }
        error={byField.baseline}
      >
        {(control) => (
          <EvaluationSelect
            jobs={baselines}
            value={baseline}
            onChange={setBaseline}
            empty={chosen && !baselines.length ? "No evaluation shares the candidate's tasks" : "Choose the baseline…"}
            control={{ ...control, disabled: !chosen || !baselines.length }}
          />
        )}
      </FormField>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !candidate || !baseline}>
          {create.isPending ? "Comparing…" : "Make the report"}
        </button>
      </div>
    </form>
  );
}

/** The evaluations the link named that have not succeeded yet (queued from a run's checkpoints):
 * the list of finished ones refetches as each one's "evaluation.updated" arrives. */
function Waiting({ jobs }: { jobs: EvaluationJob[] }) {
  const [params] = useSearchParams();
  const named = [params.get("candidate"), params.get("baseline")].filter((id): id is string => !!id);
  const waiting = named.filter((id) => !jobs.some((j) => String(j.id) === id));
  if (!waiting.length) return null;
  return (
    <div className="card-body alert" role="status">
      Waiting for{" "}
      {waiting.map((id, i) => (
        <span key={id}>
          {i > 0 && " and "}
          <Link to={`/evaluations/${id}`}>evaluation #{id}</Link>
        </span>
      ))}{" "}
      to finish: {waiting.length === 1 ? "it is" : "they are"} offered here once succeeded.
    </div>
  );
}

export function NewReportRoute() {
  const team = useCurrentTeam().team?.slug;
  const [params] = useSearchParams();
  const named = [params.get("candidate"), params.get("baseline")].filter((id): id is string => !!id);
  const jobs = useFinishedEvaluations(team, named);
  const rows = jobs.data?.results ?? [];
  return (
    <>
      <div className="subtle" style={{ marginBottom: "var(--space-2)" }}>
        <Link to="/reports">Reports</Link> /
      </div>
      <PageHeader
        title="Compare evaluations"
        description="A report pairs the held-out tasks both evaluations sampled and gives, family by family, the difference with a 95% interval and a verdict."
      />
      <Card title="Candidate and baseline">
        <QueryPlaceholder query={jobs} />
        {jobs.data && <Waiting jobs={rows} />}
        {jobs.data && rows.length < 2 && (
          <EmptyState title="Two finished evaluations are needed">
            A report compares two evaluations that have succeeded. <Link to="/evaluations/new">Start an evaluation</Link> of
            the candidate and one of the baseline, on the same families.
          </EmptyState>
        )}
        {rows.length >= 2 && <CompareForm jobs={rows} />}
      </Card>
    </>
  );
}
