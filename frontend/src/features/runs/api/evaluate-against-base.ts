// "Evaluate and compare with the base model": two evaluations on the same held-out sets (the
// experiment's evaluation suite, else the pool and verifier versions it trained on), one of
// the checkpoint and one of the experiment's base model, so a report can pair their tasks. The
// base model is evaluated in the format the checkpoint trained in (format_of_checkpoint), so
// the report compares the training and not a change of prompt format.
import { useMutation, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";

import type { Run } from "./types";

type Experiment = components["schemas"]["Experiment"];
type EvaluationInput = ApiRequestBody<"/api/v1/evaluations/", "post">;
/** A family without threshold_pts takes the server's default threshold. */
type Shared = Pick<EvaluationInput, "suite"> & { families?: Omit<NonNullable<EvaluationInput["families"]>[number], "threshold_pts">[] };
type EvaluationJob = components["schemas"]["EvaluationJob"];

export type PendingComparison = { candidate: EvaluationJob; baseline: EvaluationJob };

/** What both evaluations run on, from the experiment's frozen config. */
export function sharedEvaluation(config: Experiment["config"]): Shared {
  if (config.eval.suite != null) return { suite: config.eval.suite };
  return {
    families: config.curriculum.families.map((f) => ({ pool_version: f.pool_version, verifier_version: f.verifier_version })),
  };
}

export async function evaluateAgainstBase(run: Run, checkpoint: number): Promise<PendingComparison> {
  const experiment = await api.get<Experiment>(`/api/v1/experiments/${run.experiment}/`);
  const on = { team: run.team, ...sharedEvaluation(experiment.config) };
  const candidate = await api.post<EvaluationJob>("/api/v1/evaluations/", { ...on, checkpoint });
  const baseline = await api.post<EvaluationJob>("/api/v1/evaluations/", { ...on, model: experiment.config.model, format_of_checkpoint: checkpoint });
  return { candidate, baseline };
}

export function useEvaluateAgainstBase(run: Run) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (checkpoint: number) => evaluateAgainstBase(run, checkpoint),
    onSuccess: () => client.invalidateQueries({ queryKey: ["evaluation"] }),
  });
}
