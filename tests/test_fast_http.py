"""The callbacks' own HTTP client (bot/adapter/fast_http.py) against a local aiohttp server:
answers framed every way HTTP/1.1 frames them, connections kept alive and reused, and every
failure an OSError with the connection dropped."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web

from bot.adapter import fast_http
from bot.adapter.fast_http import FastHttp
from tests.local_http import serving


class Server:
    def __init__(self) -> None:
        self.peers: list[Any] = []  # the client's (host, port) of each request
        self.bodies: list[bytes] = []
        self.queries: list[str] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.peers.append(
            request.transport.get_extra_info("peername") if request.transport else None
        )
        self.bodies.append(await request.read())
        self.queries.append(request.query_string)
        kind = request.match_info["kind"]
        if kind == "empty":
            return web.Response(status=204)
        if kind == "json":
            return web.json_response({"code": 10062, "message": "Unknown interaction"}, status=404)
        if kind == "chunked":
            response = web.StreamResponse(status=200, headers={"Content-Type": "text/plain"})
            response.enable_chunked_encoding()
            await response.prepare(request)
            for part in (b"one ", b"two ", b"three"):
                await response.write(part)
            await response.write_eof()
            return response
        if kind == "close":
            return web.Response(status=200, text="bye", headers={"Connection": "close"})
        if kind == "drop":
            assert request.transport is not None
            request.transport.close()
            await asyncio.sleep(0.05)
            return web.Response(status=204)
        raise web.HTTPNotFound()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    state = Server()
    app = web.Application()
    app.router.add_post("/api/v10/{kind}", state.handle)
    async with serving(app) as base:
        state.url = f"{base}/api/v10"
        yield state


async def test_answers_and_a_kept_connection(server: Server) -> None:
    seen: list[tuple[str, str, int]] = []
    http = FastHttp("test-agent", observe=lambda m, path, status, h: seen.append((m, path, status)))
    try:
        empty = await http.post_json(f"{server.url}/empty", b'{"type": 6}')
        assert (empty.status, empty.body) == (204, b"")
        error = await http.post_json(f"{server.url}/json", b"{}", {"with_response": "1"})
        assert error.status == 404 and error.reason == "Not Found"
        assert error.headers.get("CONTENT-TYPE", "").startswith("application/json")
        assert b'"code": 10062' in error.body or b'"code":10062' in error.body
        chunked = await http.post_json(f"{server.url}/chunked", b"{}")
        assert (chunked.status, chunked.text()) == (200, "one two three")
    finally:
        await http.close()
    assert server.bodies[0] == b'{"type": 6}'
    assert server.queries[1] == "with_response=1"
    assert len(set(server.peers)) == 1, "each request opened a connection of its own"
    assert seen == [
        ("POST", "/api/v10/empty", 204),
        ("POST", "/api/v10/json", 404),
        ("POST", "/api/v10/chunked", 200),
    ]


async def test_a_connection_the_server_closes_is_not_reused(server: Server) -> None:
    http = FastHttp("test-agent")
    try:
        closing = await http.post_json(f"{server.url}/close", b"{}")
        assert (closing.status, closing.text()) == (200, "bye")
        await http.post_json(f"{server.url}/empty", b"{}")
    finally:
        await http.close()
    assert len(set(server.peers)) == 2


async def test_a_dropped_connection_is_an_os_error_and_is_not_reused(server: Server) -> None:
    http = FastHttp("test-agent")
    try:
        await http.post_json(f"{server.url}/empty", b"{}")
        with pytest.raises(OSError):
            await http.post_json(f"{server.url}/drop", b"{}")
        after = await http.post_json(f"{server.url}/empty", b"{}")
        assert after.status == 204
    finally:
        await http.close()
    assert len(set(server.peers)) == 2, "the dropped connection was used again"


async def test_an_unreachable_host_is_an_os_error() -> None:
    http = FastHttp("test-agent")
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    try:
        with pytest.raises(OSError):
            await http.post_json(f"http://127.0.0.1:{port}/api/v10/empty", b"{}")
    finally:
        await http.close()


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def raw_server(serve: Handler) -> AsyncIterator[tuple[int, list[asyncio.StreamWriter]]]:
    """A bare TCP server on a free port answering with ``serve``: its port, and the
    connections it accepted (closed, with the server, at the end)."""
    accepted: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)
        await serve(reader, writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], accepted
    finally:
        for writer in accepted:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_an_unanswered_request_times_out_and_its_connection_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One watch, not a timer per request: a request past its time is aborted all the same,
    as a TimeoutError (its caller retries it inside Discord's window)."""
    monkeypatch.setattr(fast_http, "TIMEOUT", 0.2)
    monkeypatch.setattr(fast_http, "WATCH_EVERY", 0.05)
    heard: list[bytes] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heard.append(await reader.readuntil(b"\r\n\r\n"))  # and never answers

    async with raw_server(silent) as (port, _):
        http = FastHttp("test-agent")
        try:
            with pytest.raises(TimeoutError):
                await http.post_json(f"http://127.0.0.1:{port}/api/v10/empty", b"{}")
            assert heard and heard[0].startswith(b"POST /api/v10/empty HTTP/1.1\r\n")
            assert not http._busy and not http._idle.get(("http", "127.0.0.1", port))
        finally:
            await http.close()


async def test_a_url_with_a_query_keeps_it(server: Server) -> None:
    http = FastHttp("test-agent")
    try:
        await http.post_json(f"{server.url}/empty?a=1", b"{}", {"with_response": "1"})
        await http.post_json(f"{server.url}/empty?b=2", b"{}")
    finally:
        await http.close()
    assert server.queries == ["a=1&with_response=1", "b=2"]


async def test_an_answer_in_pieces_is_read_whole_and_its_connection_kept() -> None:
    """The answer is read as its bytes arrive: a 100 Continue first, then headers and a chunked
    body (with a trailer) split anywhere, then a second answer on the same connection."""
    pieces = [
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Enc",
        b"oding: chunked\r\nX-Seen: a\r\nx-seen: b\r\n\r\n4\r\non",
        b"e \r\n3;ext=1\r\ntwo\r\n0\r\nTrailer: t\r\n",
        b"\r\n",
    ]
    second = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nthree"

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)
        for piece in pieces:
            writer.write(piece)
            await writer.drain()
            await asyncio.sleep(0.01)
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)
        writer.write(second)

    async with raw_server(serve) as (port, accepted):
        http = FastHttp("test-agent")
        try:
            first = await http.post_json(f"http://127.0.0.1:{port}/api/v10/x", b"{}")
            assert (first.status, first.text()) == (200, "one two")
            assert first.headers["X-SEEN"] == "a, b"
            again = await http.post_json(f"http://127.0.0.1:{port}/api/v10/x", b"{}")
            assert (again.status, again.text()) == (200, "three")
            assert len(accepted) == 1, "the kept connection was not used again"
        finally:
            await http.close()
