// The builder's editable copy of a spec and the pure operations on it. Layers carry a
// client-side `uid` so that reordering keeps each card's inputs and errors with its layer.
import type { JsonSchema, LayerKind, LayerSpec, RewardPart, Spec, Stage } from "../types";

export type DraftLayer = LayerSpec & { uid: string };
export type Draft = Omit<Spec, "layers"> & { layers: DraftLayer[] };

let nextUid = 0;
function newUid(): string {
  nextUid += 1;
  return `layer-${nextUid}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a verifier with no version yet starts from. */
export const BLANK_SPEC: Spec = {
  extract: "full_text",
  layers: [],
  reward: { weights: { outcome: 1 }, failure_reward: 0 },
};

/** A draft from a stored spec, filling the optional parts the server may have left out. */
export function toDraft(spec: unknown): Draft {
  const source = isObject(spec) ? spec : {};
  const layers = Array.isArray(source.layers) ? source.layers.filter(isObject) : [];
  const reward = isObject(source.reward) ? source.reward : {};
  return {
    extract: typeof source.extract === "string" ? source.extract : BLANK_SPEC.extract,
    layers: layers.map((layer) => ({
      uid: newUid(),
      kind: String(layer.kind ?? ""),
      name: String(layer.name ?? layer.kind ?? ""),
      params: isObject(layer.params) ? { ...layer.params } : {},
      continue_on_fail: layer.continue_on_fail === true,
    })),
    reward: {
      weights: isObject(reward.weights) ? { ...(reward.weights as Spec["reward"]["weights"]) } : { outcome: 1 },
      failure_reward: typeof reward.failure_reward === "number" ? reward.failure_reward : 0,
    },
  };
}

/** The spec the API takes: the draft without client-side ids. */
export function toSpec(draft: Draft): Spec {
  return {
    extract: draft.extract,
    layers: draft.layers.map(({ kind, name, params, continue_on_fail }) => ({
      kind,
      name,
      params,
      continue_on_fail,
    })),
    reward: draft.reward,
  };
}

/** Required params get their default (or an empty value) so the form shows them at once. */
export function initialParams(schema: JsonSchema): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const key of schema.required ?? []) {
    const field = schema.properties?.[key];
    if (field?.default !== undefined) params[key] = field.default;
  }
  return params;
}

/** A name no other layer has: the kind, then kind_2, kind_3 ... */
export function uniqueName(draft: Draft, base: string): string {
  const taken = new Set(draft.layers.map((layer) => layer.name));
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}_${n}`)) n += 1;
  return `${base}_${n}`;
}

/** Where each stage's layers belong, top to bottom; constraints and the judge share the last
 * place. The server says the same in tasks_app/verifiers/stages.py. */
export const STAGE_RANK: Record<Stage, number> = { syntax: 0, semantic: 1, boundary: 2, constraint: 3, judge: 3 };

export const STAGE_LABELS: Record<Stage, string> = {
  syntax: "syntax",
  semantic: "semantics",
  boundary: "boundary",
  constraint: "constraints",
  judge: "judge",
};

function stageFinder(kinds: LayerKind[]): (kind: string) => Stage | undefined {
  return (kind) => kinds.find((k) => k.kind === kind)?.stage;
}

/** Adds a layer at the end of its stage (after the last layer of its stage or an earlier one),
 * so a syntax check added late still runs before the semantic layers it guards. */
export function addLayer(draft: Draft, kind: LayerKind, kinds: LayerKind[]): Draft {
  const stageOf = stageFinder(kinds);
  const rank = STAGE_RANK[kind.stage];
  let at = 0;
  draft.layers.forEach((existing, index) => {
    const stage = stageOf(existing.kind);
    if (stage === undefined || STAGE_RANK[stage] <= rank) at = index + 1;
  });
  const layer: DraftLayer = {
    uid: newUid(),
    kind: kind.kind,
    name: uniqueName(draft, kind.kind),
    params: initialParams(kind.params_schema),
    continue_on_fail: false,
  };
  return { ...draft, layers: [...draft.layers.slice(0, at), layer, ...draft.layers.slice(at)] };
}

/** One sentence per layer placed below a layer of a later stage that skips it when it fails;
 * the same sentences the server lists under a version's `warnings`. A constraint placed early
 * is a deliberate gate (forbidden imports before the tests run the code) and is not flagged. */
export function stageWarnings(layers: LayerSpec[], kinds: LayerKind[]): string[] {
  const stageOf = stageFinder(kinds);
  const placed = layers.flatMap((layer) => {
    const stage = stageOf(layer.kind);
    return stage ? [{ ...layer, stage }] : [];
  });
  return placed.flatMap((layer, index) => {
    const blocker = placed
      .slice(0, index)
      .find((above) => STAGE_RANK[above.stage] > STAGE_RANK[layer.stage] && !above.continue_on_fail && above.stage !== "constraint");
    if (!blocker) return [];
    return [
      `'${layer.name}' (${STAGE_LABELS[layer.stage]}) runs after '${blocker.name}' (${STAGE_LABELS[blocker.stage]}): ` +
        `it is skipped whenever ${blocker.name} fails`,
    ];
  });
}

/** What a layer with a `scope` param checks ("response" or "answer"), or null for one without;
 * specs saved before `scope` say `target`, where "extracted" meant the answer. */
export function layerScope(layer: LayerSpec, schema: JsonSchema): "response" | "answer" | null {
  const field = schema.properties?.scope;
  if (!field) return null;
  const { scope, target } = layer.params;
  if (scope === "response" || scope === "answer") return scope;
  if (target === "extracted") return "answer";
  if (target === "response") return "response";
  return field.default === "answer" ? "answer" : "response";
}

export function removeLayer(draft: Draft, uid: string): Draft {
  return { ...draft, layers: draft.layers.filter((layer) => layer.uid !== uid) };
}

/** Moves a layer one place up (-1) or down (+1); a move past either end changes nothing. */
export function moveLayer(draft: Draft, uid: string, offset: -1 | 1): Draft {
  const from = draft.layers.findIndex((layer) => layer.uid === uid);
  const to = from + offset;
  if (from < 0 || to < 0 || to >= draft.layers.length) return draft;
  const layers = [...draft.layers];
  const [moved] = layers.splice(from, 1);
  layers.splice(to, 0, moved as DraftLayer);
  return { ...draft, layers };
}

export function updateLayer(draft: Draft, uid: string, change: Partial<LayerSpec>): Draft {
  return {
    ...draft,
    layers: draft.layers.map((layer) => (layer.uid === uid ? { ...layer, ...change } : layer)),
  };
}

/** Sets one param, or removes it when `value` is undefined so the layer's default applies. */
export function setParam(draft: Draft, uid: string, key: string, value: unknown): Draft {
  const layer = draft.layers.find((l) => l.uid === uid);
  if (!layer) return draft;
  const params = { ...layer.params };
  if (value === undefined) delete params[key];
  else params[key] = value;
  return updateLayer(draft, uid, { params });
}

export function setWeight(draft: Draft, part: RewardPart, value: number | undefined): Draft {
  const weights = { ...draft.reward.weights };
  if (value === undefined) delete weights[part];
  else weights[part] = value;
  return { ...draft, reward: { ...draft.reward, weights } };
}

/** Stable text of a spec, for "has the draft changed" and for diffs. */
export function specText(spec: Spec): string {
  return JSON.stringify(spec, null, 2);
}

/** Names of the spec's model_judge layers, in order; the spec is untyped JSON from the server. */
export function judgeLayerNames(spec: unknown): string[] {
  const layers = (spec as { layers?: unknown } | null)?.layers;
  if (!Array.isArray(layers)) return [];
  return layers
    .filter((l): l is LayerSpec => (l as LayerSpec | null)?.kind === "model_judge" && typeof (l as LayerSpec).name === "string")
    .map((l) => l.name);
}
