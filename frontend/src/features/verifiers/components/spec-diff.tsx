import { useMemo, useState } from "react";

import { Card } from "@/components/ui/card";

import type { VerifierVersion } from "../api/get-verifiers";
import { foldUnchanged, sideBySide, type FoldedRow } from "../lib/line-diff";

function cellClass(kind: string, side: "left" | "right", text: string | null): string | undefined {
  if (text === null) return "vf-diff-empty";
  if (kind === "same") return undefined;
  if (kind === "changed") return side === "left" ? "vf-diff-removed" : "vf-diff-added";
  return kind === "removed" ? "vf-diff-removed" : "vf-diff-added";
}

function Row({ row }: { row: FoldedRow }) {
  if (row.kind === "fold") {
    return (
      <tr data-diff="fold">
        <td colSpan={2} className="vf-diff-fold">
          ⋯ {row.hidden} unchanged line{row.hidden === 1 ? "" : "s"}
        </td>
      </tr>
    );
  }
  return (
    <tr data-diff={row.kind}>
      <td className={cellClass(row.kind, "left", row.left)}>{row.left ?? ""}</td>
      <td className={cellClass(row.kind, "right", row.right)}>{row.right ?? ""}</td>
    </tr>
  );
}

export function SpecDiff({ left, right }: { left: VerifierVersion; right: VerifierVersion }) {
  const [all, setAll] = useState(false);
  const rows = useMemo(
    () => sideBySide(JSON.stringify(left.spec, null, 2), JSON.stringify(right.spec, null, 2)),
    [left, right],
  );
  const changes = rows.filter((r) => r.kind !== "same").length;
  const shown: FoldedRow[] = all || changes === 0 ? rows : foldUnchanged(rows);
  return (
    <Card
      title={`v${left.number} → v${right.number}`}
      description={
        left.number === right.number
          ? "The same version on both sides; pick another in the A or B column."
          : changes === 0
            ? "The specs are identical."
            : `${changes} line${changes === 1 ? "" : "s"} differ`
      }
      actions={
        changes > 0 && (
          <label className="vf-check">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
            Show unchanged lines
          </label>
        )
      }
    >
      <div className="vf-diff-scroll">
        <table className="vf-diff" aria-label="Spec diff">
          <colgroup>
            <col style={{ width: "50%" }} />
            <col style={{ width: "50%" }} />
          </colgroup>
          <thead>
            <tr>
              <th>
                v{left.number} <span className="mono subtle">{left.spec_hash.slice(0, 12)}</span>
              </th>
              <th>
                v{right.number} <span className="mono subtle">{right.spec_hash.slice(0, 12)}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((row, i) => (
              <Row key={i} row={row} />
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
