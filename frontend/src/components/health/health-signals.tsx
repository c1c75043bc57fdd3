// Reward-hacking and drift signals as a list, breached first: on a run's page (live with its
// frame) and in a report (frozen with its figures).
import { Link } from "react-router";

import type { components } from "@/api/schema";
import "./health-signals.css";

export type Signal = components["schemas"]["Signal"];

const BADGES: Record<Signal["state"], string> = {
  ok: "badge badge-success",
  warning: "badge badge-accent",
  breached: "badge badge-danger",
  unavailable: "badge",
};

const STATE_WORDS: Record<Signal["state"], string> = {
  ok: "OK",
  warning: "Warning",
  breached: "Breached",
  unavailable: "Unavailable",
};

/** Breached and warning signals first; "not checked" ones last. */
const ORDER: Record<Signal["state"], number> = { breached: 0, warning: 1, ok: 2, unavailable: 3 };

function SignalRow({ runId, signal }: { runId: number; signal: Signal }) {
  return (
    <li className="rn-health-signal" data-state={signal.state}>
      <span className={BADGES[signal.state]}>{STATE_WORDS[signal.state]}</span>{" "}
      <strong>{signal.label}</strong>
      {signal.pause_on_breach && <span className="subtle"> · pauses the run</span>}
      <div className="subtle">
        {signal.sentence}
        {signal.since_step !== null && (
          <>
            {" "}
            (<Link to={`/runs/${runId}/rollouts?step=${signal.since_step}`}>since step {signal.since_step}</Link>)
          </>
        )}
      </div>
    </li>
  );
}

export function HealthSignalList({ runId, signals }: { runId: number; signals: Signal[] }) {
  const shown = [...signals].sort((a, b) => ORDER[a.state] - ORDER[b.state]);
  return (
    <ul className="rn-health-list">
      {shown.map((s) => (
        <SignalRow key={s.name} runId={runId} signal={s} />
      ))}
    </ul>
  );
}
