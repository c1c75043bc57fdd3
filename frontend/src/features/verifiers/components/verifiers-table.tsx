import { Link } from "react-router";

import { formatDateTime, formatRelative } from "@/lib/format";

import type { Verifier } from "../api/get-verifiers";

export function VerifiersTable({ verifiers }: { verifiers: Verifier[] }) {
  const now = new Date();
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>Latest version</th>
            <th className="vf-num">Layers</th>
            <th className="vf-num">Examples</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {verifiers.map((verifier) => {
            const latest = verifier.latest_version;
            const spec = latest?.spec as { layers?: unknown[] } | undefined;
            const updated = latest?.created_at ?? verifier.updated_at;
            return (
              <tr key={verifier.id}>
                <td>
                  <Link to={`/verifiers/${verifier.id}`}>{verifier.name}</Link>
                  {verifier.description && <div className="subtle">{verifier.description}</div>}
                </td>
                <td>{verifier.family_kind ? <span className="vf-chip">{verifier.family_kind}</span> : <span className="subtle">custom</span>}</td>
                <td>
                  {latest ? (
                    <>
                      v{latest.number}{" "}
                      <span className="mono subtle" title={latest.spec_hash}>
                        {latest.spec_hash.slice(0, 8)}
                      </span>
                    </>
                  ) : (
                    <span className="subtle">no version yet</span>
                  )}
                </td>
                <td className="vf-num">{spec?.layers?.length ?? "—"}</td>
                <td className="vf-num">{verifier.example_count}</td>
                <td title={formatDateTime(updated)}>{formatRelative(updated, now)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
