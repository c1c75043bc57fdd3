// What a person can do with a canary: decide one awaiting a decision (proceed to the next
// step or promote, extend the step, roll back), pause a running one, resume a paused one.
import { useId, useState } from "react";

import { ErrorMessage } from "@/components/ui/error-message";

import { useDecideCanary, usePauseCanary, useResumeCanary } from "../api/canaries";
import type { Canary, CanaryDecision } from "../api/types";
import { stepShares } from "../lib/format";

export function CanaryControls({ canary }: { canary: Canary }) {
  const id = useId();
  const decide = useDecideCanary(canary.id);
  const pause = usePauseCanary(canary.id);
  const resume = useResumeCanary(canary.id);
  const [reason, setReason] = useState("");
  const pending = decide.isPending || pause.isPending || resume.isPending;
  const error = decide.error ?? pause.error ?? resume.error;
  const last = canary.step >= stepShares(canary.steps).length - 1;
  const waiting = canary.state === "awaiting_decision";

  function send(decision: CanaryDecision) {
    decide.mutate({ decision, ...(reason.trim() ? { reason: reason.trim() } : {}) }, { onSuccess: () => setReason("") });
  }

  if (!waiting && canary.state !== "running" && canary.state !== "paused") return null;
  return (
    <div className="stack" role="group" aria-label="Canary controls">
      {waiting && (
        <>
          <p>
            The analysis could not decide this step on its own.{" "}
            {last ? "Proceeding promotes the candidate." : "Proceeding moves to the next step."}
          </p>
          <div className="field">
            <label htmlFor={`${id}-reason`}>Reason</label>
            <textarea
              id={`${id}-reason`}
              className="dp-textarea"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              placeholder="Why, for the canary's history (optional)"
            />
          </div>
        </>
      )}
      <div className="row">
        {waiting && (
          <>
            <button type="button" className="btn btn-primary" disabled={pending} onClick={() => send("proceed")}>
              Proceed
            </button>
            <button type="button" className="btn" disabled={pending} onClick={() => send("extend")}>
              Extend step
            </button>
            <button type="button" className="btn btn-danger" disabled={pending} onClick={() => send("rollback")}>
              Roll back
            </button>
          </>
        )}
        {canary.state === "running" && (
          <button type="button" className="btn" disabled={pending} onClick={() => pause.mutate({})}>
            Pause
          </button>
        )}
        {canary.state === "paused" && (
          <button type="button" className="btn btn-primary" disabled={pending} onClick={() => resume.mutate(undefined)}>
            Resume
          </button>
        )}
      </div>
      {error && <ErrorMessage error={error} />}
    </div>
  );
}
