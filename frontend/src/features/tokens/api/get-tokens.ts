import { queryOptions, useQuery } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import { listResults, type ApiResponse, type ListItem } from "@/lib/api-types";

type TokenList = ApiResponse<"/api/v1/tokens/", "get">;
/** `team` is null for a token that may act in all the owner's teams (the schema omits the null). */
export type ApiToken = Omit<ListItem<TokenList>, "team"> & { team: string | null };

export const tokensQueryKey = ["tokens"] as const;

export async function getTokens(signal?: AbortSignal): Promise<ApiToken[]> {
  return listResults(await api.get<TokenList>("/api/v1/tokens/", undefined, signal));
}

export function tokensQueryOptions() {
  return queryOptions({
    queryKey: tokensQueryKey,
    queryFn: ({ signal }) => getTokens(signal),
  });
}

export function useTokens() {
  return useQuery(tokensQueryOptions());
}
