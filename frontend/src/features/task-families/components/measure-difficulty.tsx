import { useState, type FormEvent } from "react";
import { Link } from "react-router";

import { QueryPlaceholder } from "@/components/ui/card";
import { formatDateTime, formatRelative } from "@/lib/format";
import { FormAlert } from "@/components/ui/form-field";
import { useAvailableModels, type AvailableModel } from "@/lib/worker-models";

import { isActiveJob, usePoolJobs } from "../api/get-pool-jobs";
import { useStartGrading, type StartGradingInput } from "../api/start-grading";
import type { JobStatus, PoolJob } from "../api/types";

import { fieldErrors, otherErrors } from "./field-errors";
import { FieldError, InputField } from "./form-fields";

const SHOWN = new Set(["model_path", "k", "temperature", "max_new_tokens", "levels"]);

const STATUS_BADGE: Record<JobStatus, string> = {
  queued: "badge",
  running: "badge badge-accent",
  succeeded: "badge badge-success",
  failed: "badge badge-danger",
};

type NumberField = { name: "k" | "temperature" | "max_new_tokens" | "levels"; label: string; min: number; max: number; step: number | "any"; hint: string };

const NUMBER_FIELDS: NumberField[] = [
  { name: "k", label: "Samples per task (k)", min: 1, max: 64, step: 1, hint: "1 to 64" },
  { name: "temperature", label: "Temperature", min: 0, max: 2, step: "any", hint: "0 to 2" },
  { name: "max_new_tokens", label: "Max new tokens", min: 1, max: 4096, step: 1, hint: "Per answer" },
  { name: "levels", label: "Levels", min: 2, max: 10, step: 1, hint: "Pass-rate bands" },
];

const DEFAULTS: Record<NumberField["name"], string> = { k: "8", temperature: "1.0", max_new_tokens: "64", levels: "5" };

function formatParameters(count: number): string {
  const units: [number, string][] = [[1e9, "B"], [1e6, "M"], [1e3, "k"]];
  const [size, unit] = units.find(([n]) => count >= n) ?? [1, ""];
  return `${Number((count / size).toPrecision(3))}${unit} parameters`;
}

function modelLabel(model: AvailableModel): string {
  const parts = [model.name, model.builtin ? "built in" : "", model.parameters ? formatParameters(model.parameters) : ""];
  return parts.filter(Boolean).join(" · ");
}

/** The models a running cpu worker can load, as a select: a typed path could name none. */
function ModelField({ value, onChange, error }: { value: string; onChange: (name: string) => void; error?: string }) {
  const models = useAvailableModels("cpu");
  const offered = models.data?.models ?? [];
  const chosen = offered.find((m) => m.name === value);
  let hint = "Models the running workers can load";
  if (models.isError) hint = `Could not list the models: ${models.error.message}`;
  else if (models.data && offered.length === 0) hint = models.data.detail;
  else if (chosen && !chosen.ready) hint = "Built on its first use, in about a minute";
  const placeholder = models.isPending ? "Loading models…" : offered.length ? "Choose a model" : "No model available";
  return (
    <div className="field" style={{ flex: "3 1 280px" }}>
      <label htmlFor="grade-model">Model</label>
      <select
        id="grade-model"
        className="select mono"
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={["grade-model-hint", error ? "grade-model-error" : ""].filter(Boolean).join(" ")}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">{placeholder}</option>
        {offered.map((m) => (
          <option key={m.name} value={m.name}>
            {modelLabel(m)}
          </option>
        ))}
      </select>
      <span className="field-hint" id="grade-model-hint">
        {hint}
      </span>
      <FieldError id="grade-model-error" message={error} />
    </div>
  );
}

function JobParams({ params }: { params: unknown }) {
  const p = (params && typeof params === "object" ? params : {}) as Partial<StartGradingInput>;
  return (
    <span className="tf-meta" style={{ display: "inline-flex" }}>
      {p.model_path && (
        <span className="mono tf-job-model" title={p.model_path}>
          {p.model_path}
        </span>
      )}
      {p.k !== undefined && <span>k={p.k}</span>}
      {p.temperature !== undefined && <span>T={p.temperature}</span>}
      {p.max_new_tokens !== undefined && <span>{p.max_new_tokens} tokens</span>}
      {p.levels !== undefined && <span>{p.levels} levels</span>}
    </span>
  );
}

function JobRow({ job, familyId, now }: { job: PoolJob; familyId: number; now: Date }) {
  const percent = Math.round(Math.min(1, Math.max(0, job.progress)) * 100);
  const label = `Job ${job.id}`;
  return (
    <li aria-label={label}>
      <div className="row" style={{ flexWrap: "wrap" }}>
        <strong>#{job.id}</strong>
        <span className={STATUS_BADGE[job.status] ?? "badge"}>{job.status}</span>
        <JobParams params={job.params} />
        <span className="subtle" style={{ marginLeft: "auto" }} title={formatDateTime(job.created_at)}>
          {formatRelative(job.created_at, now)}
        </span>
      </div>
      <div className="tf-job-progress">
        <div
          className="tf-progress"
          role="progressbar"
          aria-label={`${label} progress`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          aria-valuetext={job.message || `${percent}%`}
          data-status={job.status}
        >
          <div className="tf-progress-fill" style={{ width: `${percent}%` }} />
        </div>
        <span className={job.status === "failed" ? "tf-job-message tf-diff-remove" : "tf-job-message subtle"}>
          {job.message || (job.status === "queued" ? "Waiting for a worker" : `${percent}%`)}
        </span>
        {job.status === "succeeded" && job.result_version !== null && (
          <Link className="btn btn-sm" to={`/task-families/${familyId}/versions/${job.result_version}`}>
            Open graded version
          </Link>
        )}
      </div>
    </li>
  );
}

/**
 * Measured difficulty: queues a job that samples k answers per task with a model and
 * writes a new version whose levels come from each task's pass rate; lists the jobs
 * started from this version, refetching while one is queued or running.
 */
export function MeasureDifficulty({ versionId, familyId }: { versionId: number; familyId: number }) {
  const [modelPath, setModelPath] = useState("");
  const [numbers, setNumbers] = useState(DEFAULTS);
  const jobs = usePoolJobs(versionId);
  const start = useStartGrading(versionId);
  const errors = fieldErrors(start.error);
  const general = otherErrors(start.error, (f) => SHOWN.has(f));
  const now = new Date();

  function submit(event: FormEvent) {
    event.preventDefault();
    start.mutate({
      model_path: modelPath,
      k: Number(numbers.k),
      temperature: Number(numbers.temperature),
      max_new_tokens: Number(numbers.max_new_tokens),
      levels: Number(numbers.levels),
    });
  }

  const active = jobs.data?.some(isActiveJob) ?? false;
  return (
    <>
      <form className="card-body stack" onSubmit={submit} aria-label="Measure difficulty">
        <div className="form-row" style={{ alignItems: "flex-start" }}>
          <ModelField value={modelPath} error={errors.model_path} onChange={setModelPath} />
          {NUMBER_FIELDS.map((f) => (
            <InputField
              key={f.name}
              id={`grade-${f.name}`}
              label={f.label}
              type="number"
              min={f.min}
              max={f.max}
              step={f.step}
              style={{ flex: "0 1 130px", minWidth: 0 }}
              value={numbers[f.name]}
              error={errors[f.name]}
              hint={f.hint}
              onChange={(value) => setNumbers({ ...numbers, [f.name]: value })}
            />
          ))}
        </div>
        <div className="row">
          <button type="submit" className="btn btn-primary" disabled={start.isPending || !modelPath}>
            {start.isPending ? "Queueing…" : "Measure difficulty"}
          </button>
        </div>
        <FormAlert messages={general} />
      </form>
      <div className="tf-jobs">
        <div className="tf-jobs-heading">
          <h3>Jobs</h3>
          {active && <span className="subtle">Updating every 2 s</span>}
        </div>
        <QueryPlaceholder query={jobs} />
        {jobs.data?.length === 0 && (
          <p className="card-body subtle" style={{ margin: 0 }}>
            No measurements of this version yet.
          </p>
        )}
        {jobs.data && jobs.data.length > 0 && (
          <ul className="tf-job-list" aria-label="Difficulty jobs">
            {jobs.data.map((job) => (
              <JobRow key={job.id} job={job} familyId={familyId} now={now} />
            ))}
          </ul>
        )}
      </div>
    </>
  );
}
