// A websocket that reconnects with backoff: the part every live view of the app shares.
// It reports its state, hands each frame's data on, and gives up (reporting the close
// code) when the server closes with a code that says retrying cannot help.

export type SocketStatus = "connecting" | "live" | "closed";

export type ReconnectingSocketOptions = {
  url: () => string;
  onData: (data: unknown) => void;
  onStatus?: (status: SocketStatus) => void;
  /** Close codes after which it stops (signed out, not allowed, no such thing). */
  finalCodes?: ReadonlySet<number>;
  onFinal?: (code: number) => void;
  createSocket?: (url: string) => WebSocket;
  /** Delay before reconnect attempt `n` (0-based), in milliseconds. */
  backoff?: (attempt: number) => number;
};

/** 1 s, 2 s, 4 s ... capped at 30 s, with up to 25 % jitter so tabs do not reconnect in step. */
export function defaultBackoff(attempt: number): number {
  const base = Math.min(30_000, 1_000 * 2 ** attempt);
  return base + Math.random() * base * 0.25;
}

export function socketUrl(path: string, location: Pick<Location, "protocol" | "host"> = window.location): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

export class ReconnectingSocket {
  private socket: WebSocket | null = null;
  private running = false;
  private attempt = 0;
  private status: SocketStatus = "closed";
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly createSocket: (url: string) => WebSocket;
  private readonly backoff: (attempt: number) => number;

  constructor(private readonly options: ReconnectingSocketOptions) {
    this.createSocket = options.createSocket ?? ((url) => new WebSocket(url));
    this.backoff = options.backoff ?? defaultBackoff;
  }

  getStatus(): SocketStatus {
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
      socket = this.createSocket(this.options.url());
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
    socket.onmessage = (message: MessageEvent) => this.options.onData(message.data);
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus("closed");
      if (!this.running) return;
      if (this.options.finalCodes?.has(event.code)) {
        this.running = false;
        this.options.onFinal?.(event.code);
        return;
      }
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    clearTimeout(this.retryTimer);
    const delay = this.backoff(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      if (this.running && !this.socket) this.connect();
    }, delay);
  }

  private setStatus(status: SocketStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.options.onStatus?.(status);
  }
}
