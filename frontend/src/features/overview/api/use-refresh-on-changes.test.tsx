import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import { describe, expect, it, vi } from "vitest";

import { LiveClient, LiveClientContext } from "@/lib/live";

import { useRefreshOnChanges } from "./use-refresh-on-changes";

class FakeSocket {
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  close() {}
}

describe("useRefreshOnChanges", () => {
  it("refetches the feed and the counts when an audited change arrives, not on other events", () => {
    const queryClient = new QueryClient();
    const invalidate = vi.spyOn(queryClient, "invalidateQueries");
    const socket = new FakeSocket();
    const live = new LiveClient({
      queryClient,
      invalidates: { "pool.job_updated": [] },
      createSocket: () => socket as unknown as WebSocket,
    });
    live.start();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={queryClient}>
        <LiveClientContext.Provider value={live}>{children}</LiveClientContext.Provider>
      </QueryClientProvider>
    );
    renderHook(() => useRefreshOnChanges(), { wrapper });

    socket.onmessage?.({ data: JSON.stringify({ type: "pool.job_updated", progress: 0.5 }) });
    expect(invalidate).not.toHaveBeenCalled();
    const change = { type: "verifier.deleted", target_type: "tasks_app.verifier", target_id: "3" };
    socket.onmessage?.({ data: JSON.stringify(change) });
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([
      ["audit"],
      ["team-summary"],
    ]);
    live.stop();
  });
});
