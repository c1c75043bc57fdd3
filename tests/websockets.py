"""What a browser does when the server closes its socket, for tests over the ASGI app."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator


async def close_code(communicator: WebsocketCommunicator) -> int:
    """Read up to the server's close and return its code, then end the connection as a
    browser does: the consumer gets ``websocket.disconnect`` and leaves the channel layer
    while the test's event loop still runs, instead of being cancelled mid-read at teardown."""
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
    await communicator.disconnect()
    return output["code"]
