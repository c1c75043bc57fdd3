// The editor's form state for a curriculum config, and the conversions to and from the API's JSON,
// whose fields the generated types define (the compiler checks below that the form has them all).
import type { CurriculumConfig, CurriculumConfigInput, FamilyEntryInput } from "../api/types";

type Policy = Omit<CurriculumConfigInput, "families">;

/** What the API stores for a knob a config leaves out (its schema documents the same defaults). */
export const POLICY_DEFAULTS: Required<Omit<Policy, "band">> & { band: [number, number] } = {
  band: [0.3, 0.7],
  floor: 0.05,
  window: 64,
  step: 0.2,
  dynamic: true,
};

const POLICY_FIELDS = ["band", "floor", "window", "step", "dynamic"] as const satisfies readonly (keyof Policy)[];
const FAMILY_FIELDS = ["version", "weight", "levels", "initial"] as const satisfies readonly (keyof FamilyEntryInput)[];
// A field the API adds to the config fails to compile here until the form has a place for it.
type Unplaced<T, Placed extends readonly unknown[]> = Exclude<keyof T, Placed[number]>;
const everyFieldPlaced: [Unplaced<Policy, typeof POLICY_FIELDS>, Unplaced<FamilyEntryInput, typeof FAMILY_FIELDS>] extends [never, never]
  ? true
  : never = true;
void everyFieldPlaced;

const SHOWN_PATHS = new Set<string>([
  "config.families",
  "config.families[]",
  ...FAMILY_FIELDS.map((field) => `config.families[].${field}`),
  ...POLICY_FIELDS.map((field) => `config.${field}`),
  "config.band[]",
]);

/** Whether the form shows an error on this field path (`config.families[2].weight`) by its field. */
export function shownConfigField(path: string): boolean {
  return SHOWN_PATHS.has(path.replace(/\[\d+\]/g, "[]"));
}

export type EntryState = {
  key: number;
  version: number | null;
  weight: string;
  /** null: all the version's train levels. */
  levels: number[] | null;
  /** null: the policy's default start. One value per chosen level, as text. */
  initial: string[] | null;
};

export type ConfigState = {
  families: EntryState[];
  bandLow: string;
  bandHigh: string;
  floor: string;
  window: string;
  step: string;
  dynamic: boolean;
};

let nextKey = 1;

export function newEntry(version: number | null): EntryState {
  return { key: nextKey++, version, weight: "1", levels: null, initial: null };
}

/** A config's band as [low, high] (the schema's list of two; the default where a config has none). */
export function bandOf(config: Pick<CurriculumConfig, "band"> | undefined): [number, number] {
  const [low, high] = POLICY_DEFAULTS.band;
  return [config?.band?.[0] ?? low, config?.band?.[1] ?? high];
}

export function stateFromConfig(config: CurriculumConfig | undefined): ConfigState {
  const [low, high] = bandOf(config);
  return {
    families: (config?.families ?? []).map((f) => ({
      key: nextKey++,
      version: f.version,
      weight: String(f.weight ?? 1),
      levels: f.levels ?? null,
      initial: f.initial ? f.initial.map(String) : null,
    })),
    bandLow: String(low),
    bandHigh: String(high),
    floor: String(config?.floor ?? POLICY_DEFAULTS.floor),
    window: String(config?.window ?? POLICY_DEFAULTS.window),
    step: String(config?.step ?? POLICY_DEFAULTS.step),
    dynamic: config?.dynamic ?? POLICY_DEFAULTS.dynamic,
  };
}

function num(text: string): number {
  return text.trim() === "" ? Number.NaN : Number(text);
}

/** Numbers as typed (a blank is sent as null so the server names the field). */
function value(text: string): number {
  const n = num(text);
  return (Number.isNaN(n) ? null : n) as number;
}

export function configFromState(state: ConfigState): CurriculumConfigInput {
  return {
    families: state.families.map((f) => {
      const entry: FamilyEntryInput = { version: f.version ?? 0, weight: value(f.weight) };
      if (f.levels) entry.levels = f.levels;
      if (f.initial) entry.initial = f.initial.map(value);
      return entry;
    }),
    band: [value(state.bandLow), value(state.bandHigh)],
    floor: value(state.floor),
    window: value(state.window),
    step: value(state.step),
    dynamic: state.dynamic,
  };
}
