import { describe, expect, it } from "vitest";

import {
  defaultSteps,
  differenceText,
  formatPoints,
  formatRate,
  formatShare,
  isFinished,
  parseSteps,
  slugify,
  stateWords,
  stepShares,
  stepStatuses,
  truncate,
  verdict,
} from "./format";

describe("stateWords", () => {
  it("spells every canary state in words", () => {
    expect(["running", "awaiting_decision", "paused", "promoted", "rolled_back", "cancelled"].map(stateWords)).toEqual([
      "running",
      "awaiting decision",
      "paused",
      "promoted",
      "rolled back",
      "cancelled",
    ]);
  });

  it("knows which states are final", () => {
    expect(isFinished("promoted")).toBe(true);
    expect(isFinished("rolled_back")).toBe(true);
    expect(isFinished("awaiting_decision")).toBe(false);
  });
});

describe("parseSteps", () => {
  it("reads comma- or space-separated whole percentages", () => {
    expect(parseSteps("5, 25, 50")).toEqual({ steps: [5, 25, 50] });
    expect(parseSteps(" 10 20%,30 ")).toEqual({ steps: [10, 20, 30] });
    expect(parseSteps("100")).toEqual({ steps: [100] });
  });

  it("refuses empty, fractional, out-of-range and falling steps with a reason", () => {
    expect(parseSteps("  ").error).toMatch(/at least one step/);
    expect(parseSteps("5, 2.5").error).toBe('"2.5" is not a whole percentage.');
    expect(parseSteps("0, 50").error).toBe("0% is not between 1 and 100.");
    expect(parseSteps("5, 150").error).toBe("150% is not between 1 and 100.");
    expect(parseSteps("25, 5").error).toMatch(/must rise/);
    expect(parseSteps("5, 5").error).toMatch(/must rise/);
  });

  it("defaults to 5, 25, 50 for a split and 100 for a shadow", () => {
    expect(defaultSteps("split")).toBe("5, 25, 50");
    expect(defaultSteps("shadow")).toBe("100");
    expect(parseSteps(defaultSteps("split")).steps).toEqual([5, 25, 50]);
  });
});

describe("steps", () => {
  it("marks the steps before the current one passed", () => {
    expect(stepStatuses([5, 25, 50], 1, "running")).toEqual(["passed", "current", "upcoming"]);
    expect(stepStatuses([5, 25, 50], 0, "awaiting_decision")).toEqual(["current", "upcoming", "upcoming"]);
  });

  it("marks every step passed once promoted", () => {
    expect(stepStatuses([5, 25, 50], 2, "promoted")).toEqual(["passed", "passed", "passed"]);
  });

  it("keeps only the numbers of an untyped steps list", () => {
    expect(stepShares([5, "x", 25])).toEqual([5, 25]);
    expect(stepShares(null)).toEqual([]);
  });
});

describe("numbers in words", () => {
  it("formats rates, shares and differences", () => {
    expect(formatRate(0.734, 1)).toBe("73.4%");
    expect(formatRate(null)).toBe("—");
    expect(formatShare(25)).toBe("25%");
    expect(formatPoints(0.03)).toBe("+3.0 pts");
    expect(formatPoints(-0.125)).toBe("−12.5 pts");
    expect(formatPoints(0)).toBe("±0.0 pts");
  });

  it("states the difference with its interval, or that there is none yet", () => {
    expect(
      differenceText({ production: 0.5, candidate: 0.55, difference: 0.05, ci_low: -0.02, ci_high: 0.12, p_value: 0.21 }),
    ).toBe("Candidate − production: +5.0 pts, confidence interval −2.0 pts to +12.0 pts, p = 0.21.");
    expect(differenceText({ production: null, candidate: null, difference: null, ci_low: null, ci_high: null, p_value: null })).toMatch(
      /not enough verified requests/,
    );
  });

  it("marks verdicts and truncates completions", () => {
    expect(verdict(true)).toEqual({ mark: "✓", words: "passed" });
    expect(verdict(false)).toEqual({ mark: "✗", words: "failed" });
    expect(verdict(null)).toEqual({ mark: "–", words: "none" });
    expect(truncate("a  b\nc", 10)).toBe("a b c");
    expect(truncate("abcdefghij", 5)).toBe("abcd…");
  });

  it("derives a slug from a name", () => {
    expect(slugify("Sorter (prod) v2")).toBe("sorter-prod-v2");
    expect(slugify("  Élan  ")).toBe("elan");
  });
});
