import { describe, expect, it } from "vitest";

import { auditSentence, describeAction, targetName } from "./describe-event";

describe("describeAction", () => {
  it("says what a known action did", () => {
    expect(describeAction("family.created")).toBe("created task family");
    expect(describeAction("verifier.example_deleted")).toBe("deleted a labelled example of verifier");
  });

  it("reads an action it has no phrase for from its name", () => {
    expect(describeAction("experiment.created")).toBe("created experiment");
    expect(describeAction("run.state_changed")).toBe("run state changed on");
    expect(describeAction("reindexed")).toBe("reindexed");
  });
});

describe("targetName", () => {
  it("falls back to the id for events logged before names were kept", () => {
    expect(targetName({ target_label: "Arithmetic", target_id: "6" })).toBe("Arithmetic");
    expect(targetName({ target_label: "", target_id: "6" })).toBe("#6");
  });
});

describe("auditSentence", () => {
  it("writes who did what to which object, by id and name", () => {
    const approved = { actor: "alice", action: "report.approve", target_label: "run 3 vs base", target_id: "12" };
    expect(auditSentence(approved)).toBe("alice approved report #12 (run 3 vs base)");
    expect(auditSentence({ ...approved, actor: null, target_label: "" })).toBe("the system approved report #12");
  });
});
