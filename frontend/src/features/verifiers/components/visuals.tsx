// Small verifier-specific visuals: stage chips, pass/fail icons, score bars, percentages.
import type { Stage } from "../types";

export function StageChip({ stage }: { stage: Stage | string }) {
  return <span className={`vf-stage-chip vf-stage-${stage}`}>{stage}</span>;
}

export function StatusIcon({ passed, skipped }: { passed: boolean; skipped?: boolean }) {
  if (skipped) {
    return (
      <span className="vf-status-icon vf-status-skip" role="img" aria-label="skipped" title="skipped">
        –
      </span>
    );
  }
  return passed ? (
    <span className="vf-status-icon vf-status-pass" role="img" aria-label="passed" title="passed">
      ✓
    </span>
  ) : (
    <span className="vf-status-icon vf-status-fail" role="img" aria-label="failed" title="failed">
      ✕
    </span>
  );
}

/** A 0–1 score as a bar and a number. */
export function ScoreBar({ value, label }: { value: number; label?: string }) {
  const clamped = Math.max(0, Math.min(1, value));
  const tone = clamped < 0.5 ? " is-low" : clamped < 1 ? " is-mid" : "";
  return (
    <span className="row" style={{ gap: 6 }}>
      <span
        className={`vf-bar${tone}`}
        role="meter"
        aria-label={label ?? "score"}
        aria-valuemin={0}
        aria-valuemax={1}
        aria-valuenow={clamped}
      >
        <span style={{ width: `${clamped * 100}%` }} />
      </span>
      <span className="mono">{value.toFixed(2)}</span>
    </span>
  );
}

export function ErrorTypeChip({ type }: { type: string }) {
  if (!type || type === "none") return <span className="subtle">—</span>;
  return <span className="vf-chip vf-chip-danger">{type}</span>;
}

export function BiasedBadge() {
  return (
    <span
      className="badge badge-warning"
      title="A model judge is biased: it can reward fluent wrong answers. Keep its weight small and watch its FP rate."
    >
      biased
    </span>
  );
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : `${(value * 100).toFixed(1)}%`;
}

/** A judge threshold, short enough for a note; the spec keeps the exact value. */
export function formatThreshold(threshold: number): string {
  return String(Number(threshold.toFixed(3)));
}

export function milliseconds(seconds: number): string {
  const ms = seconds * 1000;
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`;
}
