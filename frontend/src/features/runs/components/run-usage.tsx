// What the run used and cost (live: the totals come with the run), by family, against its budget.
import { ProgressBar } from "@/components/run-status/progress-bar";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { UsageTable } from "@/components/usage/usage-table";
import { formatCost, formatHours, formatTokens } from "@/lib/usage-format";

import { useRunUsage } from "../api/get-run-usage";
import { isActive, type Run } from "../api/types";

function BudgetLine({ label, used, max, format }: { label: string; used: number; max: number | null; format: (v: number) => string }) {
  if (max === null) return null;
  return (
    <div className="rn-usage-budget">
      <span>{label}</span>
      <ProgressBar value={Math.round(used * 1000) / 1000} max={max} label={`${label} used`} state={used >= max ? "failed" : undefined} showText={false} />
      <span className="subtle">
        {format(used)} of {format(max)}
      </span>
    </div>
  );
}

export function RunUsage({ run }: { run: Run }) {
  const usage = useRunUsage(run.id, isActive(run));
  const currency = usage.data?.currency ?? "";
  const hours = run.worker_seconds / 3600;
  return (
    <Card title="Usage and budget" description="Worker time (times the run's processes), tokens and cost at the queues' rates, over every attempt.">
      <dl className="rn-stats rn-usage" data-testid="run-usage">
        <div className="rn-stat">
          <dt>Worker time</dt>
          <dd>{formatHours(hours)}</dd>
        </div>
        <div className="rn-stat">
          <dt>Generated tokens</dt>
          <dd>{formatTokens(run.generated_tokens)}</dd>
        </div>
        <div className="rn-stat">
          <dt>Judge tokens</dt>
          <dd>{formatTokens(run.judge_tokens)}</dd>
        </div>
        <div className="rn-stat">
          <dt>Cost</dt>
          <dd>{formatCost(run.cost, currency)}</dd>
        </div>
      </dl>
      <div className="card-body stack">
        <BudgetLine label="Worker-hours" used={hours} max={run.budget.max_worker_hours} format={(v) => formatHours(v)} />
        <BudgetLine label="Cost" used={run.cost} max={run.budget.max_cost} format={(v) => formatCost(v, currency)} />
        {run.budget.max_worker_hours === null && run.budget.max_cost === null && <span className="subtle">No budget: the run may use what it needs.</span>}
        <QueryPlaceholder query={usage} />
        {usage.data && usage.data.by_family.length > 0 && (
          <UsageTable title="Usage by family" label="Family" rows={usage.data.by_family} currency={currency} />
        )}
      </div>
    </Card>
  );
}
