import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { RunStream, runStreamUrl, type MetricsFrame, type RunFrame, type StreamStatus, type Visibility } from "./run-stream";

class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: unknown[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }

  send(data: string) {
    this.sent.push(JSON.parse(data));
  }

  close() {
    this.readyState = 3;
  }

  open() {
    this.readyState = 1;
    this.onopen?.();
  }

  frame(seq: number, step: number, prev = seq - 1) {
    const points = { kl: { step: [step], value: [step / 10] } };
    this.onmessage?.({ data: JSON.stringify({ type: "points", prev, seq, points }) });
  }

  deliver(frame: unknown) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }

  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

function fakeVisibility() {
  let hidden = false;
  const listeners = new Set<() => void>();
  const visibility: Visibility = {
    hidden: () => hidden,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const set = (value: boolean) => {
    hidden = value;
    listeners.forEach((l) => l());
  };
  return { visibility, set };
}

function stream(since: number | null = null) {
  const frames: MetricsFrame[] = [];
  const runs: RunFrame[] = [];
  const statuses: StreamStatus[] = [];
  const tab = fakeVisibility();
  const client = new RunStream({
    runId: 7,
    since,
    onMetrics: (f) => frames.push(f),
    onRun: (f) => runs.push(f),
    onStatus: (s) => statuses.push(s),
    createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
    backoff: () => 1000,
    visibility: tab.visibility,
    location: { protocol: "http:", host: "example.test" },
  });
  return { client, frames, runs, statuses, tab };
}

describe("RunStream", () => {
  beforeEach(() => {
    FakeSocket.all = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("opens the run's socket after what the page already has", () => {
    const { client } = stream(41);
    client.start();
    expect(FakeSocket.all[0]!.url).toBe("ws://example.test/ws/runs/7/?since=41");
    expect(runStreamUrl(7, null, { protocol: "https:", host: "h" })).toBe("wss://h/ws/runs/7/");
  });

  it("reconnects after a drop resuming from the last sequence number, and skips frames it already has", () => {
    const { client, frames } = stream();
    client.start();
    const first = FakeSocket.all[0]!;
    first.open();
    first.frame(1, 0);
    first.frame(2, 1);
    first.drop();
    expect(client.getStatus()).toBe("connecting");
    vi.advanceTimersByTime(1000);
    const second = FakeSocket.all[1]!;
    expect(second.url).toBe("ws://example.test/ws/runs/7/?since=2");
    second.open();
    second.frame(2, 1); // a resend of what arrived before the drop
    second.frame(3, 2);
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3]);
    expect(client.lastSeq).toBe(3);
  });

  it("takes a history frame whole and hands run changes to the page", () => {
    const { client, frames, runs } = stream();
    client.start();
    const socket = FakeSocket.all[0]!;
    socket.open();
    socket.deliver({ type: "hello" });
    socket.deliver({ type: "history", seq: 30, keys: ["kl"], points: { kl: { step: [0, 1], value: [0.1, 0.2] } } });
    socket.deliver({ type: "run", run: { id: 7, state: "succeeded", step: 2, max_steps: 2, failure_reason: "" } });
    expect(frames.map((f) => f.type)).toEqual(["history"]);
    expect(client.lastSeq).toBe(30);
    expect(runs[0]!.run.state).toBe("succeeded");
  });

  it("asks for the gap when a frame starts past its cursor", () => {
    const { client, frames } = stream(10);
    client.start();
    const socket = FakeSocket.all[0]!;
    socket.open();
    socket.frame(14, 3, 12);
    expect(socket.sent).toEqual([{ type: "resume", since: 10 }]);
    expect(frames).toHaveLength(1);
  });

  it("pauses while the tab is hidden and resumes from its last sequence number when shown", () => {
    const { client, tab, statuses } = stream();
    client.start();
    const socket = FakeSocket.all[0]!;
    socket.open();
    socket.frame(5, 3);
    tab.set(true);
    expect(socket.sent).toEqual([{ type: "pause" }]);
    expect(client.getStatus()).toBe("paused");
    tab.set(false);
    expect(socket.sent).toEqual([{ type: "pause" }, { type: "resume", since: 5 }]);
    expect(statuses.slice(-2)).toEqual(["paused", "live"]);
  });

  it("does not reconnect in a hidden tab, and reconnects from its cursor when shown", () => {
    const { client, tab } = stream();
    client.start();
    const socket = FakeSocket.all[0]!;
    socket.open();
    socket.frame(9, 4);
    tab.set(true);
    socket.drop();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
    tab.set(false);
    expect(FakeSocket.all).toHaveLength(2);
    expect(FakeSocket.all[1]!.url).toMatch(/since=9$/);
  });

  it("reports the stream unavailable when the socket never opens, so the page can poll", () => {
    const { client } = stream();
    client.start();
    FakeSocket.all[0]!.drop();
    vi.advanceTimersByTime(1000);
    FakeSocket.all[1]!.drop();
    expect(client.getStatus()).toBe("unavailable");
    vi.advanceTimersByTime(1000);
    FakeSocket.all[2]!.open();
    expect(client.getStatus()).toBe("live");
  });

  it("stops for good when the server says the run is not the caller's", () => {
    const { client } = stream();
    client.start();
    FakeSocket.all[0]!.open();
    FakeSocket.all[0]!.drop(4404);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
    expect(client.getStatus()).toBe("closed");
  });
});
