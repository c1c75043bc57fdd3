"""The event loop's kept-alive client to replicas, against a small asyncio HTTP server."""

from __future__ import annotations

import asyncio

import pytest

from serving.openai_api.upstream import Upstream


async def serve(close_after: int | None = None, answer: bool = True):  # type: ignore[no-untyped-def]
    """A server answering each POST with its body; it hangs up after ``close_after`` answers
    on a connection (without saying so), or never answers."""
    opened = []

    async def handle(reader, writer) -> None:  # type: ignore[no-untyped-def]
        opened.append(writer)
        answered = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                body = await reader.readexactly(length)
                if not answer:
                    await asyncio.sleep(10)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
                answered += 1
                if close_after is not None and answered >= close_after:
                    writer.close()
                    return
        except (asyncio.IncompleteReadError, ConnectionResetError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/generate", opened


def test_it_keeps_one_connection_for_requests_in_turn() -> None:
    async def run() -> None:
        server, url, opened = await serve()
        upstream = Upstream()
        for i in range(3):
            answer = await upstream.post(url, b'{"i": %d}' % i, {}, timeout=5)
            assert (answer.status, answer.body) == (200, b'{"i": %d}' % i)
        assert len(opened) == 1
        server.close()

    asyncio.run(run())


def test_a_connection_closed_while_idle_is_sent_again_on_a_new_one() -> None:
    async def run() -> None:
        server, url, opened = await serve(close_after=1)
        upstream = Upstream()
        assert (await upstream.post(url, b"1", {}, timeout=5)).body == b"1"
        await asyncio.sleep(0.05)  # the server has hung up meanwhile
        assert (await upstream.post(url, b"2", {}, timeout=5)).body == b"2"
        assert len(opened) == 2
        server.close()

    asyncio.run(run())


def test_no_answer_in_time_is_a_timeout_and_nothing_is_resent() -> None:
    async def run() -> None:
        server, url, opened = await serve(answer=False)
        with pytest.raises(TimeoutError):
            await Upstream().post(url, b"1", {}, timeout=0.3)
        assert len(opened) == 1
        server.close()

    asyncio.run(run())


def test_an_address_nobody_listens_on_is_an_os_error() -> None:
    async def run() -> None:
        server, url, _ = await serve()
        server.close()
        await server.wait_closed()
        with pytest.raises(OSError):
            await Upstream().post(url, b"1", {}, timeout=5)

    asyncio.run(run())


async def serve_stream(chunks: list[bytes]):  # type: ignore[no-untyped-def]
    """A server answering each POST with ``chunks`` as a chunked body, a pause between them."""
    opened = []

    async def handle(reader, writer) -> None:  # type: ignore[no-untyped-def]
        opened.append(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                await reader.readexactly(length)
                writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                for chunk in chunks:
                    writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    await writer.drain()
                    await asyncio.sleep(0.02)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/generate", opened


def test_a_streamed_answer_is_read_line_by_line_as_it_comes_and_its_connection_kept() -> None:
    # a line split across chunks, two lines in one, then the empty chunk that ends the body
    chunks = [b'{"index": 0, "te', b'xt": "a"}\n{"index": 0, "text": "b"}\n', b'{"done": true}\n', b""]

    async def run() -> None:
        server, url, opened = await serve_stream(chunks)
        upstream = Upstream()
        for _ in range(2):
            answer, events = await upstream.open(url, b"{}", {}, timeout=5)
            assert answer.status == 200 and events is not None
            got = [event async for event in events]
            assert got == [{"index": 0, "text": "a"}, {"index": 0, "text": "b"}, {"done": True}]
        assert len(opened) == 1  # read to its end, the connection served the next request
        with pytest.raises(ConnectionResetError):  # a stream where one answer was expected
            await upstream.post(url, b"{}", {}, timeout=5)
        server.close()

    asyncio.run(run())


@pytest.mark.parametrize(
    "chunks", [[b"not json\n", b""], [b'{"index": 0, "text": "a"}\n']], ids=["garbage", "cut"]
)
def test_a_stream_that_is_not_json_lines_or_ends_early_is_a_lost_connection(chunks) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        server, url, _ = await serve_stream(chunks)
        answer, events = await Upstream().open(url, b"{}", {}, timeout=0.5)
        assert events is not None
        with pytest.raises((ConnectionResetError, TimeoutError)):
            async for _ in events:
                pass
        server.close()

    asyncio.run(run())
