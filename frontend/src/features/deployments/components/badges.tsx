// A deployment's status and a canary's state as badges, in words.
import { canaryTone, stateWords, statusTone } from "../lib/format";

export function DeploymentStatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`badge badge-${statusTone(status)}`} data-status={status} aria-label={label}>
      {status}
    </span>
  );
}

export function CanaryStateBadge({ state, label }: { state: string; label?: string }) {
  return (
    <span className={`badge badge-${canaryTone(state)}`} data-state={state} aria-label={label}>
      {stateWords(state)}
    </span>
  );
}
