import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody, ApiResponse } from "@/lib/api-types";
import { meQueryKey } from "@/lib/auth";

export type CreateTeamInput = ApiRequestBody<"/api/v1/teams/", "post">;
export type CreatedTeam = ApiResponse<"/api/v1/teams/", "post", 201>;

export function createTeam(input: CreateTeamInput): Promise<CreatedTeam> {
  return api.post<CreatedTeam>("/api/v1/teams/", input);
}

export function useCreateTeam() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createTeam,
    // The team switcher lists the teams from /auth/me/.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: meQueryKey }),
        queryClient.invalidateQueries({ queryKey: ["teams"] }),
      ]),
  });
}
