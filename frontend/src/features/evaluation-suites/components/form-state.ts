// The suite and evaluation forms' values as typed, and the bodies they send. Every check
// beyond "is something chosen" is the server's: its errors name the field (`families[0]
// .verifier_version`, `k`), which the forms show under that control.
import type { EvaluationSuite, FamilyChoice, SuiteInput } from "../api/types";

export type FamilyRow = { poolVersion: number | null; verifierVersion: number | null; threshold: string };

/** Evaluation settings as typed (text, so a half-typed number can sit in its field). */
export type Settings = { k: string; temperature: string; maxNewTokens: string; maxTasks: string; seed: string };

export type SuiteState = { name: string; description: string; families: FamilyRow[]; settings: Settings };

/** The evaluation job's defaults (experiments/services/evaluation.py Settings). */
export const DEFAULT_SETTINGS: Settings = { k: "4", temperature: "1", maxNewTokens: "16", maxTasks: "200", seed: "0" };
export const DEFAULT_THRESHOLD = "2";

export function newRow(poolVersion: number | null = null, verifierVersion: number | null = null): FamilyRow {
  return { poolVersion, verifierVersion, threshold: DEFAULT_THRESHOLD };
}

export function stateFromSuite(suite: EvaluationSuite | null | undefined): SuiteState {
  if (!suite) return { name: "", description: "", families: [newRow()], settings: { ...DEFAULT_SETTINGS } };
  return {
    name: suite.name,
    description: suite.description,
    families: suite.families.map((f) => ({
      poolVersion: f.pool_version,
      verifierVersion: f.verifier_version,
      threshold: String(f.threshold_pts),
    })),
    settings: {
      k: String(suite.k),
      temperature: String(suite.temperature),
      maxNewTokens: String(suite.max_new_tokens),
      maxTasks: String(suite.max_tasks),
      seed: String(suite.seed),
    },
  };
}

/** A number when the text is one; otherwise the text as typed, so the server names the field
 * and says what it must be (the generated types say number: the API is the judge). */
function number(text: string): number {
  const value = Number(text.trim());
  return (text.trim() !== "" && Number.isFinite(value) ? value : text) as number;
}

export function familiesBody(rows: FamilyRow[]): FamilyChoice[] {
  return rows.map((row) => ({
    pool_version: row.poolVersion as number,
    verifier_version: row.verifierVersion as number,
    threshold_pts: number(row.threshold),
  }));
}

export function settingsBody(settings: Settings) {
  return {
    k: number(settings.k),
    temperature: number(settings.temperature),
    max_new_tokens: number(settings.maxNewTokens),
    max_tasks: number(settings.maxTasks),
    seed: number(settings.seed),
  };
}

export function suiteBody(state: SuiteState): SuiteInput {
  return {
    name: state.name.trim(),
    description: state.description.trim(),
    families: familiesBody(state.families),
    ...settingsBody(state.settings),
  };
}

/** Paths the family rows and settings show an error under. */
export function shownFamilyOrSetting(path: string): boolean {
  return /^families(\[\d+\]\.(pool_version|verifier_version|threshold_pts))?$/.test(path) || SETTING_FIELDS.has(path);
}

const SETTING_FIELDS = new Set(["k", "temperature", "max_new_tokens", "max_tasks", "seed"]);

/** Whether every row has its pool version and verifier chosen. */
export function familiesChosen(rows: FamilyRow[]): boolean {
  return rows.length > 0 && rows.every((r) => r.poolVersion !== null && r.verifierVersion !== null);
}
