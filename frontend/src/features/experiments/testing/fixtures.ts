// Canned bodies of the experiment wizard's endpoints for route tests, typed by the schema.
import type { Preset } from "../api/get-presets";
import type { Algorithm, AvailableModels, Experiment, Family, PoolVersion, RunListItem, SavedCurriculum, Verifier } from "../api/types";

export const POOL_VERSION: PoolVersion = {
  id: 5,
  family: 2,
  family_slug: "digits",
  number: 1,
  content_hash: "abc",
  source: "generator",
  source_detail: {},
  held_out_fraction: 0.1,
  environment: null,
  task_count: 100,
  train_count: 90,
  held_out_count: 10,
  difficulty_histogram: { train: { "2": 45, "3": 45 }, held_out: { "2": 5, "3": 5 } },
  dedup: { total: 100, kept: 100, exact_duplicates: 0, near_duplicates: 0, removed: [] },
  diff: {} as PoolVersion["diff"],
  note: "",
  created_by: "ada",
  created_at: "2026-01-01T00:00:00Z",
};

export const FAMILY = { id: 2, kind: "digit-sort", name: "Digits", slug: "digits" } as Family;

export const CURRICULUM: SavedCurriculum = {
  id: 4,
  team: "core",
  name: "Digit ramp",
  slug: "digit-ramp",
  description: "Two digits to three.",
  config: { families: [{ version: 5, weight: 1 }], band: [0.3, 0.7], floor: 0.05, window: 64, step: 0.2, dynamic: true },
  revision: 2,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

function verifier(id: number, name: string, kind: string, versionId: number, created: string): Verifier {
  return {
    id,
    name,
    family_kind: kind,
    latest_version: { id: versionId, verifier: id, number: 3, created_at: created } as NonNullable<Verifier["latest_version"]>,
    version_count: 3,
    example_count: 0,
    created_at: created,
    updated_at: created,
  } as Verifier;
}

export const VERIFIERS: Verifier[] = [
  verifier(1, "Generic", "arithmetic", 11, "2026-01-03T00:00:00Z"),
  verifier(2, "Exact sort", "digit-sort", 12, "2026-01-02T00:00:00Z"),
];

export const MODELS: AvailableModels = {
  models: [{ name: "tiny-digit-sort", path: "tiny-digit-sort", builtin: true, parameters: 420_000, ready: true, workers: ["celery@cpu-1"] }],
  workers: 1,
  detail: "",
};

export const NO_MODELS: AvailableModels = {
  models: [],
  workers: 0,
  detail: "No worker is running on the gpu queue.",
};

export const ALGORITHMS: Algorithm[] = [
  {
    name: "grpo",
    summary: "Group Relative Policy Optimization (Shao et al. 2024).",
    fields: [
      { path: "max_steps", type: "int", nullable: false, default: 100, help: "Training steps.", choices: null, range: { low: 1, high: 1000000, low_open: false, high_open: false, text: "a whole number from 1 to 1000000" } },
      { path: "group_size", type: "int", nullable: false, default: 8, help: "Completions sampled per prompt (G).", choices: null, range: { low: 1, high: 1000000, low_open: false, high_open: false, text: "a whole number from 1 to 1000000" } },
      { path: "learning_rate", type: "float", nullable: false, default: 0.0005, help: "Peak AdamW learning rate.", choices: null, range: { low: 0, high: 1, low_open: true, high_open: false, text: "a number above 0 and at most 1" } },
      { path: "kl_estimator", type: "str", nullable: false, default: "none", help: "`k1`, `k3`, or `none`.", choices: ["k1", "k3", "none"], range: null },
      { path: "sampling.temperature", type: "float", nullable: false, default: 1, help: "Sampling temperature.", choices: null, range: { low: 0, high: 1, low_open: true, high_open: false, text: "a number above 0 and at most 1" } },
      { path: "max_grad_norm", type: "float", nullable: true, default: 1, help: "Gradient clip; empty disables it.", choices: null, range: { low: 0, high: 1, low_open: true, high_open: false, text: "a number above 0 and at most 1" } },
      { path: "scale_rewards", type: "bool", nullable: false, default: true, help: "Divide by the group std.", choices: null, range: null },
    ],
    min_prompts: 1000,
  },
  {
    name: "rloo",
    summary: "REINFORCE leave-one-out.",
    fields: [
      { path: "max_steps", type: "int", nullable: false, default: 100, help: "Training steps.", choices: null, range: { low: 1, high: 1000000, low_open: false, high_open: false, text: "a whole number from 1 to 1000000" } },
      { path: "group_size", type: "int", nullable: false, default: 8, help: "Completions sampled per prompt (G).", choices: null, range: { low: 1, high: 1000000, low_open: false, high_open: false, text: "a whole number from 1 to 1000000" } },
    ],
    min_prompts: null,
  },
];

export const PRESETS: Preset[] = [
  {
    name: "dr-grpo",
    title: "Dr. GRPO",
    algorithm: "grpo",
    summary: "GRPO without its two biases.",
    source: "Liu et al. 2025",
    values: [
      { path: "group_size", value: 8, help: "Completions sampled per prompt (G).", why: "" },
      { path: "scale_rewards", value: false, help: "Divide by the group std.", why: "Dividing by the std over-weights easy and hard prompts." },
    ],
    measured: "held-out success 0.45 → 0.70 in 240 steps × 16 prompts.",
  },
  {
    name: "rloo",
    title: "RLOO",
    algorithm: "rloo",
    summary: "REINFORCE leave-one-out.",
    source: "Ahmadian et al. 2024",
    values: [{ path: "group_size", value: 4, help: "Completions sampled per prompt (G).", why: "The paper's k = 4." }],
    measured: "",
  },
];

export const EXPERIMENT: Experiment = {
  id: 3,
  team: "core",
  name: "Digit sort",
  description: "GRPO on the tiny model.",
  config: {
    curriculum: {
      families: [{ pool_version: 5, verifier_version: 12, weight: 1, levels: [2, 3], initial: null }],
      band: [0.3, 0.7],
      floor: 0.05,
      window: 64,
      step: 0.2,
      dynamic: true,
      origin: { curriculum: 4, revision: 2 },
    },
    model: "tiny-digit-sort",
    algorithm: "grpo",
    hyperparameters: { max_steps: 200, group_size: 8, learning_rate: 0.0005, kl_estimator: "none", sampling: { max_new_tokens: 16, temperature: 1, top_p: 1, top_k: 0, backend: "engine", compile: false }, max_grad_norm: 1, scale_rewards: true },
    eval: { every: 10, families: [5], max_tasks: 200 },
    seed: 0,
    num_processes: 1,
    strategy: "ddp",
    rollout_groups: 16,
    budget: { max_worker_hours: null, max_cost: null },
  },
  config_hash: "f".repeat(64),
  parent: null,
  created_by: "ada",
  created_at: "2026-01-04T00:00:00Z",
  run_count: 1,
};

export const EXPERIMENT_RUN = {
  id: 7,
  team: "core",
  experiment: 3,
  experiment_name: "Digit sort",
  number: 1,
  state: "succeeded",
  created_by: "ada",
  created_at: "2026-01-04T00:00:00Z",
  title: "Digit sort",
  source: "platform",
  name: "",
  params: {},
  tags: {},
  notes: "",
  base_model: "",
  started_at: "2026-01-04T00:00:01Z",
  finished_at: "2026-01-04T00:05:00Z",
  worker: "celery@cpu-1",
  heartbeat_at: "2026-01-04T00:05:00Z",
  attempts: 1,
  cancel_requested: false,
  pause_requested: false,
  pause_reason: "",
  budget: { max_worker_hours: null, max_cost: null },
  worker_seconds: 60,
  generated_tokens: 5_000,
  judge_tokens: 0,
  cost: 0,
  step: 200,
  max_steps: 200,
  resumed_from_step: null,
  failure_reason: "",
  summary: { "reward/mean": 0.9 },
  health: { step: null, signals: [] },
  heartbeat_stale_after_s: 60,
} satisfies RunListItem;

/** Every endpoint the wizard reads, answering as a team with one curriculum and a worker. */
export function wizardRoutes(models: AvailableModels = MODELS) {
  return {
    "GET /api/v1/curricula/": { body: { count: 1, next: null, previous: null, results: [CURRICULUM] } },
    "GET /api/v1/pool-versions/": { body: { count: 1, next: null, previous: null, results: [POOL_VERSION] } },
    "GET /api/v1/families/": { body: { count: 1, next: null, previous: null, results: [FAMILY] } },
    "GET /api/v1/verifiers/": { body: { count: 2, next: null, previous: null, results: VERIFIERS } },
    "GET /api/v1/models/": { body: models },
    "GET /api/v1/algorithms/": { body: ALGORITHMS },
    "GET /api/v1/algorithms/presets/": { body: PRESETS },
  };
}
