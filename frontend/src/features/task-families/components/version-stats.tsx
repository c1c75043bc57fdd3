import type { ReactNode } from "react";

import type { DedupReport } from "../api/types";

function Stat({ label, value, sub }: { label: string; value: ReactNode; sub?: ReactNode }) {
  return (
    <div className="tf-stat">
      <dt>{label}</dt>
      <dd>
        {value} {sub && <span className="tf-stat-sub">{sub}</span>}
      </dd>
    </div>
  );
}

function share(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : "";
}

/** Counts of a pool (saved or previewed): tasks, the split, and what de-duplication removed. */
export function VersionStats({
  taskCount,
  trainCount,
  heldOutCount,
  dedup,
}: {
  taskCount: number;
  trainCount: number;
  heldOutCount: number;
  dedup: DedupReport;
}) {
  const exact = dedup.exact_duplicates ?? 0;
  const near = dedup.near_duplicates ?? 0;
  const kept = dedup.kept ?? taskCount;
  // An upload appended to a version holds that version's tasks besides the rows it kept.
  const rows = !dedup.total ? undefined : kept < taskCount ? `${kept} new of ${dedup.total} rows` : `of ${dedup.total} rows`;
  return (
    <dl className="tf-stats" style={{ margin: 0 }}>
      <Stat label="Tasks" value={taskCount} sub={rows} />
      <Stat label="Train" value={trainCount} sub={share(trainCount, taskCount)} />
      <Stat label="Held out" value={heldOutCount} sub={share(heldOutCount, taskCount)} />
      <Stat label="Duplicates removed" value={exact + near} sub={`${exact} exact · ${near} near`} />
    </dl>
  );
}
