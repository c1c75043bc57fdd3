// The evaluation-suite and evaluation endpoints' shapes, as the OpenAPI schema defines them.
import type { components } from "@/api/schema";

type Schemas = components["schemas"];

export type EvaluationSuite = Schemas["EvaluationSuite"];
/** What the suite form sends: name, description, families and settings. */
export type SuiteInput = Schemas["EvaluationSuiteWriteRequest"];
/** A change: only what is sent changes (a suite in use takes only a name and description). */
export type SuitePatch = Schemas["PatchedEvaluationSuiteWriteRequest"];
export type FamilyChoice = Schemas["FamilyChoiceRequest"];
export type EvaluationJob = Schemas["EvaluationJob"];
/** A new evaluation: a checkpoint or a base model, and a suite or families with settings. */
export type EvaluationInput = Schemas["EvaluationCreateRequest"];
export type PoolVersion = Schemas["PoolVersion"];
export type Verifier = Schemas["Verifier"];
