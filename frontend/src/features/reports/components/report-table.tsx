import { Link } from "react-router";

import { formatDateTime } from "@/lib/format";

import type { ReportListItem } from "../api/reports";

const STATE_LABEL = { draft: "Draft", in_review: "In review", approved: "Approved", changes_requested: "Changes requested" };

/** Reports as rows: each one's lineage links to its page. */
export function ReportTable({ rows }: { rows: ReportListItem[] }) {
  return (
    <table className="table" aria-label="Reports">
      <thead>
        <tr><th>Report</th><th>Version</th><th>Headline</th><th>State</th><th>Created</th></tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td><Link to={`/reports/${r.id}`}>{r.lineage}</Link></td>
            <td>v{r.version}</td>
            <td>{r.headline}</td>
            <td><span className={`rp-state rp-state-${r.state}`}>{STATE_LABEL[r.state]}</span></td>
            <td>{formatDateTime(r.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
