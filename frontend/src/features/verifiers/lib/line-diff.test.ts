import { describe, expect, it } from "vitest";

import { sideBySide } from "./line-diff";

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
