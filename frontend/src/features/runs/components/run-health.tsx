// The run's reward-hacking and drift signals as last checked, live with the run's frame.
import { Link } from "react-router";

import type { Run } from "../api/types";
import "./run-health.css";

type Signal = Run["health"]["signals"][number];

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

/** Breached and warning signals first; "not checked" ones last. */
const ORDER: Record<Signal["state"], number> = { breached: 0, warning: 1, ok: 2, unavailable: 3 };

export function RunHealth({ run }: { run: Run }) {
  const { step, signals } = run.health;
  if (step === null) {
    return (
      <section className="card rn-health" aria-label="Run health">
        <h3>Health signals</h3>
        <p className="subtle">Not checked yet: the signals are checked every few steps while the run trains.</p>
      </section>
    );
  }
  const shown = [...signals].sort((a, b) => ORDER[a.state] - ORDER[b.state]);
  const breached = signals.filter((s) => s.state === "breached").length;
  return (
    <section className="card rn-health" aria-label="Run health">
      <h3>
        Health signals <span className="subtle">at step {step}</span>
      </h3>
      <p className="subtle">
        {breached ? `${breached} breached.` : "Nothing breached."} Thresholds are the team's
        (PUT /api/v1/teams/&lt;team&gt;/health-thresholds/).
      </p>
      <ul className="rn-health-list">
        {shown.map((s) => (
          <SignalRow key={s.name} runId={run.id} signal={s} />
        ))}
      </ul>
    </section>
  );
}
