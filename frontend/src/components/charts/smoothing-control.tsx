import { useId } from "react";

import "./charts.css";

/** Per-step metrics of RL are noisy: a moving average shows the trend over the raw line. */
export const DEFAULT_SMOOTHING = 0.6;

export function SmoothingControl({ value, onChange }: { value: number; onChange: (value: number) => void }) {
  const id = useId();
  return (
    <span className="smoothing" title="Exponential moving average of each line; the raw values stay drawn faintly behind it">
      <label htmlFor={id}>Smoothing</label>
      <input id={id} type="range" min={0} max={0.99} step={0.01} value={value} onChange={(e) => onChange(Number(e.target.value))} />
      <span className="smoothing-value">{value.toFixed(2)}</span>
    </span>
  );
}
