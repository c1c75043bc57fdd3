import type { EvaluationJob } from "../api/evaluations";

/** A finished evaluation of the core team on the given pool versions (families f<version>). */
export function evaluationJob(id: number, subject: string, versions: number[], state: EvaluationJob["state"] = "succeeded"): EvaluationJob {
  return {
    id, team: "core", checkpoint: null, model: "tiny", subject, suite: null,
    families: versions.map((v) => ({ family: `f${v}`, pool_version: v, version_number: 1, verifier_version: 1, threshold_pts: 2 })),
    k: 4, temperature: 1, max_new_tokens: 8, max_tasks: 50, seed: 0,
    prompt_format: { kind: "raw", system_prompt: null, reasoning_tags: ["<think>", "</think>"] }, state, progress: state === "succeeded" ? 1 : 0.4,
    message: state === "succeeded" ? "50/50 tasks sampled and verified" : "20/50 tasks sampled and verified",
    attempts: 1, tasks: 50, created_by: "ada", created_at: "2026-01-01T00:00:00Z",
    started_at: "2026-01-01T00:00:00Z", finished_at: state === "succeeded" ? "2026-01-01T00:05:00Z" : null,
  };
}

export const REPORT_ROW = {
  id: 12, team: "core", candidate: 2, baseline: 1, candidate_subject: "sort run 3, step 40", baseline_subject: "tiny",
  lineage: "sort run 3, step 40 vs tiny", version: 1, headline: "no family regressed; improved: f3", state: "draft" as const,
  created_by: "ada", created_at: "2026-01-02T00:00:00Z", submitted_at: null, decided_at: null,
};
