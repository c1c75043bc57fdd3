// The one websocket client: connects to /ws/events/, reconnects with backoff and
// turns each server event into query-cache invalidations.
import type { QueryClient, QueryKey } from "@tanstack/react-query";
import { createContext, useContext, useSyncExternalStore } from "react";

export type LiveStatus = "connecting" | "live" | "offline";

export type LiveEvent = { type: string; [key: string]: unknown };

/** Event types whose keys do not follow the "<first segment of type>" rule. */
export type InvalidationMap = Record<string, QueryKey[]>;

export type LiveClientOptions = {
  queryClient: QueryClient;
  invalidates?: InvalidationMap;
  url?: string;
  createSocket?: (url: string) => WebSocket;
  /** Called when the server refuses the connection because the session ended. */
  onUnauthenticated?: () => void;
  /** Delay before reconnect attempt `n` (0-based), in milliseconds. */
  backoff?: (attempt: number) => number;
  /** How long invalidations are gathered before they are applied, in milliseconds. */
  flushDelay?: number;
};

export function liveUrl(location: Pick<Location, "protocol" | "host"> = window.location): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws/events/`;
}

/** 1 s, 2 s, 4 s ... capped at 30 s, with up to 25 % jitter so tabs do not reconnect in step. */
export function defaultBackoff(attempt: number): number {
  const base = Math.min(30_000, 1_000 * 2 ** attempt);
  return base + Math.random() * base * 0.25;
}

/** Messages about the connection itself, which say nothing about any data. */
const CONTROL_TYPES = new Set(["hello", "ping", "pong", "error"]);

/** The server closes with 4401 when the session is gone (see crucible/realtime/consumers.py). */
export const CLOSE_UNAUTHENTICATED = 4401;

/** "run.updated" invalidates ["run"] unless the map names the keys for that type. */
export function keysForEvent(type: string, invalidates: InvalidationMap = {}): QueryKey[] {
  if (CONTROL_TYPES.has(type)) return [];
  return invalidates[type] ?? [[type.split(".")[0]]];
}

export function parseEvent(data: unknown): LiveEvent | null {
  if (typeof data !== "string") return null;
  try {
    const event: unknown = JSON.parse(data);
    if (typeof event === "object" && event !== null && typeof (event as LiveEvent).type === "string") {
      return event as LiveEvent;
    }
  } catch {
    // A frame that is not JSON carries nothing for the cache.
  }
  return null;
}

export class LiveClient {
  private status: LiveStatus = "offline";
  private socket: WebSocket | null = null;
  private attempt = 0;
  private running = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private pending = new Map<string, QueryKey>();
  private statusListeners = new Set<() => void>();
  private eventListeners = new Set<(event: LiveEvent) => void>();
  private readonly options: Required<Omit<LiveClientOptions, "url" | "onUnauthenticated">> &
    Pick<LiveClientOptions, "url" | "onUnauthenticated">;

  constructor(options: LiveClientOptions) {
    this.options = {
      invalidates: {},
      createSocket: (url) => new WebSocket(url),
      backoff: defaultBackoff,
      flushDelay: 150,
      ...options,
    };
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
    this.setStatus("offline");
  }

  getStatus = (): LiveStatus => this.status;

  subscribeStatus = (listener: () => void): (() => void) => {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  };

  /** For components that want the raw events (say, a live metrics chart). */
  onEvent(listener: (event: LiveEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  private connect(): void {
    this.setStatus("connecting");
    const socket = this.options.createSocket(this.options.url ?? liveUrl());
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.setStatus("live");
    };
    socket.onmessage = (message: MessageEvent) => {
      const event = parseEvent(message.data);
      if (event) this.handle(event);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus("offline");
      if (event.code === CLOSE_UNAUTHENTICATED) {
        // Retrying cannot help; the app re-checks the session and leaves for /login.
        this.running = false;
        this.options.onUnauthenticated?.();
        return;
      }
      if (this.running) this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    const delay = this.options.backoff(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      if (this.running) this.connect();
    }, delay);
  }

  private handle(event: LiveEvent): void {
    this.eventListeners.forEach((listener) => listener(event));
    const keys = keysForEvent(event.type, this.options.invalidates);
    if (keys.length === 0) return;
    for (const key of keys) {
      this.pending.set(JSON.stringify(key), key);
    }
    // Bursts of events (metrics every step) become one refetch per key.
    if (this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => this.flush(), this.options.flushDelay);
    }
  }

  private flush(): void {
    this.flushTimer = undefined;
    const keys = [...this.pending.values()];
    this.pending.clear();
    for (const queryKey of keys) void this.options.queryClient.invalidateQueries({ queryKey });
  }

  private setStatus(status: LiveStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.statusListeners.forEach((listener) => listener());
  }
}

export const LiveClientContext = createContext<LiveClient | null>(null);

export function useLiveClient(): LiveClient | null {
  return useContext(LiveClientContext);
}

const alwaysOffline = () => "offline" as const;
const noSubscription = () => () => {};

export function useLiveStatus(): LiveStatus {
  const client = useLiveClient();
  return useSyncExternalStore(
    client?.subscribeStatus ?? noSubscription,
    client?.getStatus ?? alwaysOffline,
    alwaysOffline,
  );
}
