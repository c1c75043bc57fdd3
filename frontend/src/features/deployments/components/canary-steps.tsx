// The canary's steps as a row of shares: passed ones (ticked), the current one
// (aria-current="step"), those to come. Each item's text is its share alone.
import { formatShare, stepShares, stepStatuses } from "../lib/format";

const STATUS_WORDS = { passed: "passed", current: "current", upcoming: "to come" } as const;

export function CanarySteps({ steps, step, state }: { steps: unknown; step: number; state: string }) {
  const shares = stepShares(steps);
  const statuses = stepStatuses(shares, step, state);
  return (
    <ol className="dp-steps" aria-label="Steps">
      {shares.map((share, i) => {
        const status = statuses[i]!;
        return (
          <li
            key={`${i}-${share}`}
            className="dp-step"
            data-status={status}
            data-passed={status === "passed" ? "true" : undefined}
            aria-current={status === "current" ? "step" : undefined}
            title={`Step ${i + 1}: ${STATUS_WORDS[status]}`}
          >
            {formatShare(share)}
          </li>
        );
      })}
    </ol>
  );
}
