import { useEffect, useRef } from "react";

import { EmptyState } from "@/components/ui/empty-state";

import { isActive, type Run } from "../api/types";

/** The last lines of the run's log, kept on the run and refreshed while it trains. */
export function RunLogs({ run }: { run: Run }) {
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    // New lines arrive at the bottom: follow them, as a terminal would.
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [run.log_tail]);
  if (!run.log_tail) {
    return (
      <EmptyState title="No log lines yet" icon="reports">
        {isActive(run) ? "The worker writes here as soon as it picks the run up." : "This run logged nothing."}
      </EmptyState>
    );
  }
  return (
    <div className="card">
      <div className="card-header">
        <div>
          <h2>Log</h2>
          <div className="card-description">
            The last lines of the run's log{isActive(run) ? ", refreshed every few seconds" : ""}.
          </div>
        </div>
      </div>
      <pre className="rn-log" ref={ref} aria-label="Run log">
        {run.log_tail}
      </pre>
    </div>
  );
}
