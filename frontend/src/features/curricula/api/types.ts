// The curriculum config and the preview trace, which the OpenAPI schema leaves as free JSON.
import type { components } from "@/api/schema";

export type PoolVersion = components["schemas"]["PoolVersion"];

export type FamilyEntry = {
  /** A pool version id. */
  version: number;
  weight?: number;
  /** Train levels to sample; all the version's train levels when absent. */
  levels?: number[];
  /** Starting probability per level, in the order of `levels`. */
  initial?: number[];
};

export type CurriculumConfig = {
  families: FamilyEntry[];
  band?: [number, number];
  floor?: number;
  window?: number;
  step?: number;
  dynamic?: boolean;
};

export type Curriculum = Omit<components["schemas"]["Curriculum"], "config"> & { config: CurriculumConfig };

export type Learner = { ability: number; slope: number; learning_rate: number };

export type PreviewInput = { config: CurriculumConfig; steps: number; batch: number; seed: number; learner: Learner };

export type TraceStep = {
  step: number;
  distribution: Record<string, number[]>;
  success_rate: Record<string, number>;
  rolling_success: Record<string, number | null>;
  ability: Record<string, number>;
};

export type PreviewTrace = {
  band: [number, number];
  floor: number;
  levels: Record<string, number[]>;
  steps: TraceStep[];
  in_band: Record<string, number>;
};

/** The levels a version has train tasks at, ascending. */
export function trainLevels(version: PoolVersion): number[] {
  const histogram = (version.difficulty_histogram ?? {}) as { train?: Record<string, number> };
  return Object.entries(histogram.train ?? {})
    .filter(([, count]) => count > 0)
    .map(([level]) => Number(level))
    .sort((a, b) => a - b);
}
