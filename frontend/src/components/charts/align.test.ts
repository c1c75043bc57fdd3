import { describe, expect, it } from "vitest";

import { alignSeries, countPoints, smooth } from "./align";

describe("alignSeries", () => {
  it("keeps series that share their steps as they are", () => {
    const x = [0, 1, 2];
    expect(alignSeries([{ x, y: [1, null, 3] }, { x, y: [4, 5, 6] }])).toEqual([[0, 1, 2], [1, null, 3], [4, 5, 6]]);
  });

  it("lays runs with different steps on their union, holes undefined and reported gaps null", () => {
    const [x, a, b] = alignSeries([
      { x: [0, 2, 4], y: [1, null, 3] },
      { x: [1, 2, 3], y: [10, 20, 30] },
    ]);
    expect(x).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(a!)).toEqual([1, undefined, null, undefined, 3]);
    expect(Array.from(b!)).toEqual([undefined, 10, 20, 30, undefined]);
  });

  it("aligns 100k points per run in well under a second", () => {
    const n = 100_000;
    const even = { x: Array.from({ length: n }, (_, i) => i * 2), y: Array.from({ length: n }, (_, i) => i) };
    const odd = { x: Array.from({ length: n }, (_, i) => i * 2 + 1), y: Array.from({ length: n }, (_, i) => i) };
    const started = performance.now();
    const [x] = alignSeries([even, odd]);
    expect(x).toHaveLength(2 * n);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("counts only real values", () => {
    expect(countPoints([{ x: [0, 1, 2], y: [1, null, 2] }])).toBe(2);
  });
});

describe("smooth", () => {
  it("averages with debiasing, so the first point is itself, and keeps gaps and holes", () => {
    const out = smooth([1, null, 3, undefined, 3], 0.5);
    expect(out[0]).toBe(1);
    expect(out[1]).toBeNull();
    expect(out[2]).toBeCloseTo((0.5 * 0.5 + 0.5 * 3) / (1 - 0.25));
    expect(out[3]).toBeUndefined();
    expect(smooth([1, 2, 3], 0)).toEqual([1, 2, 3]);
  });
});
