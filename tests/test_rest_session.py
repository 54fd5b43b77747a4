"""discord.py's own REST requests on the kept-alive connections (bot/adapter/rest_session.py):
the same requests, byte for byte, as through aiohttp; the same answers and errors read by
discord.py; everything but a plain POST or PATCH still aiohttp's; discord.py's rate-limit
buckets swept when their number doubled. Through discord.py's real
``HTTPClient`` against a local aiohttp server (the bot against the emulator:
tests/e2e/test_rest_session_e2e.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import pytest
from aiohttp import web
from discord.http import HTTPClient, Ratelimit, Route

from bot.adapter import rest_session
from bot.adapter.fast_http import FastHttp
from tests.local_http import serving

# What discord.py sets and a server reads (aiohttp adds Accept-Encoding, which we do not ask).
COMPARED = ("Authorization", "User-Agent", "Content-Type", "X-Audit-Log-Reason", "Content-Length")


@dataclass
class Seen:
    method: str
    path: str
    query: str
    headers: dict[str, str | None]
    body: bytes


def as_discord(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON typed exactly as Discord types it (discord.py decodes no other type)."""
    response = web.Response(body=json.dumps(data).encode(), status=status, headers=headers)
    response.headers["Content-Type"] = "application/json"
    return response


@dataclass
class Server:
    url: str = ""
    seen: list[Seen] = field(default_factory=list)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {name: request.headers.get(name) for name in COMPARED}
        self.seen.append(Seen(request.method, request.path, request.query_string, headers, body))
        tail = request.match_info["tail"]
        if tail == "users/@me":
            return as_discord({"id": "1", "username": "bot", "discriminator": "0"})
        if tail.startswith("refused"):
            errors = {"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Long"}]}}
            return as_discord(
                {"code": 50035, "message": "Invalid Form Body", "errors": errors}, status=400
            )
        if tail.startswith("closed"):
            return as_discord(
                {"code": 50007, "message": "Cannot send messages to this user"}, status=403
            )
        if tail.startswith("outage"):
            return web.Response(
                text="<html>Bad gateway</html>", status=503, content_type="text/html"
            )
        if tail.startswith("dropped"):
            assert request.transport is not None
            request.transport.close()
            await asyncio.sleep(0.05)
            return web.Response(status=204)
        if tail.startswith("empty"):
            return web.Response(status=204)
        return as_discord(
            {"id": "2", "echo": tail},
            headers={
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "4",
                "X-RateLimit-Reset-After": "1.000",
                "X-RateLimit-Bucket": "abcd",
            },
        )


@pytest.fixture
async def server(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Server]:
    state = Server()
    app = web.Application()
    app.router.add_route("*", "/api/v10/{tail:.*}", state.handle)
    async with serving(app) as base:
        state.url = f"{base}/api/v10"
        monkeypatch.setattr(Route, "BASE", state.url)
        yield state


@dataclass
class Client:
    http: HTTPClient
    fast: FastHttp
    answered: list[tuple[str, str, int]]  # what the kept-alive connections carried


@pytest.fixture
async def client(server: Server) -> AsyncIterator[Client]:
    http = HTTPClient(asyncio.get_running_loop())
    await http.static_login("bot-token")
    answered: list[tuple[str, str, int]] = []
    fast = FastHttp(http.user_agent, observe=lambda m, p, s, h: answered.append((m, p, s)))
    yield Client(http, fast, answered)
    await fast.close()
    await http.close()


def install(c: Client) -> None:
    rest_session.install(c.http, c.fast)


async def some_requests(http: HTTPClient) -> list[Any]:
    """A DM sent, edited with an audit-log reason (not ASCII), a POST with no body, a GET."""
    payload = {"content": "Crème brûlée 🍮 — ton tour", "components": [], "nonce": "7"}
    return [
        await http.request(
            Route("POST", "/channels/{channel_id}/messages", channel_id=5), json=payload
        ),
        await http.request(
            Route(
                "PATCH", "/channels/{channel_id}/messages/{message_id}", channel_id=5, message_id=9
            ),
            json={"content": "edited"},
            reason="moved: café à 2",
        ),
        await http.request(Route("POST", "/channels/{channel_id}/typing", channel_id=5)),
        await http.request(Route("GET", "/channels/{channel_id}", channel_id=5)),
    ]


async def test_requests_and_answers_are_the_same_as_through_aiohttp(
    server: Server, client: Client
) -> None:
    server.seen.clear()
    before = await some_requests(client.http)
    through_aiohttp = list(server.seen)
    assert client.answered == []

    install(client)
    server.seen.clear()
    after = await some_requests(client.http)
    assert after == before
    assert server.seen == through_aiohttp  # method, path, query, headers, body: byte for byte
    assert through_aiohttp[0].headers["Content-Type"] == "application/json"
    assert through_aiohttp[1].headers["X-Audit-Log-Reason"] == "moved%3A caf%C3%A9 %C3%A0 2"
    # The JSON POST and PATCH on the kept-alive connections; the POST with no body (aiohttp
    # types it) and the GET (aiohttp tries it again on a dropped kept-alive connection) still
    # aiohttp's.
    assert [(m, s) for m, _, s in client.answered] == [("POST", 200), ("PATCH", 200)]


async def errors_read(http: HTTPClient) -> list[tuple[str, int, int, str, str]]:
    """Each refusal as discord.py raises it: its kind, status, code, text, message."""
    read = []
    for tail in ("refused", "closed", "outage"):
        with pytest.raises(discord.HTTPException) as info:
            await http.request(Route("POST", f"/{tail}"), json={"content": "x"})
        error = info.value
        read.append((type(error).__name__, error.status, error.code, error.text, str(error)))
    return read


async def test_refusals_are_read_by_discord_py_as_through_aiohttp(
    server: Server, client: Client
) -> None:
    before = await errors_read(client.http)
    install(client)
    after = await errors_read(client.http)
    assert after == before
    assert [kind for kind, *_ in after] == ["HTTPException", "Forbidden", "DiscordServerError"]
    assert after[0][3] == "Invalid Form Body\nIn content: Long"
    assert after[1][4] == "403 Forbidden (error code: 50007): Cannot send messages to this user"
    assert len(client.answered) == 3


async def test_a_dropped_answer_is_aiohttps_error_and_an_empty_one_is_read(
    server: Server, client: Client
) -> None:
    install(client)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await client.http.request(Route("POST", "/dropped"), json={"content": "x"})
    assert await client.http.request(Route("PATCH", "/empty"), json={}) == ""
    # the next request on a fresh connection
    assert (await client.http.request(Route("POST", "/next"), json={}))["echo"] == "next"


async def test_files_and_a_closed_fast_client_go_through_aiohttp(
    server: Server, client: Client
) -> None:
    install(client)
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=5)
    file = discord.File(__file__, filename="table.png")
    form = [
        {"name": "payload_json", "value": '{"content": "the table"}'},
        {"name": "files[0]", "value": file.fp, "filename": "table.png"},
    ]
    await client.http.request(route, form=form, files=[file])
    assert str(server.seen[-1].headers["Content-Type"]).startswith("multipart/form-data")
    assert client.answered == []
    await client.fast.close()
    assert (await client.http.request(route, json={"content": "late"}))["id"] == "2"
    assert client.answered == []


async def test_a_request_after_the_session_closed_is_refused_as_by_aiohttp(
    server: Server, client: Client
) -> None:
    install(client)
    await client.http.close()
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=5)
    with pytest.raises(RuntimeError, match="Session is closed"):
        await client.http.request(route, json={"content": "after the stop"})
    assert client.answered == []


async def test_buckets_are_swept_when_their_number_doubled() -> None:
    http = HTTPClient(asyncio.get_running_loop())
    rest_session.sweep_buckets_when_doubled(http)
    now = asyncio.get_running_loop().time()

    def new(key: str, *, idle: bool = False) -> None:
        http.get_ratelimit(key)
        if idle:  # its last request 10 minutes ago: discord.py may drop it
            bucket: Ratelimit = http._buckets[key]
            bucket._last_request = now - 600

    for n in range(255):
        new(f"old:{n}", idle=True)
    new("live:0")  # the 256th: swept, as discord.py sweeps
    assert list(http._buckets) == ["live:0"]
    for n in range(1, 300):
        new(f"live:{n}")  # a sweep at 256 finds none idle: the next at 512
    for n in range(200):
        new(f"idle:{n}", idle=True)
    # discord.py would have walked all of them for each new one, and dropped the idle ones
    assert len(http._buckets) == 500
    for n in range(12):
        new(f"more:{n}")
    assert len(http._buckets) == 312  # the 512th: the 200 idle ones swept
    assert not any(key.startswith("idle:") for key in http._buckets)
