"""The operator's view: /metrics (Prometheus) and /healthz, served in the bot's own event loop,
and the one hook that counts every REST request discord.py makes (and the callbacks it does not
send: `count_answer`).

The metrics themselves are named in ``bot/core/metrics.py``. The server is aiohttp's (discord.py
already depends on it): a scrape reads the live state between the bot's other tasks, and the
few database counts it needs are awaited like any other query, never blocking the loop.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
from aiohttp import web

from bot.core.errors import ConfigError
from bot.core.metrics import Metrics

log = logging.getLogger(__name__)

# What follows the API's base in a request's URL (the gateway's and the CDN's URLs have none).
_API_PATH = re.compile(r"/api/v\d+(/.*)$")
# A health check or a scrape waits this long for the database, then calls it unreachable.
STORE_TIMEOUT = 2.0
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def http_trace(metrics: Metrics) -> aiohttp.TraceConfig:
    """A trace for discord.py's HTTP session, which sends every REST request (the interaction
    callbacks and webhooks too): each answer counted by method, route and status."""
    trace = aiohttp.TraceConfig()

    async def on_request_end(
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        response = params.response
        count_answer(metrics, params.method, params.url.path, response.status, response.headers)

    trace.on_request_end.append(on_request_end)
    return trace


def count_answer(
    metrics: Metrics, method: str, path: str, status: int, headers: Mapping[str, str]
) -> None:
    """One REST answer counted (from discord.py's session's trace, or from the callbacks'
    own connections, ``fast_http``)."""
    found = _API_PATH.search(path)
    if found is None:
        return
    scope = None
    if status == 429:
        global_ = headers.get("X-RateLimit-Global", "").lower() == "true"
        scope = "global" if global_ else headers.get("X-RateLimit-Scope", "user")
    metrics.request(method, found.group(1), status, scope)


def gateway_up(client: discord.Client) -> bool:
    """Every gateway connection of the client is open (all its shards, when sharded)."""
    if client.is_closed():
        return False
    if isinstance(client, discord.AutoShardedClient):
        shards = list(client.shards.values())
        return bool(shards) and not any(shard.is_closed() for shard in shards)
    ws: Any = client.ws
    return ws is not None and bool(ws.open)


class Monitor:
    """Serves ``/metrics`` and ``/healthz`` on ``host:port`` (port 0: a free one, see ``port``).

    ``gateway``: whether the gateway is connected now; ``store_check``: raises unless the
    database answers; ``refresh``: reads what the gauges show from the database."""

    def __init__(
        self,
        metrics: Metrics,
        *,
        host: str,
        port: int,
        gateway: Callable[[], bool],
        store_check: Callable[[], Awaitable[None]],
        refresh: Callable[[], Awaitable[None]],
    ) -> None:
        self.metrics = metrics
        self.host = host
        self.requested_port = port
        self.port = port
        self._gateway = gateway
        self._store_check = store_check
        self._refresh = refresh
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.requested_port).start()
        except OSError as exc:
            await runner.cleanup()
            raise ConfigError(
                f"config error: metrics_port: cannot serve metrics on "
                f"{self.host}:{self.requested_port} ({exc.strerror or exc})"
            ) from None
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        log.info("metrics on http://%s:%d/metrics (health: /healthz)", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def _metrics(self, request: web.Request) -> web.Response:
        try:
            await asyncio.wait_for(self._refresh(), STORE_TIMEOUT)
        except Exception as exc:  # the database's gauges keep their last values
            log.debug("metrics: the database's counts could not be read (%r)", exc)
        return web.Response(body=self.metrics.exposition(), headers={"Content-Type": CONTENT_TYPE})

    async def _healthz(self, request: web.Request) -> web.Response:
        problems = []
        if not self._gateway():
            problems.append("gateway: disconnected")
        try:
            await asyncio.wait_for(self._store_check(), STORE_TIMEOUT)
        except Exception as exc:
            problems.append(f"database: unreachable ({type(exc).__name__})")
        if problems:
            return web.Response(status=503, text="\n".join(problems) + "\n")
        return web.Response(text="ok\n")


def game_of_click(match: re.Match[str], cached: Callable[[int], str | None]) -> str | None:
    """The game a click's custom_id names, or that of the session it names (once loaded)."""
    groups = match.groupdict()
    if groups.get("game"):
        return groups["game"]
    sid = groups.get("sid")
    return cached(int(sid)) if sid else None
