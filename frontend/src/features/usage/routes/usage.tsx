// Usage and cost of the current team: worker time (GPU, CPU and serve queues: training,
// evaluation, pre-flight, grading and serving replicas), generated and judge tokens, and cost at the rates an admin set, for a month, by queue, kind, family and run;
// and the team's quotas (runs at once, worker-hours this month), enforced at launch.
import { useState } from "react";
import { Link } from "react-router";

import { ProgressBar } from "@/components/run-status/progress-bar";
import { RunStateBadge } from "@/components/run-status/run-state-badge";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { UsageTable } from "@/components/usage/usage-table";
import { useCurrentTeam } from "@/lib/current-team";
import { formatCost, formatHours, formatTokens } from "@/lib/usage-format";

import { useTeamUsage, type TeamUsage } from "../api/get-team-usage";
import "../usage.css";

type Row = TeamUsage["by_queue"][number];

export function thisMonth(now: Date = new Date()): string {
  return now.toISOString().slice(0, 7);
}

function hours(seconds: number): string {
  return formatHours(seconds / 3600);
}

/** A kind's name as the API gives it (Training, Evaluation, Pre-flight, Serving replica hours...). */
function kindName(usage: TeamUsage): (key: string) => string {
  const labels = new Map(usage.by_kind.map((row) => [row.key, row.label]));
  return (key) => labels.get(key) ?? key;
}

function Totals({ usage }: { usage: TeamUsage }) {
  const t = usage.totals;
  return (
    <dl className="us-totals" aria-label="Totals">
      <div>
        <dt>Worker time</dt>
        <dd>{hours(t.worker_seconds)}</dd>
      </div>
      <div>
        <dt>Generated tokens</dt>
        <dd>{formatTokens(t.generated_tokens)}</dd>
      </div>
      <div>
        <dt>Judge tokens</dt>
        <dd>{formatTokens(t.judge_tokens)}</dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{formatCost(t.cost, usage.currency)}</dd>
      </div>
    </dl>
  );
}

function Quota({ usage }: { usage: TeamUsage }) {
  const q = usage.quota;
  return (
    <Card title="Quota" description="Set by an admin; a launch or resume beyond it is refused with the reason.">
      <div className="card-body stack">
        <div className="us-quota">
          <span>Runs queued or running</span>
          {q.max_concurrent_runs === null ? (
            <span className="subtle">{q.active_runs} now · no limit</span>
          ) : (
            <ProgressBar value={q.active_runs} max={q.max_concurrent_runs} label="Runs at once" state={q.active_runs >= q.max_concurrent_runs ? "failed" : undefined} />
          )}
        </div>
        <div className="us-quota">
          <span>Worker-hours this month</span>
          {q.max_worker_hours_per_month === null ? (
            <span className="subtle">{hours(q.used_worker_hours * 3600)} used · no limit</span>
          ) : (
            <>
              <ProgressBar
                value={Math.round(q.used_worker_hours * 100) / 100}
                max={q.max_worker_hours_per_month}
                label="Worker-hours this month"
                state={q.used_worker_hours >= q.max_worker_hours_per_month ? "failed" : undefined}
                showText={false}
              />
              <span className="subtle">
                {hours(q.used_worker_hours * 3600)} of {q.max_worker_hours_per_month} h
              </span>
            </>
          )}
        </div>
      </div>
    </Card>
  );
}

function Breakdown({ title, label, rows, currency, name }: { title: string; label: string; rows: Row[]; currency: string; name?: (key: string) => string }) {
  return (
    <Card title={title}>
      {rows.length === 0 ? <div className="card-body subtle">Nothing used this month.</div> : <UsageTable title={title} label={label} rows={rows} currency={currency} name={name} />}
    </Card>
  );
}

function Runs({ usage }: { usage: TeamUsage }) {
  return (
    <Card title="By run" description="The month's share of each run, costliest first.">
      {usage.by_run.length === 0 ? (
        <div className="card-body subtle">No run used anything this month.</div>
      ) : (
        <table className="table" aria-label="By run">
          <thead>
            <tr>
              <th>Run</th>
              <th>State</th>
              <th>Worker time</th>
              <th>Generated tokens</th>
              <th>Cost</th>
            </tr>
          </thead>
          <tbody>
            {usage.by_run.map((row) => (
              <tr key={row.run}>
                <td>
                  <Link to={`/runs/${row.run}`}>
                    {row.experiment_name} #{row.number}
                  </Link>
                </td>
                <td>
                  <RunStateBadge state={row.state} />
                </td>
                <td>{hours(row.worker_seconds)}</td>
                <td>{formatTokens(row.generated_tokens)}</td>
                <td>{formatCost(row.cost, usage.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function Rates({ usage }: { usage: TeamUsage }) {
  return (
    <Card title="Rates" description="Per queue, set by an admin in the admin site; usage is priced at the rate in force when it was used.">
      <table className="table" aria-label="Rates">
        <thead>
          <tr>
            <th>Queue</th>
            <th>Per worker-hour</th>
            <th>Per million generated tokens</th>
            <th>Per million judge tokens</th>
          </tr>
        </thead>
        <tbody>
          {usage.rates.map((r) => (
            <tr key={r.queue}>
              <td className="mono">{r.queue}</td>
              <td>{formatCost(r.per_worker_hour, r.currency)}</td>
              <td>{formatCost(r.per_million_generated_tokens, r.currency)}</td>
              <td>{formatCost(r.per_million_judge_tokens, r.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}

export function UsageRoute() {
  const { team } = useCurrentTeam();
  const [month, setMonth] = useState(thisMonth);
  const usage = useTeamUsage(team?.slug, month);
  return (
    <>
      <PageHeader
        title="Usage and cost"
        description={`What ${team ? team.name : "your team"}'s runs and jobs used: worker time on the GPU, CPU and serving queues, tokens, and cost at the queues' rates.`}
        actions={
          <label className="us-month">
            Month
            <input type="month" className="input" value={month} max={thisMonth()} onChange={(e) => e.target.value && setMonth(e.target.value)} />
          </label>
        }
      />
      <div className="stack">
        <QueryPlaceholder query={usage} />
        {usage.data && (
          <>
            <Totals usage={usage.data} />
            <Quota usage={usage.data} />
            <div className="us-grid">
              <Breakdown title="By queue" label="Queue" rows={usage.data.by_queue} currency={usage.data.currency} />
              <Breakdown title="By kind of work" label="Kind" rows={usage.data.by_kind} currency={usage.data.currency} name={kindName(usage.data)} />
            </div>
            <Breakdown title="By family" label="Family" rows={usage.data.by_family} currency={usage.data.currency} name={(k) => k || "(not split by family)"} />
            <Runs usage={usage.data} />
            <Rates usage={usage.data} />
          </>
        )}
      </div>
    </>
  );
}
