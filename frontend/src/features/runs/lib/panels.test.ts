import { describe, expect, it } from "vitest";

import { describeMetric, type MetricSpec } from "@/lib/metric-descriptions";
import catalogueJson from "@/testing/metric-catalogue.json";

import { groupPanels, seriesLabel } from "./panels";

const describeByCatalogue = (key: string) => describeMetric(key, catalogueJson as MetricSpec[]);

describe("groupPanels", () => {
  const keys = [
    "reward/mean",
    "reward/outcome",
    "reward/process",
    "reward/std",
    "success",
    "success/digits",
    "success/digits/d10",
    "success/digits/d2",
    "kl",
    "entropy",
    "completions/mean_length",
    "completions/max_length",
    "frac_reward_zero_std",
    "perf/tokens_per_s",
    "perf/completions_per_s",
    "time/generation_s",
    "time/verification_s",
    "time/update_s",
    "curriculum/digits/d2",
    "curriculum/digits/d3",
    "eval/success/digits",
    "mystery",
  ];

  it("groups the keys a run has into the run page's panels by prefix", () => {
    const panels = groupPanels(keys);
    const byId = Object.fromEntries(panels.map((p) => [p.id, p.keys]));
    expect(byId.reward).toEqual(["reward/mean", "reward/outcome", "reward/process"]);
    expect(byId.success).toEqual(["success", "success/digits"]);
    expect(byId["difficulty:digits"]).toEqual(["success/digits/d2", "success/digits/d10"]);
    expect(byId.lengths).toEqual(["completions/mean_length", "completions/max_length"]);
    expect(byId["time-split"]).toEqual(["time/generation_s", "time/update_s", "time/verification_s"]);
    expect(byId["curriculum:digits"]).toEqual(["curriculum/digits/d2", "curriculum/digits/d3"]);
    expect(byId["eval:digits"]).toEqual(["eval/success/digits"]);
    expect(byId["other:mystery"]).toEqual(["mystery"]);
    expect(panels[0]!.id).toBe("reward");
    expect(panels[panels.length - 1]!.id).toBe("other:mystery");
  });

  it("explains a one-metric panel with that metric's sentence", () => {
    const kl = groupPanels(["kl"], describeByCatalogue)[0]!;
    expect(kl.description).toMatch(/KL divergence from the frozen reference/);
  });

  it("charts the train/inference gap and the importance weights in panels of their own", () => {
    const byId = Object.fromEntries(
      groupPanels(["logprob_gap/max", "logprob_gap/mean", "tis/weight_mean", "tis/truncated_frac"]).map((p) => [p.id, p]),
    );
    expect(byId["logprob-gap"]!.keys).toEqual(["logprob_gap/max", "logprob_gap/mean"]);
    expect(byId["logprob-gap"]!.section).toBe("Policy");
    expect(byId.tis!.keys).toEqual(["tis/truncated_frac", "tis/weight_mean"]);
    expect(describeByCatalogue("logprob_gap/mean")).toMatch(/generator's log-probabilities/);
  });

  it("gives every key an engine logs a panel of its own kind, none under Other", () => {
    const panels = groupPanels([
      "approx_kl",
      "val/explained_variance",
      "rejection/kept_frac",
      "dynamic_sampling/fill_rate",
      "dynamic_sampling/rounds",
      "dynamic_sampling/prompts_generated",
      "frac_reward_zero_std/digits/d2",
      "frac_reward_zero_std/digits/d3",
    ], describeByCatalogue);
    expect(panels.map((p) => p.id).sort()).toEqual(["approx-kl", "dynamic-sampling", "kept", "refills", "value", "zero-std-level:digits"]);
    expect(panels.find((p) => p.id === "zero-std-level:digits")!.section).toBe("Curriculum");
    expect(panels.every((p) => /Healthy/.test(p.description))).toBe(true);
  });

  it("labels difficulty levels inside a family's panel", () => {
    const panel = groupPanels(["success/digits/d2", "success/digits/d3"])[0]!;
    expect(seriesLabel("success/digits/d3", panel)).toBe("level 3");
  });
});
