// The one websocket client: connects to /ws/events/, reconnects with backoff and
// turns each server event into query-cache invalidations.
import type { QueryClient, QueryKey } from "@tanstack/react-query";
import { createContext, useContext, useSyncExternalStore } from "react";

import type { components } from "@/api/schema";

import { ReconnectingSocket, socketUrl } from "./socket";

export type LiveStatus = "connecting" | "live" | "offline";

/** What one of the caller's teams changed (the schema's enum, from crucible/realtime/event_types.py). */
export type LiveEventType = components["schemas"]["LiveEventType"];
/** Frames about the connection itself. */
export type SocketFrameType = components["schemas"]["SocketFrameType"];

/** `type` is a string at run time: a newer server may send a type this build does not know. */
export type LiveEvent = { type: LiveEventType | SocketFrameType | (string & Record<never, never>); [key: string]: unknown };

/** Event types whose keys do not follow the "<first segment of type>" rule. */
export type InvalidationMap = Partial<Record<LiveEventType, QueryKey[]>>;

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

export function liveUrl(location?: Pick<Location, "protocol" | "host">): string {
  return socketUrl("/ws/events/", location);
}

/** Messages about the connection itself, which say nothing about any data. */
const CONTROL_TYPES = new Set<string>(["hello", "ping", "pong", "error"] satisfies (SocketFrameType | "ping")[]);

/** The server closes with 4401 when the session is gone (see crucible/realtime/consumers.py). */
export const CLOSE_UNAUTHENTICATED = 4401;

/** "run.updated" invalidates ["run"] unless the map names the keys for that type. */
export function keysForEvent(type: string, invalidates: InvalidationMap = {}): QueryKey[] {
  if (CONTROL_TYPES.has(type)) return [];
  return invalidates[type as LiveEventType] ?? [[type.split(".")[0]]];
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
  private readonly socket: ReconnectingSocket;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private pending = new Map<string, QueryKey>();
  private statusListeners = new Set<() => void>();
  private eventListeners = new Set<(event: LiveEvent) => void>();
  private readonly options: Required<Pick<LiveClientOptions, "queryClient" | "invalidates" | "flushDelay">>;

  constructor({ queryClient, invalidates = {}, flushDelay = 150, url, onUnauthenticated, ...rest }: LiveClientOptions) {
    this.options = { queryClient, invalidates, flushDelay };
    this.socket = new ReconnectingSocket({
      ...rest,
      url: () => url ?? liveUrl(),
      onData: (data) => {
        const event = parseEvent(data);
        if (event) this.handle(event);
      },
      onStatus: (status) => this.setStatus(status === "closed" ? "offline" : status),
      // Retrying cannot help; the app re-checks the session and leaves for /login.
      finalCodes: new Set([CLOSE_UNAUTHENTICATED]),
      onFinal: () => onUnauthenticated?.(),
    });
  }

  start(): void {
    this.socket.start();
  }

  stop(): void {
    this.socket.stop();
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
