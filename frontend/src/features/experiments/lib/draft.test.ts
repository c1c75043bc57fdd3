import { describe, expect, it } from "vitest";

import { ALGORITHMS, EXPERIMENT, FAMILY, VERIFIERS } from "../testing/fixtures";
import { buildConfig, defaultVerifierVersion, draftFromExperiment, emptyDraft, parseValue, stepOf, switchAlgorithm } from "./draft";

const grpo = ALGORITHMS[0]!;
const field = (path: string) => grpo.fields.find((f) => f.path === path)!;

describe("the experiment draft", () => {
  it("maps each error path to the step that shows the field", () => {
    expect(stepOf("config.hyperparameters.group_size")).toBe("algorithm");
    expect(stepOf("config.curriculum.families[0].verifier_version")).toBe("curriculum");
    expect(stepOf("config.model")).toBe("model");
    expect(stepOf("config.eval.families")).toBe("evaluation");
    expect(stepOf("config.num_processes")).toBe("resources");
    expect(stepOf("name")).toBe("review");
    expect(stepOf(null)).toBe("review");
  });

  it("sends typed numbers, null for an emptied nullable field, and text the server must name", () => {
    expect(parseValue(field("learning_rate"), "0.001")).toBe(0.001);
    expect(parseValue(field("max_grad_norm"), "")).toBeNull();
    expect(parseValue(field("group_size"), "eight")).toBe("eight");
    expect(parseValue(field("scale_rewards"), false)).toBe(false);
  });

  it("fills every hyper-parameter, nested ones under their parent, defaults where unset", () => {
    const draft = { ...emptyDraft(), hyper: { "sampling.temperature": "0.7", group_size: "4" } };
    expect(buildConfig(draft, grpo).hyperparameters).toEqual({
      max_steps: 100,
      group_size: 4,
      learning_rate: 0.0005,
      kl_estimator: "none",
      sampling: { temperature: 0.7 },
      max_grad_norm: 1,
      scale_rewards: true,
    });
  });

  it("sends a chat format and LoRA, none when the rank is 0, and keeps them when cloning", () => {
    expect(stepOf("config.prompt_format.system_prompt")).toBe("model");
    expect(stepOf("config.lora.alpha")).toBe("model");
    const raw = buildConfig(emptyDraft(), grpo);
    expect([raw.prompt_format, raw.lora]).toEqual([{ kind: "raw" }, null]);
    const draft = { ...emptyDraft(), promptFormat: "chat" as const, systemPrompt: "  ", loraRank: "16", loraAlpha: "32", loraDropout: "0.05" };
    const config = buildConfig(draft, grpo);
    expect(config.prompt_format).toEqual({ kind: "chat", system_prompt: null });
    expect(config.lora).toEqual({ rank: 16, alpha: 32, dropout: 0.05, target_modules: null });
    const stored = {
      ...EXPERIMENT.config,
      prompt_format: { kind: "chat" as const, system_prompt: "Be brief.", reasoning_tags: ["<think>", "</think>"] },
      lora: { rank: 8, alpha: 16, dropout: 0, target_modules: ["q_proj", "v_proj"] },
    };
    const clone = draftFromExperiment({ ...EXPERIMENT, config: stored }, ALGORITHMS);
    expect([clone.promptFormat, clone.systemPrompt, clone.loraRank, clone.loraTargets]).toEqual(["chat", "Be brief.", "8", "q_proj, v_proj"]);
    expect(draftFromExperiment(EXPERIMENT, ALGORITHMS).loraRank).toBe("0");
  });

  it("keeps values set for fields the next algorithm also has", () => {
    const draft = { ...emptyDraft(), hyper: { group_size: "4", learning_rate: "0.01" } };
    expect(switchAlgorithm(draft, ALGORITHMS[1]!).hyper).toEqual({ group_size: "4" });
  });

  it("clones an experiment's configuration, counting as set what differs from the defaults", () => {
    const draft = draftFromExperiment(EXPERIMENT, ALGORITHMS);
    expect(draft.hyper).toEqual({ max_steps: "200" });
    expect(draft.curriculum.kind).toBe("inline");
    expect(draft.evalFamilies).toBeNull();
    const config = buildConfig({ ...draft, verifiers: { "5": 11 } }, grpo);
    expect(config.curriculum).toMatchObject({ families: [{ pool_version: 5, verifier_version: 11 }], origin: { curriculum: 4, revision: 2 } });
  });

  it("names an evaluation suite instead of held-out sets, and keeps it when cloning", () => {
    const draft = { ...emptyDraft(), evalEvery: "5", evalFamilies: [5], evalSuite: 3 };
    expect(buildConfig(draft, grpo).eval).toEqual({ every: 5, suite: 3 });
    expect(stepOf("config.eval.suite")).toBe("evaluation");
    const config = { ...EXPERIMENT.config, eval: { ...EXPERIMENT.config.eval, suite: 3 } };
    expect(draftFromExperiment({ ...EXPERIMENT, config }, ALGORITHMS).evalSuite).toBe(3);
    expect(draftFromExperiment(EXPERIMENT, ALGORITHMS).evalSuite).toBeNull();
  });

  it("preselects the newest verifier made for the family's kind, none for an unknown kind", () => {
    expect(defaultVerifierVersion(FAMILY, VERIFIERS)).toBe(12);
    expect(defaultVerifierVersion({ kind: "json" }, VERIFIERS)).toBeNull();
  });
});
