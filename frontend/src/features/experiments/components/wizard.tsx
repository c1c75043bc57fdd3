import { useState } from "react";
import { Link, useNavigate } from "react-router";

import { isApiError } from "@/lib/api-client";
import { useCurrentTeam } from "@/lib/current-team";

import { LaunchFailed, useCreateAndLaunch } from "../api/create-experiment";
import { useAlgorithms } from "../api/get-algorithms";
import { buildConfig, stepOf, STEPS, type Draft, type StepId } from "../lib/draft";
import { PreflightPanel, type PreflightRun } from "./preflight-panel";
import { StepAlgorithm } from "./step-algorithm";
import { StepCurriculum, useDefaultVerifiers } from "./step-curriculum";
import { StepEvaluation } from "./step-evaluation";
import { StepModel } from "./step-model";
import { StepResources } from "./step-resources";
import { StepReview } from "./step-review";

/** The first message per field path; messages without a field under "". */
function messagesByField(error: unknown): Record<string, string> {
  const cause = error instanceof LaunchFailed ? error.cause : error;
  const out: Record<string, string> = {};
  if (isApiError(cause)) for (const item of cause.errors) out[item.field ?? ""] ??= item.message;
  else if (cause instanceof Error) out[""] = cause.message;
  return out;
}

/** What must be chosen before anything is sent; everything else is the server's to check. */
function missing(draft: Draft): Record<string, string> {
  const out: Record<string, string> = {};
  if (draft.curriculum.kind === "saved" && draft.curriculum.saved === null) out["config.curriculum.saved"] = "Choose a curriculum.";
  if (!draft.model) out["config.model"] = "Choose a model that a running worker offers.";
  if (!draft.name.trim()) out.name = "Give the experiment a name.";
  return out;
}

export function Wizard({ initial, parent }: { initial: Draft; parent: { id: number; name: string } | null }) {
  const { team } = useCurrentTeam();
  const navigate = useNavigate();
  const algorithms = useAlgorithms();
  const [draft, setDraft] = useState(initial);
  useDefaultVerifiers(draft, setDraft);
  const [step, setStep] = useState<StepId>("curriculum");
  const [local, setLocal] = useState<Record<string, string>>({});
  const [preflight, setPreflight] = useState<PreflightRun | null>(null);
  const create = useCreateAndLaunch(team?.slug);
  const errors = { ...messagesByField(create.error), ...local };
  const stepsWithErrors = new Set(Object.keys(errors).map((f) => stepOf(f || null)));
  const at = STEPS.findIndex((s) => s.id === step);

  const submit = () => {
    const problems = missing(draft);
    setLocal(problems);
    const first = Object.keys(problems)[0];
    if (first !== undefined) {
      setStep(stepOf(first));
      return;
    }
    const algorithm = algorithms.data?.find((a) => a.name === draft.algorithm);
    create.mutate(
      { name: draft.name.trim(), description: draft.description, config: buildConfig(draft, algorithm), parent: parent?.id ?? null },
      {
        onSuccess: ({ run }) => navigate(`/runs/${run.id}`),
        onError: (error) => {
          if (error instanceof LaunchFailed) return;
          const field = Object.keys(messagesByField(error))[0];
          setStep(stepOf(field || null));
        },
      },
    );
  };

  const general = Object.entries(errors).filter(([field]) => stepOf(field || null) === "review" && field !== "name" && field !== "description");
  const launchFailed = create.error instanceof LaunchFailed ? create.error : null;

  return (
    <div className="ex-wizard">
      <nav className="ex-steps" aria-label="Experiment steps">
        <ol>
          {STEPS.map((s, i) => (
            <li key={s.id}>
              <button type="button" className="ex-step" aria-current={s.id === step ? "step" : undefined} onClick={() => setStep(s.id)}>
                <span className={`ex-step-number${stepsWithErrors.has(s.id) ? " has-error" : i < at ? " is-done" : ""}`}>{i + 1}</span>
                <span className="ex-step-text">
                  <span className="ex-step-label">{s.label}</span>
                  <span className="ex-step-hint">{stepsWithErrors.has(s.id) ? "needs attention" : s.hint}</span>
                </span>
              </button>
            </li>
          ))}
        </ol>
      </nav>
      <section className="card ex-panel" aria-labelledby="wizard-step-title">
        <div className="card-header">
          <div>
            <h2 id="wizard-step-title">
              {at + 1}. {STEPS[at]?.label}
            </h2>
            {parent && <div className="card-description">Cloning {parent.name}: saving makes a new experiment; the original stays as it was.</div>}
          </div>
        </div>
        <div className="card-body">
          {launchFailed && (
            <div className="alert alert-error ex-banner" role="alert">
              {launchFailed.message} It is saved as{" "}
              <Link to={`/experiments/${launchFailed.experiment.id}`}>{launchFailed.experiment.name}</Link>; launch it from its page once this is fixed:{" "}
              {Object.values(messagesByField(launchFailed)).join(" ")}
            </div>
          )}
          {general.length > 0 && !launchFailed && (
            <div className="alert alert-error ex-banner" role="alert">
              {general.map(([field, message]) => (
                <div key={field}>{field ? `${field}: ${message}` : message}</div>
              ))}
            </div>
          )}
          {step === "curriculum" && <StepCurriculum draft={draft} errors={errors} onChange={setDraft} />}
          {step === "model" && <StepModel draft={draft} errors={errors} onChange={setDraft} />}
          {step === "algorithm" && <StepAlgorithm draft={draft} errors={errors} onChange={setDraft} />}
          {step === "evaluation" && <StepEvaluation draft={draft} errors={errors} onChange={setDraft} />}
          {step === "resources" && <StepResources draft={draft} errors={errors} onChange={setDraft} />}
          {step === "review" && <StepReview draft={draft} errors={errors} onChange={setDraft} onEdit={setStep} />}
          {step === "review" && (
            <PreflightPanel
              config={buildConfig(draft, algorithms.data?.find((a) => a.name === draft.algorithm))}
              run={preflight}
              onStarted={setPreflight}
            />
          )}
        </div>
        <div className="ex-panel-footer">
          <button type="button" className="btn" disabled={at === 0} onClick={() => setStep(STEPS[at - 1]!.id)}>
            Back
          </button>
          <span className="subtle">
            Step {at + 1} of {STEPS.length}
          </span>
          {step === "review" ? (
            <button type="button" className="btn btn-primary" disabled={create.isPending} onClick={submit}>
              {create.isPending ? "Creating…" : "Create and launch"}
            </button>
          ) : (
            <button type="button" className="btn btn-primary" onClick={() => setStep(STEPS[at + 1]!.id)}>
              Next
            </button>
          )}
        </div>
      </section>
    </div>
  );
}
