import type { FamilyKind, PoolJob, PoolVersion } from "../api/types";

export const ARITHMETIC: FamilyKind = {
  name: "arithmetic",
  label: "Arithmetic",
  description: "Add, subtract or multiply whole numbers; the answer must be exact.",
  difficulty_levels: [1, 2, 3],
  prompt_template: "Compute {question}.",
  params_schema: {
    type: "object",
    properties: {
      ops: { type: "array", items: { enum: ["+", "-", "*"] }, default: ["+", "-", "*"] },
      allow_negative: { type: "boolean", default: true },
    },
  },
  procedural: true,
  importable: true,
  record_fields: ["prompt", "answer", "difficulty", "source_id"],
  required_fields: ["prompt", "answer"],
  default_verifier: {
    extract: "final_answer_or_last_number",
    layers: [{ kind: "numeric_match", name: "answer" }],
    reward: { weights: { outcome: 1 } },
  },
};

export const VERSION: PoolVersion = {
  id: 11,
  family: 3,
  family_slug: "arith",
  number: 2,
  content_hash: "abcdef0123456789abcdef",
  source: "generator",
  source_detail: { seed: 1 },
  held_out_fraction: 0.1,
  environment: null,
  task_count: 20,
  train_count: 17,
  held_out_count: 3,
  difficulty_histogram: { train: { "1": 8, "2": 6, "3": 3 }, held_out: { "1": 1, "2": 2 } },
  dedup: { total: 22, kept: 20, exact_duplicates: 2, near_duplicates: 0, removed: [{ row: 4, duplicate_of: 1, kind: "exact", similarity: 1 }] },
  diff: {
    against: 1,
    added: 5,
    removed: 2,
    unchanged: 15,
    added_examples: [{ content_hash: "a1", prompt: "Compute 41 + 7.", difficulty: 3 }],
    removed_examples: [
      { content_hash: "r1", prompt: "Compute 1 + 1.", difficulty: 1 },
      { content_hash: "r2", prompt: "Compute 2 + 2.", difficulty: 1 },
    ],
  },
  note: "more level 3",
  created_by: "ada",
  created_at: "2026-01-02T10:00:00Z",
};

export const FAMILY = {
  id: 3,
  team: "core",
  name: "Arith",
  slug: "arith",
  kind: "arithmetic",
  description: "Warm-up sums",
  params: { ops: ["+"], allow_negative: true },
  prompt_template: "",
  held_out_fraction: 0.1,
  latest_version: VERSION,
  version_count: 2,
  version_defaults: { near_duplicates: true, mode: "append" as const, prompt_mode: "template" as const },
  archived_at: null as string | null,
  created_at: "2026-01-01T10:00:00Z",
  updated_at: "2026-01-01T10:00:00Z",
};

export const JOB: PoolJob = {
  id: 5,
  version: 11,
  kind: "grade",
  params: { model_path: "/models/tiny", k: 8, temperature: 1, max_new_tokens: 64, levels: 5 },
  status: "queued",
  progress: 0,
  message: "",
  result_version: null,
  created_at: "2026-01-03T10:00:00Z",
  finished_at: null,
};
