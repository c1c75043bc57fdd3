import type { TeamSummary } from "../api/get-team-summary";

export type FirstStep = { label: string; to: string; done: boolean };

/** The path from an empty team to its first training run, each step ticked once done. */
export function firstSteps(summary: TeamSummary): FirstStep[] {
  return [
    { label: "Create a task family", to: "/task-families", done: summary.families > 0 },
    { label: "Freeze a pool version", to: "/task-families", done: summary.pool_versions > 0 },
    { label: "Build a verifier", to: "/verifiers", done: summary.verifiers > 0 },
    { label: "Define a curriculum", to: "/curricula/new", done: summary.curricula > 0 },
  ];
}
