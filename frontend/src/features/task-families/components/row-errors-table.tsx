import type { ApiErrorItem } from "@/lib/api-client";

export type RowError = { row: number | null; column: string; reason: string };

const ROW_FIELD = /^rows\[(\d+)\](?:\.(.+))?$/;

/** Splits an upload rejection into its summary and one entry per bad row and column. */
export function rowErrors(errors: ApiErrorItem[]): { summary: string[]; rows: RowError[] } {
  const summary: string[] = [];
  const rows: RowError[] = [];
  for (const e of errors) {
    const match = e.field ? ROW_FIELD.exec(e.field) : null;
    if (match) {
      const column = match[2] ?? "";
      rows.push({ row: Number(match[1]), column: column === "_row" ? "" : column, reason: e.message });
    } else {
      summary.push(e.message);
    }
  }
  return { summary, rows };
}

export function RowErrorsTable({ rows }: { rows: RowError[] }) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Rejected rows">
        <thead>
          <tr>
            <th className="num">Row</th>
            <th>Column</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td className="num">{r.row ?? "—"}</td>
              <td className="mono">{r.column || <span className="subtle">whole row</span>}</td>
              <td style={{ whiteSpace: "normal" }}>{r.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
