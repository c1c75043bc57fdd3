import { describe, expect, it } from "vitest";

import { filtersFromParams, inspectorChoices, narrowsCompletions, withFilter } from "./inspector";

describe("rollout inspector filters", () => {
  it("reads the filters it knows from the URL, as text", () => {
    const params = new URLSearchParams("step=12&passed=false&search=sort&other=x&family=");
    expect(filtersFromParams(params)).toEqual({ step: "12", passed: "false", search: "sort" });
  });

  it("goes back to the first page when a filter changes, not when paging", () => {
    const params = new URLSearchParams("step=3&page=4");
    expect(withFilter(params, "family", "digits").toString()).toBe("step=3&family=digits");
    expect(withFilter(params, "page", "5").toString()).toBe("step=3&page=5");
    expect(withFilter(params, "step", "").toString()).toBe("");
  });

  it("knows which filters pick completions inside a group", () => {
    expect(narrowsCompletions({ step: "3", family: "digits" })).toBe(false);
    expect(narrowsCompletions({ step: "3", reward_min: "0.5" })).toBe(true);
  });

  it("offers the families, levels and error types the run reported", () => {
    const keys = ["success", "success/digits", "success/digits/d10", "success/digits/d2", "success/sums/d2", "errors/wrong_answer", "errors/format_error", "reward/mean"];
    expect(inspectorChoices(keys)).toEqual({
      families: ["digits"],
      levels: [2, 10],
      errorTypes: ["format_error", "wrong_answer"],
    });
  });
});
