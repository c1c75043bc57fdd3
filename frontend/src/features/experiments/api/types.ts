// The experiment endpoints' bodies (and the inputs the wizard picks from), from the OpenAPI schema.
import type { components } from "@/api/schema";

type Schemas = components["schemas"];

export type Experiment = Schemas["Experiment"];
export type ExperimentConfig = Schemas["ExperimentConfig"];
export type ExperimentCurriculum = Schemas["ExperimentCurriculum"];
export type Diff = Schemas["Diff"];
export type RunListItem = Schemas["RunList"];
export type AvailableModels = Schemas["AvailableModels"];
export type Algorithm = Schemas["Algorithm"];
export type Hyperparameter = Schemas["Hyperparameter"];
export type SavedCurriculum = Schemas["Curriculum"];
export type PoolVersion = Schemas["PoolVersion"];
export type Family = Schemas["Family"];
export type Verifier = Schemas["Verifier"];
export type EvaluationSuite = Schemas["EvaluationSuite"];

export const experimentsQueryKey = ["experiments"] as const;

export function experimentQueryKey(id: number) {
  return [...experimentsQueryKey, "detail", id] as const;
}
