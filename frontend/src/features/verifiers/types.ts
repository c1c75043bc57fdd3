// Shapes the verifier endpoints return that the OpenAPI schema leaves untyped
// (the spec is free-form JSON there; kinds, sandbox, verdicts and evaluations have no schema).

export type Stage = "syntax" | "semantic" | "boundary" | "constraint" | "judge";

export const STAGES: Stage[] = ["syntax", "semantic", "boundary", "constraint", "judge"];

export type LayerSpec = {
  kind: string;
  name: string;
  params: Record<string, unknown>;
  continue_on_fail: boolean;
};

export type RewardPart = "outcome" | "process" | "constraint" | "judge";

export const REWARD_PARTS: RewardPart[] = ["outcome", "process", "constraint", "judge"];

export type RewardSpec = {
  weights: Partial<Record<RewardPart, number>>;
  failure_reward: number;
};

export type Spec = {
  extract: string;
  layers: LayerSpec[];
  reward: RewardSpec;
};

/** A subset of JSON Schema: what layer kinds use to describe their params. */
export type JsonSchema = {
  type?: string;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
};

export type LayerKind = {
  kind: string;
  stage: Stage;
  description: string;
  biased: boolean;
  params_schema: JsonSchema;
};

export type Extractor = { name: string; description: string };

export type VerifierKinds = { layers: LayerKind[]; extractors: Extractor[] };

export type SandboxStatus = {
  namespaces: Record<string, boolean>;
  readonly_root: boolean;
  seccomp: boolean;
  cgroups: boolean;
  cgroup_controllers: string[];
  uid: number | null;
  rlimits: boolean;
  empty_env: boolean;
  prefork: boolean;
  warnings: string[];
};

export type LayerVerdict = {
  name: string;
  kind: string;
  stage: Stage;
  passed: boolean;
  score: number;
  error_type: string;
  detail: string;
  seconds: number;
  skipped: boolean;
  biased: boolean;
  info: Record<string, unknown>;
};

export type Verdict = {
  passed: boolean;
  reward: number;
  parts: Partial<Record<RewardPart, number>>;
  error_type: string;
  extracted: string | null;
  layers: LayerVerdict[];
  seconds: number;
  spec_hash: string;
};

export type Misjudged = {
  index: number;
  example_id: number;
  label: "good" | "bad";
  passed: boolean;
  reward: number;
  error_type: string;
  layer: string | null;
  detail: string;
};

export type Evaluation = {
  examples: number;
  good: number;
  bad: number;
  true_positives: number;
  true_negatives: number;
  false_positives: number;
  false_negatives: number;
  false_positive_rate: number | null;
  false_negative_rate: number | null;
  accuracy: number | null;
  error_types: Record<string, number>;
  misjudged: Misjudged[];
  spec_hash: string;
  version: number;
};

export type FamilyKind = { name: string; label: string; description: string };

/** One labelled example's P(yes) from the model judge alone, in example order. */
export type JudgeScore = { index: number; label: "good" | "bad"; p_yes: number };

/** The model judge's best yes-threshold on the labelled examples; `spec` carries it. */
export type Calibration = {
  layer: string;
  threshold: number;
  false_positives: number;
  false_negatives: number;
  false_positive_rate: number | null;
  false_negative_rate: number | null;
  accuracy: number | null;
  scores: JudgeScore[];
  spec: Spec;
  version: number;
  examples: number;
};
