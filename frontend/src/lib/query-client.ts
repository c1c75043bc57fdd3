import { QueryCache, QueryClient } from "@tanstack/react-query";

import { isApiError, isUnauthenticated } from "@/lib/api-client";
import { meQueryKey } from "@/lib/auth";

export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        // Any request answered "not signed in" means the session expired: the
        // protected layout sees the null user and sends the browser to /login.
        if (isUnauthenticated(error)) queryClient.setQueryData(meQueryKey, null);
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        refetchOnWindowFocus: false,
        // Client errors will not change on retry; network and 5xx might.
        retry: (failures, error) =>
          !(isApiError(error) && error.status < 500) && failures < 2,
      },
    },
  });
  return queryClient;
}
