// Usage rows (worker time, tokens, cost) as a table: a run's by family, a team's by queue,
// kind or family.
import { formatCost, formatHours, formatTokens } from "@/lib/usage-format";

export type UsageRow = { key: string; worker_seconds: number; generated_tokens: number; judge_tokens: number; cost: number };

export function UsageTable({ title, label, rows, currency, name = (key) => key || "—" }: { title: string; label: string; rows: UsageRow[]; currency: string; name?: (key: string) => string }) {
  return (
    <table className="table" aria-label={title}>
      <thead>
        <tr>
          <th>{label}</th>
          <th>Worker time</th>
          <th>Generated tokens</th>
          <th>Judge tokens</th>
          <th>Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            <td className="mono">{name(row.key)}</td>
            <td>{formatHours(row.worker_seconds / 3600)}</td>
            <td>{formatTokens(row.generated_tokens)}</td>
            <td>{formatTokens(row.judge_tokens)}</td>
            <td>{formatCost(row.cost, currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
