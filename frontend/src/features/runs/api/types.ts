// The run endpoints' bodies, from the OpenAPI schema.
import type { components } from "@/api/schema";

export type Run = components["schemas"]["Run"];
export type RunListItem = components["schemas"]["RunList"];
export type RunState = Run["state"];
export type Checkpoint = components["schemas"]["Checkpoint"];
export type Rollout = components["schemas"]["Rollout"];
export type Comparison = components["schemas"]["Comparison"];
export type RunMetricsBody = components["schemas"]["RunMetrics"];

const ACTIVE: readonly string[] = ["queued", "running"];

/** Queued or running: its page keeps refreshing. */
export function isActive(run: Pick<Run, "state"> | undefined): boolean {
  return !!run && ACTIVE.includes(run.state);
}

export const runsQueryKey = ["runs"] as const;

export function runQueryKey(id: number) {
  return [...runsQueryKey, "detail", id] as const;
}
