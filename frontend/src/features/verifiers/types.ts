// The verifier endpoints' shapes, as the OpenAPI schema (generated from the API) defines them.
import type { components } from "@/api/schema";

type Schemas = components["schemas"];
type SpecInput = Schemas["VerifierSpec"];

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
  /** An old name the server still accepts in stored specs; the form shows it only when set. */
  deprecated?: boolean;
};

/** A layer kind of the builder's catalogue; its params schema is a JSON Schema (the API types it as any object). */
export type LayerKind = Omit<Schemas["LayerKind"], "params_schema"> & { params_schema: JsonSchema };

export type Stage = LayerKind["stage"];

export const STAGES: Stage[] = ["syntax", "semantic", "boundary", "constraint", "judge"];

export type Extractor = Schemas["Extractor"];

export type VerifierKinds = Omit<Schemas["VerifierCatalogue"], "layers"> & { layers: LayerKind[] };

/**
 * A spec in its canonical form, every default filled in, as a saved version holds it and the builder
 * edits it: the API's spec with nothing left out, and a kind and an extractor named by the catalogue.
 */
export type LayerSpec = Required<Omit<SpecInput["layers"][number], "kind">> & { kind: string };

export type RewardSpec = Required<NonNullable<SpecInput["reward"]>>;

export type RewardPart = keyof RewardSpec["weights"];

export const REWARD_PARTS: RewardPart[] = ["outcome", "process", "constraint", "judge"];

/** Parts of a multi-turn episode: the share of its turns free of one per-turn error. */
export const TURN_PARTS: RewardPart[] = ["tool_format", "tool_success", "valid_moves"];

export type Spec = { extract: string; layers: LayerSpec[]; reward: RewardSpec };

export type SandboxStatus = Schemas["SandboxStatus"];

export type LayerVerdict = Schemas["LayerVerdict"];

export type Verdict = Schemas["Verdict"];

export type Misjudged = Schemas["Misjudged"];

export type Evaluation = Schemas["Evaluation"];

export type FamilyKind = Pick<Schemas["FamilyKind"], "name" | "label" | "description">;

/** One labelled example's P(yes) from the model judge alone, in example order. */
export type JudgeScore = Schemas["JudgeScore"];

/** The model judge's best yes-threshold on the labelled examples; `spec` (canonical) carries it. */
export type Calibration = Omit<Schemas["Calibration"], "spec"> & { spec: Spec };
