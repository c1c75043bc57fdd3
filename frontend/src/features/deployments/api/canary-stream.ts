// The canary page's websocket, /ws/canaries/<id>/: the canary as JSON on connect and at every
// change. While it is not open (no websocket server, a dropped connection) the page polls
// GET /canaries/<id>/ instead; it reconnects with backoff unless the server turned it away.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";

import { CLOSE_UNAUTHENTICATED, defaultBackoff } from "@/lib/live";

import { canaryKey, canaryOptions } from "./canaries";
import type { Canary } from "./types";

export type CanaryStreamStatus = "connecting" | "live" | "closed";

/** Not the caller's canary, or no such canary, or signed out: retrying cannot help. */
const FINAL_CLOSE_CODES = new Set([CLOSE_UNAUTHENTICATED, 4403, 4404]);

export type CanaryStreamOptions = {
  canaryId: number;
  onCanary: (canary: Canary) => void;
  onStatus?: (status: CanaryStreamStatus) => void;
  createSocket?: (url: string) => WebSocket;
  backoff?: (attempt: number) => number;
  location?: Pick<Location, "protocol" | "host">;
};

export function canaryStreamUrl(id: number, location: Pick<Location, "protocol" | "host"> = window.location): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws/canaries/${id}/`;
}

/** The canary a frame carries, or null for anything else (hello, pong, not JSON). */
export function canaryFromFrame(data: unknown): Canary | null {
  if (typeof data !== "string") return null;
  try {
    const frame = JSON.parse(data) as { type?: unknown; canary?: unknown };
    if (frame?.type === "canary" && typeof frame.canary === "object" && frame.canary !== null) {
      return frame.canary as Canary;
    }
  } catch {
    // Not JSON: nothing for the page.
  }
  return null;
}

export class CanaryStream {
  private socket: WebSocket | null = null;
  private running = false;
  private attempt = 0;
  private status: CanaryStreamStatus = "closed";
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly options: CanaryStreamOptions & Required<Pick<CanaryStreamOptions, "createSocket" | "backoff">>;

  constructor(options: CanaryStreamOptions) {
    this.options = {
      ...options,
      createSocket: options.createSocket ?? ((url) => new WebSocket(url)),
      backoff: options.backoff ?? defaultBackoff,
    };
  }

  getStatus(): CanaryStreamStatus {
    return this.status;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.setStatus("closed");
  }

  private connect(): void {
    this.setStatus("connecting");
    let socket: WebSocket;
    try {
      socket = this.options.createSocket(canaryStreamUrl(this.options.canaryId, this.options.location));
    } catch {
      this.setStatus("closed");
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.setStatus("live");
    };
    socket.onmessage = (message: MessageEvent) => {
      const canary = canaryFromFrame(message.data);
      if (canary) this.options.onCanary(canary);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus("closed");
      if (!this.running) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.running = false;
        return;
      }
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    clearTimeout(this.retryTimer);
    const delay = this.options.backoff(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      if (this.running && !this.socket) this.connect();
    }, delay);
  }

  private setStatus(status: CanaryStreamStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.options.onStatus?.(status);
  }
}

/**
 * One canary, live: from its websocket while that is open, else by polling every 3 s.
 * `stream` says which ("live" or not).
 */
export function useCanary(id: number, createSocket?: (url: string) => WebSocket) {
  const queryClient = useQueryClient();
  const [stream, setStream] = useState<CanaryStreamStatus>("closed");
  const query = useQuery(canaryOptions(id, stream !== "live"));

  useEffect(() => {
    if (!Number.isFinite(id)) return;
    const client = new CanaryStream({
      canaryId: id,
      onCanary: (canary) => queryClient.setQueryData(canaryKey(id), canary),
      onStatus: setStream,
      createSocket,
    });
    client.start();
    return () => {
      client.stop();
      setStream("closed");
    };
  }, [id, queryClient, createSocket]);

  return { ...query, stream };
}
