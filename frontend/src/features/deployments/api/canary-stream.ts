// The canary page's websocket, /ws/canaries/<id>/: the canary as JSON on connect and at every
// change. While it is not open (no websocket server, a dropped connection) the page polls
// GET /canaries/<id>/ instead; it reconnects with backoff unless the server turned it away.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";

import { CLOSE_UNAUTHENTICATED } from "@/lib/live";
import { ReconnectingSocket, socketUrl, type SocketStatus } from "@/lib/socket";

import { canaryKey, canaryOptions } from "./canaries";
import type { Canary } from "./types";

export type CanaryStreamStatus = SocketStatus;

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

export function canaryStreamUrl(id: number, location?: Pick<Location, "protocol" | "host">): string {
  return socketUrl(`/ws/canaries/${id}/`, location);
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

/** The canary's socket: each frame that carries the canary goes to `onCanary`. */
export class CanaryStream extends ReconnectingSocket {
  constructor({ canaryId, onCanary, location, ...options }: CanaryStreamOptions) {
    super({
      ...options,
      url: () => canaryStreamUrl(canaryId, location),
      onData: (data) => {
        const canary = canaryFromFrame(data);
        if (canary) onCanary(canary);
      },
      finalCodes: FINAL_CLOSE_CODES,
    });
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
