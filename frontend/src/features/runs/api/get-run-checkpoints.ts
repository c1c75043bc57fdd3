import { queryOptions, useQuery } from "@tanstack/react-query";

import { getRunCheckpoints, runCheckpointsKey } from "@/lib/checkpoints";

export function runCheckpointsQueryOptions(id: number, active: boolean) {
  return queryOptions({
    queryKey: runCheckpointsKey(id),
    queryFn: ({ signal }) => getRunCheckpoints(id, signal),
    refetchInterval: active ? 10_000 : false,
  });
}

export function useRunCheckpoints(id: number, active: boolean) {
  return useQuery(runCheckpointsQueryOptions(id, active));
}
