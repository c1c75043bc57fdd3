// A line diff by longest common subsequence, laid out side by side. Specs are a few
// hundred lines at most, so the O(n·m) table is small.

export type DiffRow = {
  left: string | null;
  right: string | null;
  /** same: both sides equal; changed: a line replaced; removed / added: one side only. */
  kind: "same" | "changed" | "removed" | "added";
};

type Op = { kind: "same" | "removed" | "added"; line: string; other?: string };

function operations(a: string[], b: string[]): Op[] {
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: "same", line: a[i]! });
      i += 1;
      j += 1;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      ops.push({ kind: "removed", line: a[i++]! });
    } else {
      ops.push({ kind: "added", line: b[j++]! });
    }
  }
  while (i < a.length) ops.push({ kind: "removed", line: a[i++]! });
  while (j < b.length) ops.push({ kind: "added", line: b[j++]! });
  return ops;
}

/** Rows for a two-column view; a run of removals next to a run of additions pairs up as changes. */
export function sideBySide(left: string, right: string): DiffRow[] {
  const ops = operations(left.split("\n"), right.split("\n"));
  const rows: DiffRow[] = [];
  let k = 0;
  while (k < ops.length) {
    const op = ops[k]!;
    if (op.kind === "same") {
      rows.push({ left: op.line, right: op.line, kind: "same" });
      k += 1;
      continue;
    }
    const removed: string[] = [];
    const added: string[] = [];
    while (k < ops.length && ops[k]!.kind !== "same") {
      const next = ops[k]!;
      (next.kind === "removed" ? removed : added).push(next.line);
      k += 1;
    }
    for (let n = 0; n < Math.max(removed.length, added.length); n += 1) {
      const l = removed[n] ?? null;
      const r = added[n] ?? null;
      rows.push({ left: l, right: r, kind: l !== null && r !== null ? "changed" : l !== null ? "removed" : "added" });
    }
  }
  return rows;
}

export type FoldedRow = DiffRow | { kind: "fold"; hidden: number };

/** Keeps `context` unchanged rows around each change and folds longer unchanged runs. */
export function foldUnchanged(rows: DiffRow[], context = 3): FoldedRow[] {
  const near = rows.map((_, i) =>
    rows.slice(Math.max(0, i - context), i + context + 1).some((r) => r.kind !== "same"),
  );
  const out: FoldedRow[] = [];
  let hidden = 0;
  rows.forEach((row, i) => {
    if (near[i]) {
      if (hidden) out.push({ kind: "fold", hidden });
      hidden = 0;
      out.push(row);
    } else {
      hidden += 1;
    }
  });
  if (hidden) out.push({ kind: "fold", hidden });
  return out;
}
