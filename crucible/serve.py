"""The web server: uvicorn serving ``crucible.asgi`` (HTTP and websockets).

``python -m crucible.serve --host 0.0.0.0 --port 8000``; `make run`, the compose file, the
image and the tests all start it this way, so the server's options are decided here once:

- uvicorn hands a request body to the app as it arrives, under flow control. A server that
  receives and parses a whole form before the app runs (daphne does, in its event loop) lets
  any anonymous POST stall every other request and grow the process by the body's size;
  here the app's limits (``crucible.api.request_size``) apply while the body streams.
- Proxy headers are off: the client's address and scheme are decided once, by
  ``ClientAddressMiddleware`` against ``TRUSTED_PROXIES``. uvicorn would otherwise believe
  ``X-Forwarded-For`` from any process on 127.0.0.1.
- Headers are parsed by h11, which refuses a request whose head passes a bound
  (``MAX_HEAD_BYTES``); the faster C parser keeps every header line it is sent.
- Channels' router speaks no lifespan protocol.
"""

from __future__ import annotations

import argparse
import os

import uvicorn

APP = "crucible.asgi:application"
# A request line and headers: a browser's, cookies included, stay well under this.
MAX_HEAD_BYTES = 64 * 1024
# Browsers send the app's sockets only pings; a bigger message is refused, not buffered.
WS_MAX_MESSAGE_BYTES = 64 * 1024
# A stop waits this long for open requests, then closes them (sockets reconnect elsewhere).
GRACEFUL_STOP_S = 10


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m crucible.serve", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WEB_CONCURRENCY", "1")),
        help="processes sharing the port (default: WEB_CONCURRENCY or 1)",
    )
    args = parser.parse_args(argv)
    uvicorn.run(
        APP,
        host=args.host,
        port=args.port,
        workers=args.workers,
        http="h11",
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        ws="websockets-sansio",
        ws_max_size=WS_MAX_MESSAGE_BYTES,
        proxy_headers=False,
        lifespan="off",
        timeout_graceful_shutdown=GRACEFUL_STOP_S,
    )


if __name__ == "__main__":
    main()
