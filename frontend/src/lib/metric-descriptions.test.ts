import { describe, expect, it } from "vitest";

import catalogueJson from "@/testing/metric-catalogue.json";

import { describeMetric, type MetricSpec } from "./metric-descriptions";

/** What GET /api/v1/metrics/catalogue/ answers (a test on the server keeps the copy equal). */
const CATALOGUE = catalogueJson as MetricSpec[];

/** Keys the engine and the platform log (training/metrics.py, the algorithms, the
 * curriculum sampler), as a run of each algorithm reports them. */
const LOGGED = [
  "approx_kl",
  "clip_ratio",
  "clip_ratio/high_mean",
  "clip_ratio/low_mean",
  "completions/clipped_ratio",
  "completions/max_length",
  "completions/mean_length",
  "completions/min_length",
  "curriculum/digits/d2",
  "curriculum/digits/rolling_success",
  "dynamic_sampling/fill_rate",
  "dynamic_sampling/prompts_generated",
  "dynamic_sampling/rounds",
  "entropy",
  "errors/format",
  "eval/success/digits",
  "eval/success/digits/d3",
  "frac_reward_zero_std",
  "frac_reward_zero_std/digits/d2",
  "grad_norm",
  "kl",
  "learning_rate",
  "logprob_gap/max",
  "logprob_gap/mean",
  "loss/policy",
  "loss/sft",
  "loss/value",
  "perf/completions_per_s",
  "perf/step_s",
  "perf/tokens_per_s",
  "perf/tokens_seen",
  "rejection/kept_frac",
  "reward/correct",
  "reward/mean",
  "reward/std",
  "reward/unscorable_frac",
  "success",
  "success/digits",
  "success/digits/d2",
  "time/behaviour_logprobs_s",
  "time/generation_s",
  "time/update_s",
  "time/verification_s",
  "tis/truncated_frac",
  "tis/weight_mean",
  "val/explained_variance",
];

describe("describeMetric", () => {
  it.each(LOGGED)("says what %s is and what healthy looks like", (key) => {
    const text = describeMetric(key, CATALOGUE);
    expect(text).not.toMatch(/reported as|\{/);
    expect(text).toMatch(/Healthy/);
  });

  it("tells why the GRPO loss can read zero while the model learns", () => {
    expect(describeMetric("loss/policy", CATALOGUE)).toMatch(/about zero by construction.*watch reward/);
  });

  it("puts a templated key's parts into its sentence", () => {
    expect(describeMetric("success/sort_digits/d3", CATALOGUE)).toMatch(/^Share of sort digits completions at difficulty 3 /);
    expect(describeMetric("time/behaviour_logprobs_s", CATALOGUE)).toMatch(/spent on behaviour logprobs\./);
    expect(describeMetric("curriculum/digits/d-1", CATALOGUE)).toMatch(/a digits task at difficulty -1\./);
  });

  it("prefers a metric's own sentence to a template that also matches it", () => {
    expect(describeMetric("reward/outcome", CATALOGUE)).toMatch(/^Reward part for getting the final answer right/);
    expect(describeMetric("reward/correct", CATALOGUE)).toMatch(/^Average of the “correct” reward part/);
  });

  it("falls back to a neutral sentence for a name it does not know, or before the catalogue loads", () => {
    expect(describeMetric("mystery", CATALOGUE)).toBe("The value the run reported as “mystery” at each step.");
    expect(describeMetric("success/digits/hard", CATALOGUE)).toMatch(/reported as/);
    expect(describeMetric("kl", undefined)).toBe("The value the run reported as “kl” at each step.");
  });
});
