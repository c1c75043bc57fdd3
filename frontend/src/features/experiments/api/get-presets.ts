import { queryOptions, useQuery } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

export type Preset = components["schemas"]["Preset"];

/** The named recipes (GRPO, Dr. GRPO, DAPO, PPO with GAE, RLOO, SFT, rejection sampling), each
 * value with what it is and why the recipe sets it. */
export function getPresets(signal?: AbortSignal): Promise<Preset[]> {
  return api.get<Preset[]>("/api/v1/algorithms/presets/", undefined, signal);
}

export function presetsQueryOptions() {
  return queryOptions({ queryKey: ["algorithms", "presets"], queryFn: ({ signal }) => getPresets(signal), staleTime: Infinity });
}

export function usePresets() {
  return useQuery(presetsQueryOptions());
}
