import "./run-status.css";

const LABELS: Record<string, string> = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** A run's state as a coloured badge; a running run's dot pulses, a cancel asked for says so. */
export function RunStateBadge({ state, cancelRequested = false }: { state: string; cancelRequested?: boolean }) {
  const stopping = cancelRequested && (state === "running" || state === "queued");
  return (
    <span className={`run-state run-state-${state}`} data-state={state}>
      <span className="run-state-dot" aria-hidden="true" />
      {stopping ? "Cancelling" : (LABELS[state] ?? state)}
    </span>
  );
}
