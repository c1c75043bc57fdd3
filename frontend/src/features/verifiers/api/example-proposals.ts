// Responses proposed as labelled examples (from a run's flagged verdicts), and the decision on
// each. Flags and decisions arrive live as "verifier.*" events, which refetch ["verifiers"].
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";
import type { Paginated } from "@/lib/api-types";

import { verifierQueryKey } from "./get-verifier";
import { verifiersQueryKey } from "./get-verifiers";

export type ExampleProposal = components["schemas"]["ExampleProposal"];

export function proposalsQueryKey(verifierId: number) {
  return [...verifierQueryKey(verifierId), "proposals"] as const;
}

export function proposalsOptions(verifierId: number) {
  return queryOptions({
    queryKey: proposalsQueryKey(verifierId),
    queryFn: ({ signal }) =>
      api.get<Paginated<ExampleProposal>>("/api/v1/example-proposals/", { verifier: verifierId, page_size: 100 }, signal),
  });
}

export function useProposals(verifierId: number) {
  return useQuery(proposalsOptions(verifierId));
}

export type Decision = "accept" | "reject";

export function decideProposal(id: number, decision: Decision, note = ""): Promise<ExampleProposal> {
  return api.post<ExampleProposal>(`/api/v1/example-proposals/${id}/${decision}/`, { note });
}

/** Accepting adds a labelled example: the verifier's examples, counts and proposals refresh. */
export function useDecideProposal(verifierId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision }: { id: number; decision: Decision }) => decideProposal(id, decision),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: verifierQueryKey(verifierId) });
      void queryClient.invalidateQueries({ queryKey: [...verifiersQueryKey, "list"] });
    },
  });
}
