// The deployment's request log, newest first, read again every 2 s.
import { QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";

import { useServedRequests, type RequestFilter } from "../api/requests";
import { formatMs, truncate, verdict } from "../lib/format";
import { SourceBadge } from "./verdict-sources";

const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

function Verdict({ passed }: { passed: boolean | null }) {
  const { mark, words } = verdict(passed);
  const tone = passed === true ? "dp-pass" : passed === false ? "dp-fail" : "subtle";
  return (
    <span className={tone}>
      {mark} {words}
    </span>
  );
}

export function RecentRequests({ slug, filter, label = "Recent requests" }: { slug: string; filter?: RequestFilter; label?: string }) {
  const requests = useServedRequests(slug, filter);
  const rows = requests.data?.results ?? [];
  return (
    <>
      <QueryPlaceholder query={requests} />
      {requests.data && !rows.length && <EmptyState title="No requests yet">Answers appear here as they are served.</EmptyState>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label={label}>
            <thead>
              <tr>
                <th>Time</th>
                <th>Side</th>
                <th>Status</th>
                <th>Verdict</th>
                <th>Latency</th>
                <th>Output tokens</th>
                <th>Completion</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td title={r.created_at}>{time.format(new Date(r.created_at))}</td>
                  <td>
                    {r.side}
                    {r.shadow && <span className="badge badge-muted dp-shadow">shadow</span>}
                    {r.version && <div className="subtle">{r.version.label}</div>}
                  </td>
                  <td>
                    <span className={`badge ${r.status === "ok" ? "badge-success" : "badge-danger"}`}>{r.status}</span>
                    {r.error && <div className="subtle">{truncate(r.error, 60)}</div>}
                  </td>
                  <td>
                    <Verdict passed={r.passed} />
                    {r.passed !== null && r.judged_against && (
                      <div>
                        <SourceBadge source={r.judged_against} />
                      </div>
                    )}
                    {r.family && <div className="subtle">{r.family}</div>}
                  </td>
                  <td>{formatMs(r.latency_ms)}</td>
                  <td>{r.output_tokens ?? "—"}</td>
                  <td className="dp-completion-cell" title={r.completion}>
                    {truncate(r.completion, 60) || "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
