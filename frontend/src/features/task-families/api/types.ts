// The task-family endpoints' shapes, as the OpenAPI schema (generated from the API) defines them.
import type { components } from "@/api/schema";

type Schemas = components["schemas"];

export type Family = Schemas["Family"];
export type PoolVersion = Schemas["PoolVersion"];
export type PoolTask = Schemas["PoolTask"];
export type Split = Schemas["PoolTask"]["split"];
export type VersionSource = Schemas["PoolVersion"]["source"];
export type PoolJob = Schemas["PoolJob"];
export type JobStatus = Schemas["PoolJob"]["status"];
export type VersionDiff = Schemas["VersionDiff"];
export type DiffExample = Schemas["DiffExample"];
export type Removal = Schemas["Removal"];
export type FileSummary = Schemas["FileSummary"];
export type UploadChanges = Schemas["Changes"];
export type UploadMode = Schemas["ModeEnum"];
export type PromptMode = Schemas["PromptModeEnum"];

/** `{level: count}` */
export type LevelCounts = Schemas["PlannedVersion"]["difficulty_histogram"];
export type SplitHistogram = Schemas["SplitHistogram"];
export type DedupRemoved = Schemas["RemovedRow"];
export type DedupReport = Schemas["DedupReport"];

/** The part of JSON Schema a kind's params schema uses (the API types it as any object). */
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

/** The verifier spec a kind's tasks are judged by when no verifier is chosen. */
export type DefaultVerifier = Schemas["VerifierSpec"];
/** One layer of a kind's default verifier spec. */
export type DefaultVerifierLayer = DefaultVerifier["layers"][number];

export type FamilyKind = Omit<Schemas["FamilyKind"], "params_schema"> & { params_schema: JsonSchema };

export type GenerateInput = Omit<Schemas["GenerateRequest"], "note">;

export type PreviewSample = Schemas["TaskSample"];
export type FamilyPreview = Schemas["TasksPreview"];
/** What freezing an upload would make, counted against the latest version (`base`). */
export type UploadPreview = Schemas["UploadPreview"];

export const SOURCE_LABELS: Record<VersionSource, string> = {
  generator: "Generated",
  upload: "Upload",
  dataset: "Bundled dataset",
  edit: "Edit",
  grading: "Measured difficulty",
};

/** A version's JSON fields. */
export function histogramOf(version: Pick<PoolVersion, "difficulty_histogram">): SplitHistogram {
  return version.difficulty_histogram;
}
export function dedupOf(version: Pick<PoolVersion, "dedup">): DedupReport {
  return version.dedup;
}
export function diffOf(version: Pick<PoolVersion, "diff">): VersionDiff {
  return version.diff ?? {};
}
