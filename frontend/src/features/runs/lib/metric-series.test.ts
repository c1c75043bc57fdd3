import { describe, expect, it } from "vitest";

import { fromColumns, mergeColumns } from "./metric-series";

describe("mergeColumns", () => {
  it("appends points in step order and keeps the newest sequence number", () => {
    const a = mergeColumns(undefined, { kl: { step: [0, 1], value: [0.1, 0.2] } }, 5);
    const b = mergeColumns(a, { kl: { step: [2], value: [0.3] } }, 6);
    expect(b.series.kl).toEqual({ x: [0, 1, 2], y: [0.1, 0.2, 0.3] });
    expect(b.seq).toBe(6);
    expect(a.series.kl!.x).toHaveLength(2);
  });

  it("places a late point by its step and overwrites a step sent twice", () => {
    const a = mergeColumns(undefined, { kl: { step: [0, 4], value: [1, 4] } }, 2);
    const b = mergeColumns(a, { kl: { step: [2, 4], value: [2, 40] } }, 1);
    expect(b.series.kl).toEqual({ x: [0, 2, 4], y: [1, 2, 40] });
    expect(b.seq).toBe(2);
  });

  it("keeps untouched series as they were, so their charts do not redraw", () => {
    const a = mergeColumns(undefined, { kl: { step: [0], value: [1] }, entropy: { step: [0], value: [2] } }, 1);
    const b = mergeColumns(a, { kl: { step: [1], value: [1] } }, 2);
    expect(b.series.entropy).toBe(a.series.entropy);
    expect(b.series.kl).not.toBe(a.series.kl);
  });

  it("keeps a reported gap as null", () => {
    const a = fromColumns({ kl: { step: [0], value: [null] } }, 1);
    expect(a.series.kl!.y).toEqual([null]);
    expect(a.seq).toBe(1);
  });
});
