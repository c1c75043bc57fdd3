import { describe, expect, it } from "vitest";

import type { EvaluationJob } from "../api/evaluations";
import { comparable, evaluationLabel } from "./compatible";

function job(id: number, versions: number[]): EvaluationJob {
  const families = versions.map((v) => ({ family: `f${v}`, pool_version: v, version_number: 1, verifier_version: 1, threshold_pts: 2 }));
  return { id, subject: `model ${id}`, families } as EvaluationJob;
}

describe("comparable", () => {
  it("pairs evaluations that share a pool version, never one with itself", () => {
    expect(comparable(job(1, [3, 4]), job(2, [4]))).toBe(true);
    expect(comparable(job(1, [3]), job(2, [5]))).toBe(false);
    expect(comparable(job(1, [3]), job(1, [3]))).toBe(false);
  });

  it("labels an evaluation by id, subject and families", () => {
    expect(evaluationLabel(job(7, [3]))).toBe("#7 model 7 — f3 v1");
  });
});
