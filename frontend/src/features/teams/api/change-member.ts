// Role changes and removals (PATCH / DELETE /api/v1/teams/{team_slug}/members/{id}/).
import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody } from "@/lib/api-types";
import { meQueryKey } from "@/lib/auth";

import { membersQueryKey } from "./get-members";

export type MemberChange = ApiRequestBody<"/api/v1/teams/{team_slug}/members/{id}/", "patch">;

const memberUrl = (slug: string, id: number) =>
  `/api/v1/teams/${encodeURIComponent(slug)}/members/${id}/`;

export function updateMember(slug: string, id: number, change: MemberChange): Promise<unknown> {
  return api.patch(memberUrl(slug, id), change);
}

export function removeMember(slug: string, id: number): Promise<void> {
  return api.delete(memberUrl(slug, id));
}

function useInvalidateMembers(slug: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: membersQueryKey(slug) }),
      // The change may be about the signed-in user's own role or membership.
      queryClient.invalidateQueries({ queryKey: meQueryKey }),
    ]);
}

export function useUpdateMember(slug: string) {
  const onSuccess = useInvalidateMembers(slug);
  return useMutation({
    mutationFn: ({ id, change }: { id: number; change: MemberChange }) =>
      updateMember(slug, id, change),
    onSuccess,
  });
}

export function useRemoveMember(slug: string) {
  const onSuccess = useInvalidateMembers(slug);
  return useMutation({ mutationFn: (id: number) => removeMember(slug, id), onSuccess });
}
