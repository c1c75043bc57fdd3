// The experiment endpoints' bodies (and the inputs the wizard picks from), from the OpenAPI schema.
import type { components } from "@/api/schema";

type Schemas = components["schemas"];

export type Experiment = Schemas["Experiment"];
export type ExperimentConfig = Schemas["ExperimentConfig"];
export type ExperimentCurriculum = Schemas["ExperimentCurriculum"];

/** A body as a form sends it: a field with a default may be left out (the generated types
 * mark such fields as always present, as they are in a response), and a number may be the text
 * typed when it is not one, or null while nothing is chosen, so that the server names the field
 * in its answer. */
type AsSent<T> = T extends number
  ? number | string | null
  : T extends (infer Item)[]
    ? AsSent<Item>[]
    : T extends object
      ? { [K in keyof T]?: AsSent<T[K]> }
      : T;

type ConfigBody = Schemas["ExperimentConfigInputRequest"];

/** The configuration a new experiment (or a pre-flight) is sent, as the API's schema types it
 * from the config's dataclasses: the curriculum and the model are required. */
export type ExperimentConfigInput = AsSent<ConfigBody> & { curriculum: AsSent<ConfigBody["curriculum"]>; model: string };
export type CurriculumInput = ExperimentConfigInput["curriculum"];
export type HyperparametersInput = NonNullable<ExperimentConfigInput["hyperparameters"]>;
export type EvalInput = NonNullable<ExperimentConfigInput["eval"]>;
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
