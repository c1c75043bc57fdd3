// Pause and resume on the run page: the header's button, the notice that says why a run is
// paused (a person, or its budget), and the dialog that raises a budget to resume. A failed run
// is offered a resume too: the server continues it from its last checkpoint, or says it has none.
import { useState } from "react";

import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { isApiError } from "@/lib/api-client";

import { usePauseRun } from "../api/pause-run";
import { useResumeRun, type ResumeBody } from "../api/resume-run";
import { isActive, type Run } from "../api/types";
import "../control.css";

function canPause(run: Run): boolean {
  return isActive(run) && !run.pause_requested && !run.cancel_requested;
}

function canResume(run: Run): boolean {
  return run.state === "paused" || run.state === "failed" || (run.state === "running" && run.pause_requested);
}

function BudgetFields({ budget, onChange }: { budget: Record<string, string>; onChange: (b: Record<string, string>) => void }) {
  return (
    <span className="rn-budget-fields">
      <label>
        Worker-hours
        <input className="input" inputMode="decimal" placeholder="no limit" value={budget.max_worker_hours ?? ""} onChange={(e) => onChange({ ...budget, max_worker_hours: e.target.value })} />
      </label>
      <label>
        Cost
        <input className="input" inputMode="decimal" placeholder="no limit" value={budget.max_cost ?? ""} onChange={(e) => onChange({ ...budget, max_cost: e.target.value })} />
      </label>
    </span>
  );
}

/** Blank means no limit; anything else goes as typed and the server names what is wrong. */
function budgetBody(budget: Record<string, string>): ResumeBody {
  const value = (text: string | undefined) => {
    const trimmed = (text ?? "").trim();
    if (trimmed === "") return null;
    const number = Number(trimmed);
    return Number.isFinite(number) ? number : (trimmed as unknown as number);
  };
  return { budget: { max_worker_hours: value(budget.max_worker_hours), max_cost: value(budget.max_cost) } };
}

function ResumeDialog({ run, onClose }: { run: Run; onClose: () => void }) {
  const resume = useResumeRun(run.id);
  const [budget, setBudget] = useState<Record<string, string>>({
    max_worker_hours: run.budget.max_worker_hours?.toString() ?? "",
    max_cost: run.budget.max_cost?.toString() ?? "",
  });
  const overBudget = isApiError(resume.error) && resume.error.messagesFor("budget").length > 0;
  return (
    <ConfirmDialog
      title={`Resume run #${run.number}?`}
      confirmLabel={resume.isPending ? "Resuming…" : "Resume run"}
      pending={resume.isPending}
      error={resume.error}
      onCancel={onClose}
      onConfirm={() => resume.mutate(budgetBody(budget), { onSuccess: onClose })}
    >
      {run.state === "failed"
        ? "It goes back to the queue; a worker continues it from its last checkpoint."
        : "It goes back to the queue; a worker continues it from the checkpoint it saved when it paused."}
      {(run.budget.max_worker_hours !== null || run.budget.max_cost !== null || overBudget) && (
        <>
          {" "}Its budget (raise it if the run ran out):
          <BudgetFields budget={budget} onChange={setBudget} />
        </>
      )}
    </ConfirmDialog>
  );
}

/** "Pause run" while it trains or waits; "Resume run" once paused or failed (or while pausing). */
export function PauseResumeButton({ run }: { run: Run }) {
  const pause = usePauseRun(run.id);
  const resume = useResumeRun(run.id);
  const [resuming, setResuming] = useState(false);
  if (canResume(run)) {
    const hasBudget = run.budget.max_worker_hours !== null || run.budget.max_cost !== null;
    return (
      <>
        <button
          type="button"
          className="btn btn-primary"
          disabled={resume.isPending}
          onClick={() => (hasBudget || run.state !== "running" ? setResuming(true) : resume.mutate({}))}
        >
          {run.state === "running" ? "Keep training" : "Resume run"}
        </button>
        {resuming && <ResumeDialog run={run} onClose={() => setResuming(false)} />}
      </>
    );
  }
  if (!canPause(run)) return null;
  return (
    <button type="button" className="btn" disabled={pause.isPending} onClick={() => pause.mutate()} title="Stops at the end of the current step with a checkpoint and gives its worker back">
      {pause.isPending ? "Pausing…" : "Pause run"}
    </button>
  );
}

/** Why the run is paused or pausing, where the reader looks first. */
export function PauseNotice({ run }: { run: Run }) {
  if (run.state === "paused") {
    return (
      <div className="alert alert-warning rn-pause" role="status">
        <strong>Paused at step {run.step}.</strong> {run.pause_reason} It holds no worker; resuming continues it from its checkpoint.
      </div>
    );
  }
  if (run.pause_requested && isActive(run)) {
    return (
      <div className="alert alert-warning rn-pause" role="status">
        <strong>Pausing:</strong> the run stops at the end of its current step and saves a checkpoint. {run.pause_reason}
      </div>
    );
  }
  return null;
}
