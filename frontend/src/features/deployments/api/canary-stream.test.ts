import { afterEach, describe, expect, it, vi } from "vitest";

import { canaryFromFrame, CanaryStream, canaryStreamUrl, type CanaryStreamStatus } from "./canary-stream";
import { parseRetryAfter } from "./generate";

class FakeSocket {
  static all: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: unknown }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  close() {
    this.closed = true;
  }
}

afterEach(() => {
  FakeSocket.all = [];
  vi.useRealTimers();
});

function stream(onCanary = vi.fn()) {
  const statuses: CanaryStreamStatus[] = [];
  const client = new CanaryStream({
    canaryId: 7,
    onCanary,
    onStatus: (s) => statuses.push(s),
    createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
    backoff: () => 1000,
    location: { protocol: "http:", host: "example.test" },
  });
  return { client, statuses, onCanary };
}

describe("canary stream", () => {
  it("builds the socket's address from the page's", () => {
    expect(canaryStreamUrl(7, { protocol: "http:", host: "h" })).toBe("ws://h/ws/canaries/7/");
    expect(canaryStreamUrl(7, { protocol: "https:", host: "h" })).toBe("wss://h/ws/canaries/7/");
  });

  it("reads the canary out of canary frames only", () => {
    expect(canaryFromFrame(JSON.stringify({ type: "canary", canary: { id: 7 } }))).toEqual({ id: 7 });
    expect(canaryFromFrame(JSON.stringify({ type: "hello" }))).toBeNull();
    expect(canaryFromFrame("not json")).toBeNull();
  });

  it("hands each canary frame over and says when it is live", () => {
    const { client, statuses, onCanary } = stream();
    client.start();
    const socket = FakeSocket.all[0]!;
    expect(socket.url).toBe("ws://example.test/ws/canaries/7/");
    socket.onopen?.();
    socket.onmessage?.({ data: JSON.stringify({ type: "hello" }) });
    socket.onmessage?.({ data: JSON.stringify({ type: "canary", canary: { id: 7, state: "paused" } }) });
    expect(onCanary).toHaveBeenCalledTimes(1);
    expect(onCanary).toHaveBeenCalledWith({ id: 7, state: "paused" });
    expect(statuses).toEqual(["connecting", "live"]);
    client.stop();
    expect(socket.closed).toBe(true);
    expect(statuses.at(-1)).toBe("closed");
  });

  it("reconnects after a drop, but not when turned away", () => {
    vi.useFakeTimers();
    const { client, statuses } = stream();
    client.start();
    FakeSocket.all[0]!.onopen?.();
    FakeSocket.all[0]!.onclose?.({ code: 1006 });
    expect(statuses.at(-1)).toBe("closed");
    vi.advanceTimersByTime(1000);
    expect(FakeSocket.all).toHaveLength(2);
    FakeSocket.all[1]!.onclose?.({ code: 4403 });
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(2);
    client.stop();
  });
});

describe("Retry-After", () => {
  it("reads seconds or an HTTP date", () => {
    expect(parseRetryAfter("5")).toBe(5);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("soon")).toBeNull();
    const now = new Date("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30);
  });
});
