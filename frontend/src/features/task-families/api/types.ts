// Shapes the OpenAPI schema leaves open (JSON fields and undocumented responses),
// written down from what the API returns.
import type { components } from "@/api/schema";

export type Family = components["schemas"]["Family"];
export type PoolVersion = components["schemas"]["PoolVersion"];
export type PoolTask = components["schemas"]["PoolTask"];
export type Split = components["schemas"]["SplitEnum"];
export type VersionSource = components["schemas"]["SourceEnum"];
export type PoolJob = components["schemas"]["PoolJob"];
export type JobStatus = components["schemas"]["StatusEnum"];

/** `{level: count}` */
export type LevelCounts = Record<string, number>;
export type SplitHistogram = { train?: LevelCounts; held_out?: LevelCounts };

export type DedupRemoved = { row: number; duplicate_of: number; kind: "exact" | "near" | string; similarity: number };
export type DedupReport = {
  total?: number;
  kept?: number;
  exact_duplicates?: number;
  near_duplicates?: number;
  removed?: DedupRemoved[];
};

export type VersionDiff = {
  /** The parent version's number. */
  against?: number;
  added?: number;
  removed?: number;
  unchanged?: number;
  added_examples?: string[];
  removed_examples?: string[];
};

export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  required?: string[];
};

export type FamilyKind = {
  name: string;
  label: string;
  description: string;
  difficulty_levels: number[];
  prompt_template: string;
  params_schema: JsonSchema;
  procedural: boolean;
  importable: boolean;
  record_fields: string[];
};

export type GenerateInput = { counts: Record<string, number>; seed: number; near_duplicates: boolean };

export type PreviewSample = {
  prompt: string;
  expected: unknown;
  difficulty: number;
  split: Split;
  content_hash: string;
  source_id?: string;
};

export type FamilyPreview = {
  rows_read: number;
  dedup: DedupReport;
  version: {
    content_hash: string;
    task_count: number;
    train_count: number;
    held_out_count: number;
    /** Preview counts all tasks per level, without the split. */
    difficulty_histogram: LevelCounts | SplitHistogram;
  };
  samples: PreviewSample[];
};

export const SOURCE_LABELS: Record<VersionSource, string> = {
  generator: "Generated",
  upload: "Upload",
  dataset: "Bundled dataset",
  edit: "Edit",
  grading: "Measured difficulty",
};

/** Typed views of a version's JSON fields. */
export function histogramOf(version: Pick<PoolVersion, "difficulty_histogram">): SplitHistogram {
  return (version.difficulty_histogram ?? {}) as SplitHistogram;
}
export function dedupOf(version: Pick<PoolVersion, "dedup">): DedupReport {
  return (version.dedup ?? {}) as DedupReport;
}
export function diffOf(version: Pick<PoolVersion, "diff">): VersionDiff {
  return (version.diff ?? {}) as VersionDiff;
}
