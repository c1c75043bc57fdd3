// The run's reward-hacking and drift signals as last checked, live with the run's frame.
import { HealthSignalList } from "@/components/health/health-signals";

import type { Run } from "../api/types";

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
      <HealthSignalList runId={run.id} signals={signals} />
    </section>
  );
}
