import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody, ApiResponse } from "@/lib/api-types";

import { membersQueryKey } from "./get-members";

export type AddMemberInput = ApiRequestBody<"/api/v1/teams/{team_slug}/members/", "post">;
type AddedMember = ApiResponse<"/api/v1/teams/{team_slug}/members/", "post", 201>;

export function addMember(slug: string, input: AddMemberInput): Promise<AddedMember> {
  return api.post<AddedMember>(`/api/v1/teams/${encodeURIComponent(slug)}/members/`, input);
}

export function useAddMember(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AddMemberInput) => addMember(slug, input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: membersQueryKey(slug) }),
  });
}
