import "./run-status.css";

const LABELS: Record<string, string> = {
  queued: "Queued",
  running: "Running",
  paused: "Paused",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** A run's state as a coloured badge; a running run's dot pulses, a cancel or a pause asked
 * for says so. */
export function RunStateBadge({
  state,
  cancelRequested = false,
  pauseRequested = false,
}: {
  state: string;
  cancelRequested?: boolean;
  pauseRequested?: boolean;
}) {
  const live = state === "running" || state === "queued";
  const label = cancelRequested && live ? "Cancelling" : pauseRequested && live ? "Pausing" : (LABELS[state] ?? state);
  return (
    <span className={`run-state run-state-${state}`} data-state={state}>
      <span className="run-state-dot" aria-hidden="true" />
      {label}
    </span>
  );
}
