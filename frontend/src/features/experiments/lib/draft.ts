// The experiment wizard's state and the configuration it sends. Every check beyond "is
// something chosen" is the server's (experiments/config.py): its errors name a field path,
// which `stepOf` maps back to the wizard step that shows that field.
import type {
  Algorithm,
  CurriculumInput,
  EvalInput,
  ExperimentConfig,
  ExperimentConfigInput,
  ExperimentCurriculum,
  Family,
  Hyperparameter,
  HyperparametersInput,
  Verifier,
} from "../api/types";

export const STEPS = [
  { id: "curriculum", label: "Curriculum", hint: "Tasks and verifiers" },
  { id: "model", label: "Model", hint: "What to train" },
  { id: "algorithm", label: "Algorithm", hint: "And its hyper-parameters" },
  { id: "evaluation", label: "Evaluation", hint: "Held-out sets" },
  { id: "resources", label: "Resources and budget", hint: "Seed, scale and limits" },
  { id: "review", label: "Review", hint: "Name, check, launch" },
] as const;

export type StepId = (typeof STEPS)[number]["id"];

export type CurriculumChoice =
  | { kind: "saved"; saved: number | null }
  /** A cloned experiment's own (already copied) curriculum, kept unless another is picked. */
  | { kind: "inline"; config: ExperimentCurriculum };

/** Form values as typed (text, so a half-typed number can sit in its field). */
export type Draft = {
  name: string;
  description: string;
  curriculum: CurriculumChoice;
  /** Verifier version id per pool version id. */
  verifiers: Record<string, number | null>;
  model: string;
  algorithm: string;
  /** Hyper-parameters the user set, by path; the others take the algorithm's default. */
  hyper: Record<string, string | boolean>;
  evalEvery: string;
  evalMaxTasks: string;
  /** Pool versions whose held-out split is evaluated; null: every family of the curriculum. */
  evalFamilies: number[] | null;
  /** An evaluation suite of the team: its families and max tasks replace the two above, and a
   * run that succeeds has its final checkpoint evaluated on it. null: none. */
  evalSuite: number | null;
  seed: string;
  processes: string;
  rolloutGroups: string;
  /** The preset the hyper-parameters were filled from (its values may have been edited since). */
  preset: string | null;
  /** Each run's budget, as typed; blank: no limit. */
  maxWorkerHours: string;
  maxCost: string;
  /** How prompts become model input: as written, or inside the model's chat template. */
  promptFormat: "raw" | "chat";
  /** Chat only: the system turn before each prompt; blank: none. */
  systemPrompt: string;
  /** LoRA, as typed: rank 0 is off (every weight trained). */
  loraRank: string;
  loraAlpha: string;
  loraDropout: string;
  /** Comma-separated layer names; blank: the architecture's attention and MLP projections. */
  loraTargets: string;
};

export function emptyDraft(): Draft {
  return {
    name: "",
    description: "",
    curriculum: { kind: "saved", saved: null },
    verifiers: {},
    model: "",
    algorithm: "grpo",
    hyper: {},
    evalEvery: "10",
    evalMaxTasks: "200",
    evalFamilies: null,
    evalSuite: null,
    seed: "0",
    processes: "1",
    rolloutGroups: "16",
    preset: null,
    maxWorkerHours: "",
    maxCost: "",
    promptFormat: "raw",
    systemPrompt: "",
    loraRank: "0",
    loraAlpha: "16",
    loraDropout: "0",
    loraTargets: "",
  };
}

// --- hyper-parameters ------------------------------------------------------------------------

/** A default as the form shows it: "0.0005", "" for null, "0.9, 0.99" for a pair. */
export function formValue(field: Hyperparameter, value: unknown): string | boolean {
  if (field.type === "bool") return Boolean(value);
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

/** What the form holds, as JSON for the API; text that is not a number goes as typed, so the
 * server names the field and says what it must be. */
export function parseValue(field: Hyperparameter, value: string | boolean): unknown {
  if (field.type === "bool") return Boolean(value);
  const text = String(value).trim();
  if (text === "" && field.nullable) return null;
  if (field.type === "int" || field.type === "float") {
    const number = Number(text);
    return text !== "" && Number.isFinite(number) ? number : text;
  }
  if (field.type === "float_pair") {
    const parts = text.split(/[\s,]+/).filter(Boolean).map(Number);
    return parts.length === 2 && parts.every(Number.isFinite) ? parts : text;
  }
  return text;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const [head, ...rest] = path.split(".");
  if (!head) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const child = (target[head] ??= {}) as Record<string, unknown>;
  setPath(child, rest.join("."), value);
}

function getPath(source: Record<string, unknown>, path: string): unknown {
  return path.split(".").reduce<unknown>((at, key) => (at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined), source);
}

/** Every field of the algorithm: the user's value where set, else the default. */
export function hyperparameters(draft: Draft, algorithm: Algorithm | undefined): HyperparametersInput {
  const out: Record<string, unknown> = {};
  if (!algorithm) {
    // The catalogue has not loaded: send what was set and let the server fill in the rest.
    for (const [path, value] of Object.entries(draft.hyper)) setPath(out, path, typeof value === "string" ? number(value) : value);
  } else {
    for (const field of algorithm.fields) {
      const set = draft.hyper[field.path];
      setPath(out, field.path, set === undefined ? field.default : parseValue(field, set));
    }
  }
  // Built by path: the paths are the algorithm catalogue's, which lists the same engine fields
  // the schema's hyperparameters have.
  return out as HyperparametersInput;
}

type PresetValues = { name: string; values: { path: string; value: unknown }[] };

/** A preset's algorithm with its values set. What a recipe decides (any field some preset sets)
 * is the new preset's or the default; what none decides (the run's size) is kept. */
export function applyPreset(draft: Draft, preset: PresetValues, algorithm: Algorithm, presets: PresetValues[]): Draft {
  const switched = switchAlgorithm(draft, algorithm);
  const recipe = new Set(presets.flatMap((p) => p.values.map((v) => v.path)));
  const hyper = Object.fromEntries(Object.entries(switched.hyper).filter(([path]) => !recipe.has(path)));
  for (const { path, value } of preset.values) {
    const field = algorithm.fields.find((f) => f.path === path);
    if (field) hyper[path] = formValue(field, value);
  }
  return { ...switched, hyper, preset: preset.name };
}

/** Switching algorithm keeps the values set for fields the new one also has. */
export function switchAlgorithm(draft: Draft, next: Algorithm): Draft {
  const known = new Set(next.fields.map((f) => f.path));
  const hyper = Object.fromEntries(Object.entries(draft.hyper).filter(([path]) => known.has(path)));
  return { ...draft, algorithm: next.name, hyper, preset: next.name === draft.algorithm ? draft.preset : null };
}

// --- the configuration sent ------------------------------------------------------------------

function number(text: string): number | string {
  const value = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(value) ? value : text;
}

export function curriculumConfig(draft: Draft): CurriculumInput {
  const choice = draft.curriculum;
  if (choice.kind === "saved") {
    const verifiers = Object.fromEntries(Object.entries(draft.verifiers).filter((entry): entry is [string, number] => entry[1] !== null));
    return { saved: choice.saved, verifiers };
  }
  const families = choice.config.families.map((family) => ({
    ...family,
    verifier_version: draft.verifiers[String(family.pool_version)] ?? family.verifier_version,
  }));
  return { ...choice.config, families };
}

export function buildConfig(draft: Draft, algorithm: Algorithm | undefined): ExperimentConfigInput {
  const evaluation: EvalInput =
    draft.evalSuite !== null
      ? { every: number(draft.evalEvery), suite: draft.evalSuite }
      : { every: number(draft.evalEvery), max_tasks: number(draft.evalMaxTasks) };
  if (draft.evalSuite === null && draft.evalFamilies !== null) evaluation.families = draft.evalFamilies;
  return {
    curriculum: curriculumConfig(draft),
    model: draft.model,
    // The catalogue's names are the engine's algorithms; another is the server's to refuse.
    algorithm: draft.algorithm as ExperimentConfigInput["algorithm"],
    hyperparameters: hyperparameters(draft, algorithm),
    eval: evaluation,
    seed: number(draft.seed),
    num_processes: number(draft.processes),
    rollout_groups: number(draft.rolloutGroups),
    budget: { max_worker_hours: limit(draft.maxWorkerHours), max_cost: limit(draft.maxCost) },
    prompt_format: promptFormat(draft),
    lora: lora(draft),
  };
}

function promptFormat(draft: Draft): ExperimentConfigInput["prompt_format"] {
  if (draft.promptFormat === "raw") return { kind: "raw" };
  return { kind: "chat", system_prompt: draft.systemPrompt.trim() === "" ? null : draft.systemPrompt };
}

/** Rank 0 (off) sends none; a rank typed as text goes as typed, for the server to name. */
function lora(draft: Draft): ExperimentConfigInput["lora"] {
  const rank = number(draft.loraRank);
  if (rank === 0) return null;
  const targets = draft.loraTargets.split(/[\s,]+/).filter(Boolean);
  return {
    rank,
    alpha: number(draft.loraAlpha),
    dropout: number(draft.loraDropout),
    target_modules: targets.length > 0 ? targets : null,
  };
}

/** Blank is no limit. */
function limit(text: string): number | string | null {
  return text.trim() === "" ? null : number(text);
}

/** The wizard filled from an experiment, to clone it: its hyper-parameters that differ from
 * the algorithm's defaults count as set. */
export function draftFromExperiment(
  experiment: { name: string; description: string; config: ExperimentConfig },
  algorithms: Algorithm[] | undefined,
): Draft {
  const config = experiment.config;
  const algorithm = algorithms?.find((a) => a.name === config.algorithm);
  const hyper: Draft["hyper"] = {};
  for (const field of algorithm?.fields ?? []) {
    const value = getPath(config.hyperparameters, field.path);
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(field.default)) hyper[field.path] = formValue(field, value);
  }
  const verifiers = Object.fromEntries(config.curriculum.families.map((f) => [String(f.pool_version), f.verifier_version]));
  const versions = config.curriculum.families.map((f) => f.pool_version);
  const allEvaluated = versions.length === config.eval.families.length && versions.every((v) => config.eval.families.includes(v));
  return {
    name: `${experiment.name} (clone)`.slice(0, 120),
    description: experiment.description,
    curriculum: { kind: "inline", config: config.curriculum },
    verifiers,
    model: config.model,
    algorithm: config.algorithm,
    hyper,
    evalEvery: String(config.eval.every),
    evalMaxTasks: String(config.eval.max_tasks),
    evalFamilies: allEvaluated ? null : config.eval.families,
    evalSuite: config.eval.suite ?? null,
    seed: String(config.seed),
    processes: String(config.num_processes),
    rolloutGroups: String(config.rollout_groups),
    preset: null,
    maxWorkerHours: config.budget?.max_worker_hours?.toString() ?? "",
    maxCost: config.budget?.max_cost?.toString() ?? "",
    promptFormat: config.prompt_format?.kind ?? "raw",
    systemPrompt: config.prompt_format?.system_prompt ?? "",
    loraRank: String(config.lora?.rank ?? 0),
    loraAlpha: String(config.lora?.alpha ?? 16),
    loraDropout: String(config.lora?.dropout ?? 0),
    loraTargets: config.lora?.target_modules?.join(", ") ?? "",
  };
}

// --- choosing verifiers ----------------------------------------------------------------------

/** The newest verifier version made for the family's kind, if the team has one. */
export function defaultVerifierVersion(family: Pick<Family, "kind"> | undefined, verifiers: Verifier[]): number | null {
  if (!family) return null;
  const candidates = verifiers
    .filter((v) => v.family_kind === family.kind && v.latest_version)
    .map((v) => v.latest_version!)
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
  return candidates[0]?.id ?? null;
}

// --- errors ------------------------------------------------------------------------------------

const STEP_OF: [RegExp, StepId][] = [
  [/^config\.curriculum\b/, "curriculum"],
  [/^config\.(model|prompt_format|lora)\b/, "model"],
  [/^config\.(algorithm|hyperparameters)\b/, "algorithm"],
  [/^config\.eval\b/, "evaluation"],
  [/^config\.(seed|num_processes|rollout_groups|budget)\b/, "resources"],
];

/** The step that shows the field an error names; the review step for the rest. */
export function stepOf(field: string | null): StepId {
  if (!field) return "review";
  return STEP_OF.find(([pattern]) => pattern.test(field))?.[1] ?? "review";
}

/** `config.hyperparameters.sampling.temperature` → `sampling.temperature`. */
export function hyperparameterPath(field: string): string | null {
  const match = /^config\.hyperparameters\.(.+)$/.exec(field);
  return match ? (match[1] ?? null) : null;
}
