import { Link } from "react-router";

import { formatDateTime, formatRelative } from "@/lib/format";

import type { Family, FamilyKind } from "../api/types";

export function FamiliesTable({ families, kinds }: { families: Family[]; kinds: FamilyKind[] }) {
  const labelOf = (name: string) => kinds.find((k) => k.name === name)?.label ?? name;
  const now = new Date();
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>Latest version</th>
            <th className="num">Tasks</th>
            <th className="num">Train</th>
            <th className="num">Held out</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {families.map((family) => {
            const latest = family.latest_version;
            return (
              <tr key={family.id}>
                <td>
                  <Link to={`/task-families/${family.id}`}>{family.name}</Link>
                  {family.description && <div className="cell-sub">{family.description}</div>}
                </td>
                <td>
                  <span className="badge">{labelOf(family.kind)}</span>
                </td>
                <td>
                  {latest ? (
                    <Link to={`/task-families/${family.id}/versions/${latest.id}`}>
                      v{latest.number} <span className="mono subtle">{latest.content_hash.slice(0, 8)}</span>
                    </Link>
                  ) : (
                    <span className="subtle">No versions</span>
                  )}
                  {family.version_count > 1 && <span className="subtle"> · {family.version_count} in all</span>}
                </td>
                <td className="num">{latest?.task_count ?? "—"}</td>
                <td className="num">{latest?.train_count ?? "—"}</td>
                <td className="num">{latest?.held_out_count ?? "—"}</td>
                <td title={formatDateTime(family.updated_at)}>
                  {formatRelative(latest && latest.created_at > family.updated_at ? latest.created_at : family.updated_at, now)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
