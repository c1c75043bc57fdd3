import { useLiveStatus } from "@/lib/live";

const LABELS = { live: "Live", connecting: "Connecting", offline: "Offline" } as const;
const HINTS = {
  live: "Receiving live updates",
  connecting: "Connecting to live updates",
  offline: "Live updates unavailable; reconnecting",
} as const;

export function LiveIndicator() {
  const status = useLiveStatus();
  return (
    <span className="live-indicator" title={HINTS[status]} data-status={status} aria-live="polite">
      <span className={`dot dot-${status}`} aria-hidden="true" />
      {LABELS[status]}
    </span>
  );
}
