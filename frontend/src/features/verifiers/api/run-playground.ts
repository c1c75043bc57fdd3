import { useMutation } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Spec, Verdict } from "../types";

/** The spec to run: the builder's draft inline, or a saved version by its id. */
export type PlaygroundSpec = { spec: Spec } | { verifier_version: number };

/** What to judge, against inline `expected` data or a pool `task`'s (by id). */
export type PlaygroundInput = PlaygroundSpec & {
  response: string;
  expected?: Record<string, unknown>;
  task?: number;
  context?: Record<string, unknown>;
};

export function runPlayground(input: PlaygroundInput): Promise<Verdict> {
  return api.post<Verdict>("/api/v1/verifiers/playground/", input);
}

export function useRunPlayground() {
  return useMutation({ mutationFn: runPlayground });
}
