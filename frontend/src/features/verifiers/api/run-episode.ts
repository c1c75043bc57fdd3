import { useMutation } from "@tanstack/react-query";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

import type { Spec } from "../types";

/** The request, with the spec as the builder holds it (a catalogue extractor by name). */
export type EpisodeInput = Omit<components["schemas"]["EpisodePlaygroundRequest"], "spec"> & { spec?: Spec };
export type Episode = components["schemas"]["Episode"];

/** Steps a scripted list of assistant messages through an environment and judges the episode. */
export function runEpisode(input: EpisodeInput): Promise<Episode> {
  return api.post<Episode>("/api/v1/verifiers/playground/episode/", input);
}

export function useRunEpisode() {
  return useMutation({ mutationFn: runEpisode });
}
