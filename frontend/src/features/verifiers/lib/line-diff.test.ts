import { describe, expect, it } from "vitest";

import { foldUnchanged, sideBySide } from "./line-diff";

describe("sideBySide", () => {
  it("pairs a replaced line and keeps the rest aligned", () => {
    expect(sideBySide("a\nb\nc", "a\nB\nc\nd")).toEqual([
      { left: "a", right: "a", kind: "same" },
      { left: "b", right: "B", kind: "changed" },
      { left: "c", right: "c", kind: "same" },
      { left: null, right: "d", kind: "added" },
    ]);
  });

  it("shows a removed line on the left only", () => {
    expect(sideBySide("a\nb", "b")).toEqual([
      { left: "a", right: null, kind: "removed" },
      { left: "b", right: "b", kind: "same" },
    ]);
  });
});

describe("foldUnchanged", () => {
  it("folds unchanged runs away from a change, keeping context lines", () => {
    const rows = sideBySide("1\n2\n3\n4\n5\n6\n7", "1\n2\n3\n4\nX\n6\n7");
    expect(foldUnchanged(rows, 1)).toEqual([
      { kind: "fold", hidden: 3 },
      { left: "4", right: "4", kind: "same" },
      { left: "5", right: "X", kind: "changed" },
      { left: "6", right: "6", kind: "same" },
      { kind: "fold", hidden: 1 },
    ]);
  });
});
