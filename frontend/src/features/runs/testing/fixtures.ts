// Canned bodies of the run endpoints for route tests, typed by the OpenAPI schema.
import type { Checkpoint, Comparison, Rollout, Run, RunListItem, RunMetricsBody } from "../api/types";

export const RUN: Run = {
  id: 7,
  team: "core",
  experiment: 3,
  experiment_name: "Digit sort",
  title: "Digit sort",
  source: "platform",
  name: "",
  params: {},
  tags: {},
  notes: "",
  base_model: "",
  number: 2,
  state: "running",
  created_by: "ada",
  created_at: "2026-01-01T10:00:00Z",
  started_at: "2026-01-01T10:00:05Z",
  finished_at: null,
  worker: "celery@gpu-1",
  heartbeat_at: new Date(Date.now() - 4_000).toISOString(),
  attempts: 2,
  cancel_requested: false,
  pause_requested: false,
  pause_reason: "",
  budget: { max_worker_hours: null, max_cost: null },
  worker_seconds: 540,
  generated_tokens: 120_000,
  judge_tokens: 0,
  cost: 0.3,
  step: 37,
  max_steps: 100,
  resumed_from_step: 30,
  failure_reason: "",
  log_tail: "step 36/100 reward/mean=0.5\nstep 37/100 reward/mean=0.55\n",
  summary: { "reward/mean": 0.55, success: 0.6 },
  health: { step: null, signals: [] },
  heartbeat_stale_after_s: 60,
};

export const FAILED_RUN: Run = {
  ...RUN,
  state: "failed",
  finished_at: "2026-01-01T10:05:00Z",
  failure_reason: "CUDA out of memory while generating step 38",
  log_tail: "step 37/100 reward/mean=0.55\nTraceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory\n",
};

export function listItem(run: Run, changes: Partial<RunListItem> = {}): RunListItem {
  const { log_tail: _unused, ...rest } = run;
  void _unused;
  return { ...rest, ...changes };
}

const steps = [0, 1, 2];

export const METRICS: RunMetricsBody = {
  run: 7,
  state: "running",
  seq: 40,
  keys: ["kl", "reward/mean", "reward/outcome", "success/digits/d2", "time/generation_s"],
  points: {
    "reward/mean": { step: steps, value: [0.1, 0.3, 0.5], wall_time: [1, 2, 3], tokens: [10, 20, 30], total: 3, downsampled: false },
    "reward/outcome": { step: steps, value: [0.2, 0.4, null], wall_time: [1, 2, 3], tokens: [10, 20, 30], total: 3, downsampled: false },
    kl: { step: steps, value: [0.01, 0.02, 0.03], wall_time: [1, 2, 3], tokens: [10, 20, 30], total: 3, downsampled: false },
    "success/digits/d2": { step: steps, value: [0.5, 0.6, 0.7], wall_time: [1, 2, 3], tokens: [10, 20, 30], total: 3, downsampled: false },
    "time/generation_s": { step: steps, value: [1.5, 1.4, 1.3], wall_time: [1, 2, 3], tokens: [10, 20, 30], total: 3, downsampled: false },
  },
};

export const CHECKPOINT: Checkpoint = {
  id: 1,
  step: 30,
  name: "step-000030",
  metrics: { "reward/mean": 0.45, success: 0.5 },
  size_bytes: 3_500_000,
  created_at: "2026-01-01T10:03:00Z",
  promotion: null,
  adapter: false,
};

export function rollout(sample: number, passed: boolean, changes: Partial<Rollout> = {}): Rollout {
  return {
    id: 100 + sample,
    step: 12,
    group: 0,
    sample,
    family: "digits",
    difficulty: 3,
    task_hash: "abcdef0123456789",
    pool_version: 5,
    verifier_version: 9,
    prompt: "sort 312=",
    completion: passed ? "123" : "321",
    passed,
    reward: passed ? 1 : 0,
    parts: { outcome: passed ? 1 : 0, process: 1 },
    advantage: passed ? 0.87 : -0.87,
    error_type: passed ? "" : "wrong_answer",
    layers: [
      { name: "extract", kind: "extract", stage: "syntax", passed: true, score: 1, error_type: "none", detail: "" },
      { name: "answer", kind: "string_match", stage: "semantic", passed, score: passed ? 1 : 0, error_type: passed ? "none" : "wrong_answer", detail: passed ? "" : "expected 123" },
    ],
    messages: null,
    ...changes,
  };
}

export const COMPARISON: Comparison = {
  runs: [
    { id: 7, experiment: 3, experiment_name: "Digit sort", source: "platform", number: 2, state: "succeeded", step: 100, max_steps: 100 },
    { id: 8, experiment: 4, experiment_name: "Digit sort (clone)", source: "platform", number: 1, state: "running", step: 40, max_steps: 100 },
  ],
  metrics: [
    { key: "kl", values: [0.03, null] },
    { key: "reward/mean", values: [0.81, 0.42] },
  ],
  config_differences: [{ path: "hyperparameters.learning_rate", values: [0.0005, 0.001] }],
};
