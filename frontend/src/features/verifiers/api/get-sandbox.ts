import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { SandboxStatus } from "../types";
import { verifiersQueryKey } from "./get-verifiers";

export function getSandbox(signal?: AbortSignal): Promise<SandboxStatus> {
  return api.get<SandboxStatus>("/api/v1/sandbox/", undefined, signal);
}

export function sandboxQueryOptions() {
  return queryOptions({
    queryKey: [...verifiersQueryKey, "sandbox"],
    queryFn: ({ signal }) => getSandbox(signal),
    staleTime: 60_000,
  });
}

export function useSandbox() {
  return useQuery(sandboxQueryOptions());
}
