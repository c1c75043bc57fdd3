// Canned API bodies for the deployment and canary page tests.
import type { Canary, Deployment, ServedRequest } from "../api/types";

export const PRODUCTION = { id: 1, number: 1, label: "sorter v1" };
export const CANDIDATE = { id: 2, number: 2, label: "sorter v2" };

const SIDE = {
  requests: 60,
  errors: 1,
  verified: 50,
  passed: 40,
  pass_rate: 0.8,
  latency_p95_ms: 120,
  mean_output_tokens: 9.5,
};

export function canary(overrides: Partial<Canary> = {}): Canary {
  return {
    id: 3,
    deployment: "sorter",
    production: PRODUCTION,
    candidate: CANDIDATE,
    mode: "split",
    steps: [5, 25, 50],
    step: 1,
    share: 25,
    state: "running",
    reason: "collecting: 12 of 40 verified requests on the candidate",
    guardrails: { min_samples: 40, max_samples: 400, max_pass_drop: 0.05, max_error_rate: 0.05, max_latency_p95_ratio: 1.5, max_length_ratio: 1.5, alpha: 0.05 },
    analysis: {
      outcome: "collecting",
      reason: "not enough verified requests yet",
      checks: [
        { name: "pass_rate", status: "pending", value: -0.02, limit: 0.05, detail: "12 of 40 samples" },
        { name: "error_rate", status: "pass", value: 0.01, limit: 0.05, detail: "1 of 60 failed" },
      ],
      pass_rate: { production: 0.8, candidate: 0.78, difference: -0.02, ci_low: -0.2, ci_high: 0.15, p_value: 0.8 },
      sides: { production: SIDE, candidate: { ...SIDE, requests: 20, verified: 12, passed: 9, pass_rate: 0.75 } },
    },
    history: [
      {
        step: 0,
        share: 5,
        outcome: "successful",
        reason: "the candidate held up at 5%",
        decided_by: null,
        at: "2026-01-01T00:10:00Z",
        started_at: "2026-01-01T00:00:00Z",
        analysis: {},
      },
    ],
    series: [
      { t: "2026-01-01T00:01:00Z", step: 0, share: 5, production_verified: 10, candidate_verified: 2, production: 0.8, candidate: null, ci_low: null, ci_high: null },
      { t: "2026-01-01T00:02:00Z", step: 0, share: 5, production_verified: 20, candidate_verified: 5, production: 0.8, candidate: 0.6, ci_low: -0.5, ci_high: 0.3 },
      { t: "2026-01-01T00:03:00Z", step: 1, share: 25, production_verified: 30, candidate_verified: 12, production: 0.8, candidate: 0.75, ci_low: -0.2, ci_high: 0.15 },
    ],
    revision: 4,
    shadow_dropped: 0,
    replica: null,
    created_by: "ada",
    created_at: "2026-01-01T00:00:00Z",
    finished_at: null,
    ...overrides,
  };
}

export function deployment(overrides: Partial<Deployment> = {}): Deployment {
  return {
    id: 5,
    team: "core",
    name: "Sorter",
    slug: "sorter",
    registered_model: 9,
    registered_model_name: "sorter",
    version: PRODUCTION,
    served_format: null,
    max_new_tokens: 32,
    temperature: 0,
    timeout_s: 30,
    max_queue: 64,
    max_batch: 8,
    stopped: false,
    status: "serving",
    replicas: [
      {
        id: 1,
        role: "production",
        state: "ready",
        version: PRODUCTION,
        worker: "gpu-1",
        message: "serving sorter v1",
        heartbeat_at: "2026-01-01T00:00:00Z",
        started_at: "2026-01-01T00:00:00Z",
        stopped_at: null,
        stale: false,
      },
    ],
    canary: null,
    created_by: "ada",
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    ...overrides,
  };
}

export function servedRequest(overrides: Partial<ServedRequest> = {}): ServedRequest {
  return {
    id: "00000000-0000-0000-0000-000000000001",
    canary: null,
    step: null,
    version: PRODUCTION,
    side: "production",
    shadow: false,
    key: "",
    prompt: "sort 3 1 2=",
    completion: "1 2 3",
    status: "ok",
    error: "",
    latency_ms: 41.6,
    output_tokens: 5,
    family: "digits",
    task: "abc",
    passed: true,
    reward: 1,
    verdict: null,
    judged_against: "pool",
    format_warnings: [],
    created_at: "2026-01-01T00:00:00Z",
    ...overrides,
  };
}

export function modelVersion(id: number, number: number) {
  return {
    id,
    team: "core",
    model: 9,
    model_name: "sorter",
    number,
    checkpoint: 10 + id,
    base_model: "",
    lineage: {},
    format: { chat_template: null, add_special_tokens: false, families: [] },
    aliases: number === 1 ? ["production"] : [],
    promotion: null,
    production_refusal: null,
    description: "",
    created_by: "ada",
    created_at: "2026-01-01T00:00:00Z",
  };
}
