// What the evaluation-suite pages' tests answer with: one pool version, one verifier, one suite.
import { ME, mockApi, paginated } from "@/testing/mock-api";

import type { EvaluationSuite, PoolVersion, Verifier } from "../api/types";

export const VERSION = {
  id: 5,
  family: 1,
  family_slug: "digits",
  number: 2,
  content_hash: "abc",
  source: "generator",
  source_detail: {},
  held_out_fraction: 0.1,
  environment: null,
  task_count: 30,
  train_count: 27,
  held_out_count: 3,
  difficulty_histogram: { train: { "1": 27 }, held_out: { "1": 3 } },
  dedup: { total: 30, kept: 30, exact_duplicates: 0, near_duplicates: 0, removed: [] },
  diff: {},
  note: "",
  created_by: "ada",
  created_at: "2026-01-01T00:00:00Z",
} satisfies PoolVersion;

export const VERIFIER = {
  id: 1,
  team: "core",
  name: "Exact sort",
  slug: "exact-sort",
  description: "",
  family_kind: "digit-sort",
  latest_version: { id: 7, number: 1 },
  version_count: 1,
  example_count: 0,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
} as unknown as Verifier;

export const FAMILY = { family: "digits", pool_version: 5, version_number: 2, verifier_version: 7, threshold_pts: 4 };

export const SUITE: EvaluationSuite = {
  id: 3,
  team: "core",
  name: "Core",
  description: "held-out core",
  families: [FAMILY],
  k: 4,
  temperature: 0.7,
  max_new_tokens: 16,
  max_tasks: 50,
  seed: 0,
  jobs: 0,
  experiments: 0,
  created_by: "ada",
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-02T00:00:00Z",
};

export function suitesApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/pool-versions/": { body: paginated([VERSION]) },
    "GET /api/v1/verifiers/": { body: paginated([VERIFIER]) },
    "GET /api/v1/evaluation-suites/": { body: paginated([SUITE]) },
    "GET /api/v1/models/": { body: { models: [{ name: "tiny-digit-sort" }], workers: 1, detail: "" } },
    ...extra,
  });
}
