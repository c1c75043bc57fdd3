// The editor's form state for a curriculum config, and the conversions to and from the API's JSON.
import type { CurriculumConfig, FamilyEntry } from "../api/types";

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

export function stateFromConfig(config: CurriculumConfig | undefined): ConfigState {
  const band = config?.band ?? [0.3, 0.7];
  return {
    families: (config?.families ?? []).map((f) => ({
      key: nextKey++,
      version: f.version,
      weight: String(f.weight ?? 1),
      levels: f.levels ?? null,
      initial: f.initial ? f.initial.map(String) : null,
    })),
    bandLow: String(band[0]),
    bandHigh: String(band[1]),
    floor: String(config?.floor ?? 0.05),
    window: String(config?.window ?? 64),
    step: String(config?.step ?? 0.2),
    dynamic: config?.dynamic ?? true,
  };
}

function num(text: string): number {
  return text.trim() === "" ? Number.NaN : Number(text);
}

/** Numbers as typed (a blank is sent as null so the server names the field). */
function value(text: string): number | null {
  const n = num(text);
  return Number.isNaN(n) ? null : n;
}

export function configFromState(state: ConfigState): CurriculumConfig {
  return {
    families: state.families.map((f) => {
      const entry: FamilyEntry = { version: f.version ?? 0, weight: value(f.weight) as number };
      if (f.levels) entry.levels = f.levels;
      if (f.initial) entry.initial = f.initial.map((v) => value(v) as number);
      return entry;
    }),
    band: [value(state.bandLow) as number, value(state.bandHigh) as number],
    floor: value(state.floor) as number,
    window: value(state.window) as number,
    step: value(state.step) as number,
    dynamic: state.dynamic,
  };
}
