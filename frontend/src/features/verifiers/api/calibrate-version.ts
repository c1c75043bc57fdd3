import { useMutation } from "@tanstack/react-query";

import { api } from "@/lib/api-client";

import type { Calibration } from "../types";

export type CalibrateInput = { number: number; layer?: string };

/** Scores every labelled example with the version's model judge alone and picks its threshold. */
export function calibrateVersion(id: number, { number, layer }: CalibrateInput): Promise<Calibration> {
  return api.post<Calibration>(`/api/v1/verifiers/${id}/versions/${number}/calibrate/`, layer ? { layer } : {});
}

export function useCalibrateVersion(id: number) {
  return useMutation({ mutationFn: (input: CalibrateInput) => calibrateVersion(id, input) });
}
