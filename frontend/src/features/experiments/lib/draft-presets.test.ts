import { describe, expect, it } from "vitest";

import { ALGORITHMS, EXPERIMENT, PRESETS } from "../testing/fixtures";
import { applyPreset, buildConfig, draftFromExperiment, emptyDraft, stepOf, switchAlgorithm } from "./draft";

const [grpo, rloo] = [ALGORITHMS[0]!, ALGORITHMS[1]!];
const [drGrpo, rlooPreset] = [PRESETS[0]!, PRESETS[1]!];

describe("presets and budgets in the experiment draft", () => {
  it("fills a preset's values and keeps the run's size", () => {
    const draft = applyPreset({ ...emptyDraft(), hyper: { max_steps: "40", learning_rate: "0.01" } }, drGrpo, grpo, PRESETS);
    expect(draft.preset).toBe("dr-grpo");
    expect(draft.hyper).toEqual({ max_steps: "40", learning_rate: "0.01", group_size: "8", scale_rewards: false });
    expect(buildConfig(draft, grpo).hyperparameters).toMatchObject({ group_size: 8, scale_rewards: false, max_steps: 40 });
  });

  it("leaves nothing of the previous preset's recipe behind", () => {
    const dr = applyPreset(emptyDraft(), drGrpo, grpo, PRESETS);
    const next = applyPreset(dr, rlooPreset, rloo, PRESETS);
    expect([next.algorithm, next.preset, next.hyper]).toEqual(["rloo", "rloo", { group_size: "4" }]);
  });

  it("forgets the preset when the algorithm changes by hand", () => {
    const draft = applyPreset(emptyDraft(), drGrpo, grpo, PRESETS);
    expect(switchAlgorithm(draft, grpo).preset).toBe("dr-grpo");
    expect(switchAlgorithm(draft, rloo).preset).toBeNull();
  });

  it("sends a budget, blank as no limit, and shows its errors on the resources step", () => {
    expect(buildConfig(emptyDraft(), grpo).budget).toEqual({ max_worker_hours: null, max_cost: null });
    expect(buildConfig({ ...emptyDraft(), maxWorkerHours: "2.5", maxCost: "lots" }, grpo).budget).toEqual({ max_worker_hours: 2.5, max_cost: "lots" });
    expect(stepOf("config.budget.max_cost")).toBe("resources");
  });

  it("clones an experiment's budget", () => {
    const config = { ...EXPERIMENT.config, budget: { max_worker_hours: 3, max_cost: null } };
    const draft = draftFromExperiment({ ...EXPERIMENT, config }, ALGORITHMS);
    expect([draft.maxWorkerHours, draft.maxCost]).toEqual(["3", ""]);
  });
});
