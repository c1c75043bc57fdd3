// The curricula endpoints' shapes, as the OpenAPI schema (generated from the API) defines them.
import type { components } from "@/api/schema";

type Schemas = components["schemas"];

export type PoolVersion = Schemas["PoolVersion"];
export type Curriculum = Schemas["Curriculum"];
/** A saved config, as the API answers it. */
export type CurriculumConfig = Schemas["CurriculumConfig"];
/** A config as the API takes it: what the editor sends. */
export type CurriculumConfigInput = Schemas["CurriculumConfigRequest"];
export type FamilyEntryInput = Schemas["FamilyEntryRequest"];
export type Learner = Schemas["LearnerRequest"];
export type PreviewInput = Schemas["PreviewRequest"];
export type PreviewTrace = Schemas["PreviewTrace"];

/** The levels a version has train tasks at, ascending. */
export function trainLevels(version: PoolVersion): number[] {
  return Object.entries(version.difficulty_histogram.train)
    .filter(([, count]) => count > 0)
    .map(([level]) => Number(level))
    .sort((a, b) => a - b);
}
