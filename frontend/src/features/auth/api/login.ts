import { useMutation, useQueryClient } from "@tanstack/react-query";

import { api } from "@/lib/api-client";
import type { ApiRequestBody, ApiResponse } from "@/lib/api-types";
import { meQueryKey } from "@/lib/auth";

export type LoginInput = ApiRequestBody<"/api/v1/auth/login/", "post">;
export type LoginResult = ApiResponse<"/api/v1/auth/login/", "post">;

export function login(input: LoginInput): Promise<LoginResult> {
  return api.post<LoginResult>("/api/v1/auth/login/", input);
}

export function useLogin({ onSuccess }: { onSuccess?: (me: LoginResult) => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (me) => {
      queryClient.setQueryData(meQueryKey, me);
      onSuccess?.(me);
    },
  });
}
