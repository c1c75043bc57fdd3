import { useState } from "react";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useVersions } from "../api/get-versions";
import type { VerifierVersion } from "../api/get-verifiers";
import { SpecDiff } from "./spec-diff";

function VersionsTable({
  versions,
  left,
  right,
  onLeft,
  onRight,
}: {
  versions: VerifierVersion[];
  left: number;
  right: number;
  onLeft: (n: number) => void;
  onRight: (n: number) => void;
}) {
  const now = new Date();
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Versions">
        <thead>
          <tr>
            <th title="left side of the comparison">A</th>
            <th title="right side of the comparison">B</th>
            <th>Version</th>
            <th>Hash</th>
            <th>Note</th>
            <th>Author</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.number}>
              <td>
                <input
                  type="radio"
                  className="vf-radio"
                  name="diff-left"
                  aria-label={`Compare from version ${v.number}`}
                  checked={left === v.number}
                  onChange={() => onLeft(v.number)}
                />
              </td>
              <td>
                <input
                  type="radio"
                  className="vf-radio"
                  name="diff-right"
                  aria-label={`Compare to version ${v.number}`}
                  checked={right === v.number}
                  onChange={() => onRight(v.number)}
                />
              </td>
              <td>
                <strong>v{v.number}</strong>
              </td>
              <td className="mono" title={v.spec_hash}>
                {v.spec_hash.slice(0, 12)}
              </td>
              <td style={{ whiteSpace: "normal" }}>{v.note || <span className="subtle">—</span>}</td>
              <td>{v.created_by}</td>
              <td title={formatDateTime(v.created_at)}>{formatRelative(v.created_at, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function VersionsPanel({ verifierId }: { verifierId: number }) {
  const versions = useVersions(verifierId);
  const list = versions.data ?? [];
  const [picked, setPicked] = useState<{ left: number | null; right: number | null }>({ left: null, right: null });
  // By default: the previous version against the latest.
  const right = picked.right ?? list[0]?.number ?? 0;
  const left = picked.left ?? list[1]?.number ?? right;
  const a = list.find((v) => v.number === left);
  const b = list.find((v) => v.number === right);

  return (
    <div className="stack">
      <Card title={`Versions (${list.length})`} description="Immutable: an experiment pins one by number and hash.">
        <QueryPlaceholder query={versions} />
        {versions.data && list.length === 0 && (
          <div className="card-body">
            <EmptyState title="No versions yet" icon="verifiers">
              Save the builder&apos;s spec to create version 1.
            </EmptyState>
          </div>
        )}
        {list.length > 0 && (
          <VersionsTable
            versions={list}
            left={left}
            right={right}
            onLeft={(n) => setPicked((p) => ({ ...p, left: n }))}
            onRight={(n) => setPicked((p) => ({ ...p, right: n }))}
          />
        )}
      </Card>
      {a && b && <SpecDiff left={a} right={b} />}
    </div>
  );
}
