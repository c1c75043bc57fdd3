// Pure helpers of the deployment and canary pages: words for states, the steps input,
// percentages, verdicts and the pass-rate difference in words.
import type { CanaryMode, CanaryState, PassRate } from "../api/types";

/** "awaiting_decision" → "awaiting decision", "rolled_back" → "rolled back". */
export function stateWords(state: string): string {
  return state.replace(/_/g, " ");
}

const FINISHED: ReadonlySet<string> = new Set<CanaryState>(["promoted", "rolled_back", "cancelled"]);

export function isFinished(state: string): boolean {
  return FINISHED.has(state);
}

/** The badge colour of a canary's state. */
export function canaryTone(state: string): "success" | "danger" | "accent" | "warning" | "muted" {
  switch (state) {
    case "promoted":
      return "success";
    case "rolled_back":
      return "danger";
    case "running":
      return "accent";
    case "awaiting_decision":
    case "paused":
      return "warning";
    default:
      return "muted";
  }
}

/** The badge colour of a deployment's status: serving, starting, down or stopped. */
export function statusTone(status: string): "success" | "danger" | "accent" | "warning" | "muted" {
  switch (status) {
    case "serving":
      return "success";
    case "starting":
      return "accent";
    case "down":
      return "danger";
    default:
      return "muted";
  }
}

export const DEFAULT_SPLIT_STEPS = "5, 25, 50";
export const DEFAULT_SHADOW_STEPS = "100";

export function defaultSteps(mode: CanaryMode): string {
  return mode === "shadow" ? DEFAULT_SHADOW_STEPS : DEFAULT_SPLIT_STEPS;
}

/**
 * The steps input ("5, 25, 50", "5 25 50%") as whole percentages, rising, each 1 to 100;
 * or the reason it is not.
 */
export function parseSteps(text: string): { steps: number[]; error?: undefined } | { steps?: undefined; error: string } {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.replace(/%$/, ""))
    .filter((p) => p !== "");
  if (parts.length === 0) return { error: "Give at least one step, e.g. 5, 25, 50." };
  const steps: number[] = [];
  for (const part of parts) {
    if (!/^\d+$/.test(part)) return { error: `"${part}" is not a whole percentage.` };
    const value = Number(part);
    if (value < 1 || value > 100) return { error: `${value}% is not between 1 and 100.` };
    if (steps.length > 0 && value <= steps[steps.length - 1]!) return { error: "Steps must rise: each share above the one before." };
    steps.push(value);
  }
  return { steps };
}

/** The steps a canary carries (untyped in the schema) as numbers. */
export function stepShares(steps: unknown): number[] {
  return Array.isArray(steps) ? steps.filter((s): s is number => typeof s === "number") : [];
}

export type StepStatus = "passed" | "current" | "upcoming";

/**
 * Each step's status: those before the current one passed; the current one is "current"
 * (a promoted canary passed them all).
 */
export function stepStatuses(steps: number[], current: number, state: string): StepStatus[] {
  return steps.map((_, i) => {
    if (state === "promoted" || i < current) return "passed";
    return i === current ? "current" : "upcoming";
  });
}

/** A rate between 0 and 1 as "73%" (or "73.4%" with digits); a dash for none. */
export function formatRate(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return `${(value * 100).toFixed(digits)}%`;
}

/** A share that is a percentage already (the canary's 5, 25, 50) as "25%". */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return "—";
  return `${Number(share.toFixed(1))}%`;
}

export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return `${Math.round(value)} ms`;
}

export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/** A verdict as a mark and its words: ✓ passed, ✗ failed, – none (nothing was verified). */
export function verdict(passed: boolean | null | undefined): { mark: string; words: string } {
  if (passed === true) return { mark: "✓", words: "passed" };
  if (passed === false) return { mark: "✗", words: "failed" };
  return { mark: "–", words: "none" };
}

export function truncate(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A difference of rates in percentage points with its sign: "+3.0 pts", "−2.5 pts". */
export function formatPoints(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const points = value * 100;
  const sign = points > 0 ? "+" : points < 0 ? "−" : "±";
  return `${sign}${Math.abs(points).toFixed(1)} pts`;
}

/** The candidate's pass rate minus production's, with its confidence interval, in words. */
export function differenceText(rate: PassRate | undefined): string {
  if (!rate || rate.difference === null || rate.difference === undefined) {
    return "Candidate − production: not enough verified requests yet.";
  }
  const ci =
    rate.ci_low !== null && rate.ci_high !== null && rate.ci_low !== undefined && rate.ci_high !== undefined
      ? `, confidence interval ${formatPoints(rate.ci_low)} to ${formatPoints(rate.ci_high)}`
      : "";
  const p = rate.p_value !== null && rate.p_value !== undefined ? `, p = ${rate.p_value.toPrecision(2)}` : "";
  return `Candidate − production: ${formatPoints(rate.difference)}${ci}${p}.`;
}

/** A guardrail check's value or limit: ratios and rates as they come, rounded. */
export function formatCheckValue(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return Number(value.toPrecision(3)).toString();
}

/** A name as a slug: "Sorter (prod)" → "sorter-prod". */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50);
}
