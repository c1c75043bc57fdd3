import type { DedupReport } from "../api/types";

/** The row a dropped row repeats; a negative number is a task of the version it was added to. */
function duplicateOf(row: number) {
  return row < 0 ? <span className="subtle">a task already in the pool</span> : row;
}

/** The rows de-duplication dropped, each with the row it duplicated. */
export function DedupRemovedTable({ dedup }: { dedup: DedupReport }) {
  const removed = dedup.removed ?? [];
  const total = (dedup.exact_duplicates ?? 0) + (dedup.near_duplicates ?? 0);
  if (removed.length === 0) {
    return <p className="card-body subtle">No duplicates: every row read was kept.</p>;
  }
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Removed duplicate rows">
        <thead>
          <tr>
            <th className="num">Row</th>
            <th className="num">Duplicate of row</th>
            <th>Kind</th>
            <th className="num">Similarity</th>
          </tr>
        </thead>
        <tbody>
          {removed.map((r) => (
            <tr key={`${r.row}-${r.duplicate_of}`}>
              <td className="num">{r.row}</td>
              <td className="num">{duplicateOf(r.duplicate_of)}</td>
              <td>
                <span className={r.kind === "exact" ? "badge" : "badge badge-accent"}>{r.kind}</span>
              </td>
              <td className="num">{r.similarity.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {total > removed.length && (
        <p className="tf-pager">
          Showing the first {removed.length} of {total} removed rows.
        </p>
      )}
    </div>
  );
}
