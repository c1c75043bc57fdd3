import { useMutation } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Spec, Verdict } from "../types";

export type PlaygroundInput = {
  spec: Spec;
  response: string;
  expected: Record<string, unknown>;
  context: Record<string, unknown>;
};

export function runPlayground(input: PlaygroundInput): Promise<Verdict> {
  return api.post<Verdict>("/api/v1/verifiers/playground/", input);
}

export function useRunPlayground() {
  return useMutation({ mutationFn: runPlayground });
}
