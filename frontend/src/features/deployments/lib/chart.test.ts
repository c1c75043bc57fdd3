import { describe, expect, it } from "vitest";

import { lastValue, ratePath, stepChanges, xAt, yAt, type Box } from "./chart";

const BOX: Box = { width: 110, height: 120, top: 10, right: 0, bottom: 10, left: 10 };

describe("pass-rate chart geometry", () => {
  it("maps rates onto the plot, 1 at the top and 0 at the bottom, clamped", () => {
    expect(yAt(1, BOX)).toBe(10);
    expect(yAt(0, BOX)).toBe(110);
    expect(yAt(0.5, BOX)).toBe(60);
    expect(yAt(1.4, BOX)).toBe(10);
  });

  it("spreads points across the width, a lone point at the left edge", () => {
    expect(xAt(0, 3, BOX)).toBe(10);
    expect(xAt(2, 3, BOX)).toBe(110);
    expect(xAt(0, 1, BOX)).toBe(10);
  });

  it("draws a line through the values and lifts the pen over nulls", () => {
    expect(ratePath([0, 0.5, 1], BOX)).toBe("M10.0,110.0L60.0,60.0L110.0,10.0");
    expect(ratePath([0.5, null, 1], BOX)).toBe("M10.0,60.0M110.0,10.0");
    expect(ratePath([null, null], BOX)).toBe("");
  });

  it("finds where each step begins and the last value", () => {
    const series = [
      { step: 0, share: 5 },
      { step: 0, share: 5 },
      { step: 1, share: 25 },
      { step: 2, share: 50 },
    ];
    expect(stepChanges(series)).toEqual([
      { index: 0, share: 5 },
      { index: 2, share: 25 },
      { index: 3, share: 50 },
    ]);
    expect(lastValue([0.2, 0.4, null])).toBe(0.4);
    expect(lastValue([null])).toBeNull();
  });
});
