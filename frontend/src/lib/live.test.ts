import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { keysForEvent, LiveClient, liveUrl } from "./live";

class FakeSocket {
  static made: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  close(code = 1006) {
    this.onclose?.({ code });
  }
}

describe("live client", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.made = [];
  });
  afterEach(() => vi.useRealTimers());

  function start() {
    const queryClient = new QueryClient();
    const invalidate = vi.spyOn(queryClient, "invalidateQueries");
    const client = new LiveClient({
      queryClient,
      url: "ws://test/ws/events/",
      createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
      backoff: (attempt) => 1000 * 2 ** attempt,
      invalidates: { "token.created": [["tokens"]] },
    });
    client.start();
    return { client, invalidate };
  }

  it("derives the socket URL from the page's protocol", () => {
    expect(liveUrl({ protocol: "https:", host: "crucible.example" })).toBe(
      "wss://crucible.example/ws/events/",
    );
    expect(liveUrl({ protocol: "http:", host: "localhost:8000" })).toBe("ws://localhost:8000/ws/events/");
  });

  it("invalidates the keys an event names, once per burst", () => {
    const { client, invalidate } = start();
    const socket = FakeSocket.made[0]!;
    socket.onopen?.();
    expect(client.getStatus()).toBe("live");

    socket.onmessage?.({ data: JSON.stringify({ type: "run.metrics", run: 3 }) });
    socket.onmessage?.({ data: JSON.stringify({ type: "run.metrics", run: 3 }) });
    socket.onmessage?.({ data: JSON.stringify({ type: "token.created" }) });
    socket.onmessage?.({ data: "not json" });
    socket.onmessage?.({ data: JSON.stringify({ type: "hello", groups: [] }) });
    vi.advanceTimersByTime(200);

    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([["run"], ["tokens"]]);
  });

  it("reconnects with growing delays and resets them after a success", () => {
    const { client } = start();
    FakeSocket.made[0]!.close();
    expect(client.getStatus()).toBe("offline");
    vi.advanceTimersByTime(999);
    expect(FakeSocket.made).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.made).toHaveLength(2);

    FakeSocket.made[1]!.close();
    vi.advanceTimersByTime(1999);
    expect(FakeSocket.made).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.made).toHaveLength(3);

    FakeSocket.made[2]!.onopen?.();
    FakeSocket.made[2]!.close();
    vi.advanceTimersByTime(1000);
    expect(FakeSocket.made).toHaveLength(4);

    client.stop();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.made).toHaveLength(4);
  });

  it("stops retrying and reports when the session is gone", () => {
    const onUnauthenticated = vi.fn();
    const client = new LiveClient({
      queryClient: new QueryClient(),
      url: "ws://test/ws/events/",
      createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
      onUnauthenticated,
    });
    client.start();
    FakeSocket.made[0]!.close(4401);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.made).toHaveLength(1);
    expect(onUnauthenticated).toHaveBeenCalledOnce();
    expect(client.getStatus()).toBe("offline");
  });

  it("falls back to the first segment of an event type", () => {
    expect(keysForEvent("experiment.updated")).toEqual([["experiment"]]);
    expect(keysForEvent("token.created", { "token.created": [["tokens"]] })).toEqual([["tokens"]]);
    expect(keysForEvent("hello")).toEqual([]);
  });
});
