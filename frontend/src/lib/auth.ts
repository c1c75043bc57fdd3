// The signed-in user (GET /api/v1/auth/me/), shared by the layout and every feature.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, isApiError } from "@/lib/api-client";
import type { components } from "@/api/schema";
import type { ApiResponse } from "@/lib/api-types";

export type Role = components["schemas"]["RoleEnum"];
/** An entry of `teams` in /auth/me/, which the schema leaves untyped (a method field). */
export type MeTeam = { id: number; slug: string; name: string; role: Role };
export type Me = Omit<ApiResponse<"/api/v1/auth/me/", "get">, "teams"> & { teams: MeTeam[] };

export const ME_URL = "/api/v1/auth/me/";
export const meQueryKey = ["auth", "me"] as const;

/** The current user, or null when the session is anonymous. */
export async function getMe(signal?: AbortSignal): Promise<Me | null> {
  try {
    return await api.get<Me>(ME_URL, undefined, signal);
  } catch (error) {
    // For this endpoint any 401 or 403 means the session is anonymous.
    if (isApiError(error) && (error.status === 401 || error.status === 403)) return null;
    throw error;
  }
}

export function meQueryOptions() {
  return queryOptions({
    queryKey: meQueryKey,
    queryFn: ({ signal }) => getMe(signal),
    staleTime: 60_000,
  });
}

export function useMe() {
  return useQuery(meQueryOptions());
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<void>("/api/v1/auth/logout/"),
    onSettled: () => {
      // Whatever the server said, nothing cached for this user may outlive the session.
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== meQueryKey[0] });
      queryClient.setQueryData(meQueryKey, null);
    },
  });
}
