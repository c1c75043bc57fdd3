import type { EvaluationJob } from "../api/evaluations";

/** The pool versions an evaluation sampled its held-out tasks from. */
function poolVersions(job: EvaluationJob): Set<number> {
  return new Set(job.families.map((f) => f.pool_version));
}

/** Whether a report can compare ``candidate`` with ``baseline``: another evaluation that
 * sampled at least one of the same pool versions (a report pairs the tasks both evaluated). */
export function comparable(candidate: EvaluationJob, baseline: EvaluationJob): boolean {
  if (candidate.id === baseline.id) return false;
  const shared = poolVersions(candidate);
  return [...poolVersions(baseline)].some((v) => shared.has(v));
}

/** "#3 sort run 1, step 40 — add v2, digits v1". */
export function evaluationLabel(job: EvaluationJob): string {
  const families = job.families.map((f) => `${f.family} v${f.version_number}`).join(", ");
  return `#${job.id} ${job.subject} — ${families}`;
}
