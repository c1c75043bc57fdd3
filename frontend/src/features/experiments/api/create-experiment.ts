import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import { launchExperiment } from "./launch-experiment";
import { experimentsQueryKey, type Experiment, type ExperimentConfigInput, type RunListItem } from "./types";

export type ExperimentInput = {
  name: string;
  description: string;
  config: ExperimentConfigInput;
  /** Clone this experiment: the new one records it as its parent. */
  parent?: number | null;
};

/** Creates the experiment (frozen), or a clone of `parent` with the config laid over it. */
export function createExperiment(input: ExperimentInput, team: string | undefined): Promise<Experiment> {
  const { parent, config, name, description } = input;
  if (parent) {
    return api.post<Experiment>(`/api/v1/experiments/${parent}/clone/`, { name, description, overrides: config });
  }
  return api.post<Experiment>("/api/v1/experiments/", { team, name, description, config });
}

export class LaunchFailed extends Error {
  constructor(
    readonly experiment: Experiment,
    readonly cause: unknown,
  ) {
    super("The experiment was saved but its run could not be launched.");
  }
}

/** "Create and launch": the experiment, then its first run. A failed launch keeps the experiment. */
export function useCreateAndLaunch(team: string | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: ExperimentInput): Promise<{ experiment: Experiment; run: RunListItem }> => {
      const experiment = await createExperiment(input, team);
      try {
        return { experiment, run: await launchExperiment(experiment.id) };
      } catch (error) {
        throw new LaunchFailed(experiment, error);
      }
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: experimentsQueryKey });
      void queryClient.invalidateQueries({ queryKey: ["runs"] });
    },
  });
}
