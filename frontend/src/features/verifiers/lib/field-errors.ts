// Server errors name spec paths ("spec.layers[2].params.abs_tol"); the builder shows each
// one next to the layer (by uid, so a later reorder keeps it in place) and param it is about.
import type { ApiErrorItem } from "@/lib/api-client";

import type { DraftLayer } from "./spec";

export type LayerErrors = {
  /** Messages about the layer as a whole or a field that is not a param (kind, name). */
  layer: string[];
  params: Record<string, string[]>;
};

export type SpecErrors = {
  layers: Record<string, LayerErrors>;
  /** Keyed by the path after "spec.", e.g. "extract", "reward.weights.outcome". */
  fields: Record<string, string[]>;
  /** Messages that name no spec path at all. */
  general: string[];
};

export const NO_ERRORS: SpecErrors = { layers: {}, fields: {}, general: [] };

const LAYER_PATH = /^spec\.layers\[(\d+)\](?:\.(.+))?$/;

function push(map: Record<string, string[]>, key: string, message: string) {
  (map[key] ??= []).push(message);
}

export function mapSpecErrors(errors: ApiErrorItem[], layers: DraftLayer[]): SpecErrors {
  const result: SpecErrors = { layers: {}, fields: {}, general: [] };
  for (const error of errors) {
    const field = error.field ?? "";
    const match = LAYER_PATH.exec(field);
    const layer = match ? layers[Number(match[1])] : undefined;
    if (match && layer) {
      const entry = (result.layers[layer.uid] ??= { layer: [], params: {} });
      const rest = match[2] ?? "";
      if (rest.startsWith("params.")) {
        push(entry.params, rest.slice("params.".length).split(/[.[]/)[0] ?? rest, error.message);
      } else {
        entry.layer.push(rest ? `${rest}: ${error.message}` : error.message);
      }
    } else if (field.startsWith("spec.")) {
      push(result.fields, field.slice("spec.".length), error.message);
    } else {
      result.general.push(field && field !== "spec" ? `${field}: ${error.message}` : error.message);
    }
  }
  return result;
}

/** Messages for fields under a prefix ("reward" gets "reward.weights.outcome" too). */
export function fieldMessages(errors: SpecErrors, prefix: string): string[] {
  return Object.entries(errors.fields)
    .filter(([key]) => key === prefix || key.startsWith(`${prefix}.`) || key.startsWith(`${prefix}[`))
    .flatMap(([key, messages]) => (key === prefix ? messages : messages.map((m) => `${key.slice(prefix.length + 1)}: ${m}`)));
}
