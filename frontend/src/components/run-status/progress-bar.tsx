import "./run-status.css";

/** Steps done out of the total, as a bar and "37 / 100" ("step 37" when the total is unknown:
 * an outside run's trainer may not say it). */
export function ProgressBar({
  value,
  max,
  label,
  state,
  showText = true,
}: {
  value: number;
  max: number;
  /** What the bar measures, for screen readers ("Run 3 progress"). */
  label: string;
  /** Colours the bar by the run's state. */
  state?: string;
  showText?: boolean;
}) {
  const share = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
  const percent = Math.round(share * 100);
  return (
    <span className="progress">
      <span
        className="progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={value}
        aria-valuetext={max > 0 ? `step ${value} of ${max}` : `step ${value}`}
        data-state={state}
      >
        <span className="progress-fill" style={{ width: `${percent}%` }} />
      </span>
      {showText && (
        <span className="progress-text">
          {max > 0 ? `${value} / ${max}` : `step ${value}`}
        </span>
      )}
    </span>
  );
}
