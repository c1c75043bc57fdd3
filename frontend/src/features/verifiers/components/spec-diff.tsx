import { useMemo } from "react";

import { Card } from "@/components/ui/card";

import type { VerifierVersion } from "../api/get-verifiers";
import { sideBySide } from "../lib/line-diff";

function cellClass(kind: string, side: "left" | "right", text: string | null): string | undefined {
  if (text === null) return "vf-diff-empty";
  if (kind === "same") return undefined;
  if (kind === "changed") return side === "left" ? "vf-diff-removed" : "vf-diff-added";
  return kind === "removed" ? "vf-diff-removed" : "vf-diff-added";
}

export function SpecDiff({ left, right }: { left: VerifierVersion; right: VerifierVersion }) {
  const rows = useMemo(
    () => sideBySide(JSON.stringify(left.spec, null, 2), JSON.stringify(right.spec, null, 2)),
    [left, right],
  );
  const changes = rows.filter((r) => r.kind !== "same").length;
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
    >
      <div className="vf-diff-scroll">
        <table className="vf-diff" aria-label="Spec diff">
          <colgroup>
            <col style={{ width: "50%" }} />
            <col style={{ width: "50%" }} />
          </colgroup>
          <thead className="visually-hidden">
            <tr>
              <th>v{left.number}</th>
              <th>v{right.number}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i} data-diff={row.kind}>
                <td className={cellClass(row.kind, "left", row.left)}>{row.left ?? ""}</td>
                <td className={cellClass(row.kind, "right", row.right)}>{row.right ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
