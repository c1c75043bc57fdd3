// Canned API replies shared by this feature's tests.
import type { Family } from "@/lib/families";

import type { Example } from "./api/get-examples";
import type { PoolTask } from "./api/get-pool-tasks";
import type { PoolVersion } from "./api/get-pool-versions";
import type { Verifier, VerifierVersion } from "./api/get-verifiers";
import type { Calibration, Evaluation, SandboxStatus, Verdict, VerifierKinds } from "./types";

export const KINDS: VerifierKinds = {
  layers: [
    {
      kind: "python_ast",
      stage: "syntax",
      description: "The code parses as Python.",
      biased: false,
      params_schema: { type: "object", properties: { require_entry_point: { type: "boolean", default: true } } },
    },
    {
      kind: "unit_tests",
      stage: "semantic",
      description: "Runs the tests in the sandbox.",
      biased: false,
      params_schema: {
        type: "object",
        properties: {
          timeout: { type: "number", minimum: 0.1, maximum: 120, default: 5 },
          memory_mb: { type: "integer", minimum: 16, default: 256 },
        },
      },
    },
    {
      kind: "numeric_match",
      stage: "semantic",
      description: 'The number equals expected["answer"] within abs_tol or rel_tol.',
      biased: false,
      params_schema: {
        type: "object",
        properties: {
          abs_tol: { type: "number", minimum: 0, default: 1e-6 },
          rel_tol: { type: "number", minimum: 0, default: 0 },
          lenient: { type: "boolean", default: true },
        },
      },
    },
    {
      kind: "forbidden",
      stage: "constraint",
      description: "No forbidden pattern or import; checks the whole response unless scope is answer.",
      biased: false,
      params_schema: {
        type: "object",
        properties: {
          patterns: { type: "array", items: { type: "string" } },
          imports: { type: "array", items: { type: "string" } },
          scope: { enum: ["response", "answer"], default: "response" },
          target: { enum: ["response", "extracted"], deprecated: true },
        },
      },
    },
    {
      kind: "model_judge",
      stage: "judge",
      description: "A local causal LM answers yes/no. Biased.",
      biased: true,
      params_schema: {
        type: "object",
        properties: { model_path: { type: "string", minLength: 1 } },
        required: ["model_path"],
      },
    },
  ],
  extractors: [
    { name: "full_text", description: "The whole response, stripped." },
    { name: "python_block", description: "The first ```python block." },
  ],
};

export const SANDBOX: SandboxStatus = {
  namespaces: { pid: true, mount: true, network: true, ipc: true, uts: true },
  readonly_root: true,
  seccomp: true,
  cgroups: true,
  cgroup_controllers: ["memory", "pids"],
  uid: 65534,
  rlimits: true,
  empty_env: true,
  prefork: true,
  warnings: [],
};

export const SPEC_V1 = {
  extract: "python_block",
  layers: [
    { kind: "python_ast", name: "parses", params: { require_entry_point: true }, continue_on_fail: false },
    { kind: "unit_tests", name: "tests", params: { timeout: 5, memory_mb: 256 }, continue_on_fail: false },
  ],
  reward: { weights: { outcome: 0.7, process: 0.3, constraint: 0, judge: 0 }, failure_reward: 0 },
};

export function versionOf(number: number, spec: unknown = SPEC_V1, note = "initial version") {
  return {
    id: number,
    verifier: 1,
    number,
    spec: spec as VerifierVersion["spec"],
    spec_hash: `${number}`.repeat(64).slice(0, 64),
    warnings: [] as string[],
    note,
    created_by: "ada",
    created_at: "2026-01-02T10:00:00Z",
  };
}

export const VERIFIER: Verifier = {
  id: 1,
  team: "core",
  name: "Py fn",
  slug: "py-fn",
  description: "",
  family_kind: "python-function",
  latest_version: versionOf(1),
  version_count: 1,
  example_count: 2,
  created_at: "2026-01-01T10:00:00Z",
  updated_at: "2026-01-01T10:00:00Z",
};

export const VERDICT: Verdict = {
  passed: false,
  reward: 0,
  parts: { outcome: 0, process: 0.5, constraint: 1 },
  error_type: "wrong_answer",
  extracted: "def add(a, b):\n    return a - b",
  layers: [
    { name: "extract", kind: "extract", stage: "syntax", passed: true, score: 1, error_type: "none", detail: "", seconds: 0.00003, skipped: false, biased: false, info: {} },
    { name: "parses", kind: "python_ast", stage: "syntax", passed: true, score: 1, error_type: "none", detail: "", seconds: 0.0001, skipped: false, biased: false, info: {} },
    { name: "tests", kind: "unit_tests", stage: "semantic", passed: false, score: 0.5, error_type: "wrong_answer", detail: "line 2: AssertionError", seconds: 0.0124, skipped: false, biased: false, info: { status: "failed", tests_passed: 1, tests_total: 2 } },
    { name: "hidden_tests", kind: "hidden_tests", stage: "boundary", passed: false, score: 0, error_type: "none", detail: "skipped: 'tests' failed", seconds: 0, skipped: true, biased: false, info: {} },
  ],
  seconds: 0.0126,
  spec_hash: "a".repeat(64),
};

export const EXAMPLES: Example[] = [
  { id: 11, response: "```python\ndef add(a, b):\n    return a + b\n```", expected: { entry_point: "add" }, label: "good", note: "correct", messages: null, turn: null, created_at: "2026-01-02T10:00:00Z" },
  { id: 12, response: "```python\ndef add(a, b):\n    return 3\n```", expected: { entry_point: "add" }, label: "bad", note: "hard-coded", messages: null, turn: null, created_at: "2026-01-02T10:00:00Z" },
];

export const EVALUATION: Evaluation = {
  examples: 4,
  total: 4,
  good: 2,
  bad: 2,
  true_positives: 2,
  true_negatives: 1,
  false_positives: 1,
  false_negatives: 0,
  false_positive_rate: 0.5,
  false_negative_rate: 0,
  accuracy: 0.75,
  error_types: { wrong_answer: 1 },
  misjudged: [{ index: 1, example_id: 12, label: "bad", passed: true, reward: 1, error_type: "none", layer: null, detail: "" }],
  spec_hash: "1".repeat(64),
  version: 1,
};

const JUDGE = { kind: "model_judge", name: "judge", params: { model_path: "/models/judge" }, continue_on_fail: true };

export const SPEC_JUDGE = { ...SPEC_V1, layers: [...SPEC_V1.layers, JUDGE] };

export const CALIBRATION: Calibration = {
  layer: "judge",
  threshold: 0.615,
  total: 4,
  good: 2,
  bad: 2,
  true_positives: 2,
  true_negatives: 1,
  false_positives: 1,
  false_negatives: 0,
  false_positive_rate: 0.5,
  false_negative_rate: 0,
  accuracy: 0.75,
  scores: [
    { index: 0, label: "good", p_yes: 0.91 },
    { index: 1, label: "bad", p_yes: 0.72 },
    { index: 2, label: "good", p_yes: 0.66 },
    { index: 3, label: "bad", p_yes: 0.2 },
  ],
  spec: {
    ...SPEC_JUDGE,
    layers: [...SPEC_V1.layers, { ...JUDGE, params: { ...JUDGE.params, threshold: 0.615 } }],
  },
  version: 1,
  examples: 4,
};

// A team's pool, for loading a real task into the playground.
export const POOL_FAMILY = {
  id: 7,
  team: "core",
  name: "HumanEval",
  kind: "python-function",
  version_count: 1,
} as Family;

export const POOL_VERSION = {
  id: 70,
  family: 7,
  family_slug: "humaneval",
  number: 3,
  task_count: 3,
  train_count: 2,
  held_out_count: 1,
} as PoolVersion;

function poolTask(position: number, entryPoint: string): PoolTask {
  return {
    id: 700 + position,
    position,
    content_hash: `${position}`.repeat(64),
    prompt: `Complete the function ${entryPoint}.`,
    expected: { entry_point: entryPoint, tests: `def check(candidate):\n    assert candidate(1) == ${position}\n` },
    difficulty: position + 1,
    split: "train",
    source_id: `HumanEval/${position}`,
    meta: {},
  };
}

export const POOL_TASKS: PoolTask[] = [poolTask(0, "first"), poolTask(1, "second"), poolTask(2, "third")];
