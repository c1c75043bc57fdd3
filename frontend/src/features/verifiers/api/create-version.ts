import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Spec } from "../types";
import { verifierQueryKey } from "./get-verifier";
import { verifiersQueryKey, type Verifier, type VerifierVersion } from "./get-verifiers";

export type CreateVersionInput = { spec: Spec; note: string };
/** `created` is false when the spec means the same as the latest version: the server hands that one back. */
export type CreateVersionResult = { version: VerifierVersion; created: boolean };

export async function createVersion(
  id: number,
  input: CreateVersionInput,
  latestNumber: number | null,
): Promise<CreateVersionResult> {
  const version = await api.post<VerifierVersion>(`/api/v1/verifiers/${id}/versions/`, input);
  return { version, created: latestNumber === null || version.number > latestNumber };
}

export function useCreateVersion(id: number, latestNumber: number | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateVersionInput) => createVersion(id, input, latestNumber),
    onSuccess: ({ version, created }) => {
      // Known at once, so a second save right after compares against this version.
      if (created) {
        queryClient.setQueryData<Verifier>(verifierQueryKey(id), (old) =>
          old ? { ...old, latest_version: version, version_count: old.version_count + 1 } : old,
        );
      }
      void queryClient.invalidateQueries({ queryKey: verifierQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: [...verifiersQueryKey, "list"] });
    },
  });
}
