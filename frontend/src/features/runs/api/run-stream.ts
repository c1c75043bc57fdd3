// One websocket per open run page: the run's metric points as they are written, each frame
// with a sequence number. A reconnect resumes after the last frame received (no gap, no
// duplicate); a hidden tab pauses the stream and resumes from the same place when shown.
import { CLOSE_UNAUTHENTICATED } from "@/lib/live";
import { defaultBackoff, socketUrl } from "@/lib/socket";

import type { Columns } from "../lib/metric-series";

/**
 * `history`: everything so far (downsampled): it replaces what the page holds.
 * `points`: what was written after `prev` up to `seq`; frames chain (each `prev` is the
 * previous frame's `seq`), so a `prev` past the page's cursor means something was missed.
 * A point is identified by its key and step: one the page holds is replaced in place
 * (`mergeColumns`). `replaced` names the steps whose stored value changed (a step recomputed
 * after a resume with another value); a point re-sent with its stored value is never sent.
 */
export type MetricsFrame =
  | { type: "history"; seq: number; points: Columns; keys?: string[] }
  | { type: "points"; prev: number; seq: number; points: Columns; replaced?: Record<string, number[]> };

export type RunFrame = {
  type: "run";
  run: {
    id: number;
    state: string;
    step: number;
    max_steps: number;
    failure_reason: string;
    pause_requested: boolean;
    pause_reason: string;
    worker_seconds: number;
    generated_tokens: number;
    judge_tokens: number;
    cost: number;
  };
};

export type StreamStatus =
  /** Opening the socket (or waiting to retry). */
  | "connecting"
  | "live"
  /** The tab is hidden; the server holds frames back until it is shown. */
  | "paused"
  /** The socket keeps failing before it opens (no websocket server): poll instead. */
  | "unavailable"
  | "closed";

/** The server closes with these when the run is not the caller's, or gone: retrying cannot help. */
const FINAL_CLOSE_CODES = new Set([CLOSE_UNAUTHENTICATED, 4403, 4404]);

/** WebSocket.OPEN, spelled out so a stand-in socket in tests needs no global. */
const OPEN = 1;

/** Failed opening attempts in a row after which the page falls back to polling. */
export const UNAVAILABLE_AFTER = 2;

export type Visibility = {
  hidden: () => boolean;
  subscribe: (listener: () => void) => () => void;
};

export const documentVisibility: Visibility = {
  hidden: () => typeof document !== "undefined" && document.hidden,
  subscribe: (listener) => {
    document.addEventListener("visibilitychange", listener);
    return () => document.removeEventListener("visibilitychange", listener);
  },
};

export type RunStreamOptions = {
  runId: number;
  /** Resume after this sequence number (what the page already has from the REST query). */
  since?: number | null;
  onMetrics: (frame: MetricsFrame) => void;
  /** The run's state or progress changed. */
  onRun?: (frame: RunFrame) => void;
  /** Its events (pauses, resumes, curriculum changes) changed: read them again. */
  onEvents?: () => void;
  onStatus?: (status: StreamStatus) => void;
  createSocket?: (url: string) => WebSocket;
  backoff?: (attempt: number) => number;
  visibility?: Visibility;
  location?: Pick<Location, "protocol" | "host">;
};

export function runStreamUrl(
  runId: number,
  since: number | null,
  location?: Pick<Location, "protocol" | "host">,
): string {
  const query = since === null ? "" : `?since=${since}`;
  return socketUrl(`/ws/runs/${runId}/${query}`, location);
}

function parseFrame(data: unknown): { type: string; [key: string]: unknown } | null {
  if (typeof data !== "string") return null;
  try {
    const frame: unknown = JSON.parse(data);
    if (typeof frame === "object" && frame !== null && typeof (frame as { type?: unknown }).type === "string") {
      return frame as { type: string };
    }
  } catch {
    // Not JSON: nothing for the charts.
  }
  return null;
}

function isMetricsFrame(frame: { type: string; [key: string]: unknown }): frame is MetricsFrame {
  return (
    (frame.type === "points" || frame.type === "history") &&
    typeof frame.seq === "number" &&
    typeof frame.points === "object" &&
    frame.points !== null
  );
}

export class RunStream {
  private socket: WebSocket | null = null;
  private seq: number | null;
  private running = false;
  private opened = false;
  private failures = 0;
  private attempt = 0;
  private status: StreamStatus = "closed";
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribeVisibility: (() => void) | undefined;
  private readonly options: RunStreamOptions & Required<Pick<RunStreamOptions, "createSocket" | "backoff" | "visibility">>;

  constructor(options: RunStreamOptions) {
    this.options = {
      createSocket: (url) => new WebSocket(url),
      backoff: defaultBackoff,
      visibility: documentVisibility,
      ...options,
    };
    this.seq = options.since ?? null;
  }

  /** The newest sequence number received: where a reconnect resumes. */
  get lastSeq(): number | null {
    return this.seq;
  }

  getStatus(): StreamStatus {
    return this.status;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribeVisibility = this.options.visibility.subscribe(() => this.onVisibility());
    this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.retryTimer);
    this.unsubscribeVisibility?.();
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.setStatus("closed");
  }

  private connect(): void {
    if (this.status !== "unavailable") this.setStatus("connecting");
    this.opened = false;
    const url = runStreamUrl(this.options.runId, this.seq, this.options.location);
    const socket = this.options.createSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.opened = true;
      this.failures = 0;
      this.attempt = 0;
      // A tab hidden while the socket opened asks for nothing until it is shown.
      if (this.options.visibility.hidden()) this.pause();
      else this.setStatus("live");
    };
    socket.onmessage = (message: MessageEvent) => this.receive(message.data);
    socket.onclose = (event: CloseEvent) => this.closed(socket, event);
  }

  private receive(data: unknown): void {
    const frame = parseFrame(data);
    if (!frame) return;
    if (frame.type === "run") {
      this.options.onRun?.(frame as RunFrame);
      return;
    }
    if (frame.type === "events") {
      this.options.onEvents?.();
      return;
    }
    if (!isMetricsFrame(frame)) return; // hello, paused, pong: nothing for the page
    if (frame.type === "points") {
      // A frame at or before the cursor was already delivered (a resend across a reconnect).
      if (this.seq !== null && frame.seq <= this.seq) return;
      // A frame that starts past the cursor means one went missing: ask for the gap. The frame
      // itself is still applied; points are keyed by (key, step), so the re-read is harmless.
      if (this.seq !== null && frame.prev > this.seq) this.send({ type: "resume", since: this.seq });
    }
    this.seq = frame.seq;
    this.options.onMetrics(frame);
  }

  private closed(socket: WebSocket, event: CloseEvent): void {
    if (this.socket !== socket) return;
    this.socket = null;
    if (!this.running) return;
    if (FINAL_CLOSE_CODES.has(event.code)) {
      this.running = false;
      this.unsubscribeVisibility?.();
      this.setStatus("closed");
      return;
    }
    if (!this.opened) this.failures += 1;
    this.setStatus(this.failures >= UNAVAILABLE_AFTER ? "unavailable" : "connecting");
    // A hidden tab reconnects when it is shown again, not in the background.
    if (!this.options.visibility.hidden()) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    clearTimeout(this.retryTimer);
    const delay = this.options.backoff(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      if (this.running && !this.socket) this.connect();
    }, delay);
  }

  private onVisibility(): void {
    if (!this.running) return;
    if (this.options.visibility.hidden()) {
      this.pause();
      return;
    }
    if (this.socket && this.socket.readyState === OPEN) {
      this.send({ type: "resume", since: this.seq });
      this.setStatus("live");
    } else if (!this.socket) {
      clearTimeout(this.retryTimer);
      this.connect();
    }
  }

  private pause(): void {
    if (this.socket && this.socket.readyState === OPEN) {
      this.send({ type: "pause" });
      this.setStatus("paused");
    }
  }

  private send(message: Record<string, unknown>): void {
    this.socket?.send(JSON.stringify(message));
  }

  private setStatus(status: StreamStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.options.onStatus?.(status);
  }
}
