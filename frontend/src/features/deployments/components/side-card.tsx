// One side of the canary (production or the candidate): what it served and how well.
import type { SideStats, VersionLabel } from "../api/types";
import { formatMs, formatNumber, formatRate } from "../lib/format";

export function SideCard({
  title,
  version,
  stats,
  color,
  dropped,
}: {
  title: "Production" | "Candidate";
  version: VersionLabel | null;
  stats: SideStats | undefined;
  color: string;
  /** Shadow copies this side refused with a full queue: answers its figures lack. */
  dropped?: number;
}) {
  return (
    <section className="dp-side" aria-label={title}>
      <h3>
        <span className="dp-side-mark" style={{ background: color }} aria-hidden="true" />
        {title}
      </h3>
      <div className="subtle">{version?.label ?? "—"}</div>
      <dl className="dp-stats">
        <dt>Requests</dt>
        <dd>{stats?.requests ?? 0}</dd>
        <dt>Verified</dt>
        <dd>{stats?.verified ?? 0}</dd>
        <dt>Passed</dt>
        <dd>{stats?.passed ?? 0}</dd>
        <dt>Pass rate</dt>
        <dd>{formatRate(stats?.pass_rate, 1)}</dd>
        <dt>Errors</dt>
        <dd>{stats?.errors ?? 0}</dd>
        <dt>p95 latency</dt>
        <dd>{formatMs(stats?.latency_p95_ms)}</dd>
        <dt>Mean output tokens</dt>
        <dd>{formatNumber(stats?.mean_output_tokens)}</dd>
        {dropped !== undefined && (
          <>
            <dt title="Copies refused because the candidate's queue was full: busy moments are under-represented on this side">
              Copies dropped (queue full)
            </dt>
            <dd className={dropped > 0 ? "dp-warn" : undefined}>{dropped}</dd>
          </>
        )}
      </dl>
    </section>
  );
}
