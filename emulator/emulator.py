"""A loopback emulator of the parts of Discord's REST API and gateway that cafebot uses.

The real (unmodified) discord.py client talks to it over 127.0.0.1: REST under
``http://127.0.0.1:PORT/api/v10`` and the gateway at ``ws://127.0.0.1:PORT/``. Tests drive
simulated users (``slash``, ``click``, ``select``...) and inspect what the bot produced
(``channel_messages``, ``dm_messages``, ``ephemerals``, ``visible_to``...). The emulator is
strict where Discord is strict and records every breach in ``violations``.

The emulator is one class built in layers, one module per Discord resource, each layer using
only the ones below it (read them bottom-up): ``core`` (state, clock, ids, REST errors) <-
``payloads`` <- ``gateway`` <- ``guilds`` <- ``users`` (and DMs) <- ``channels`` (and threads)
<- ``attachments`` <- ``messages`` <- ``commands`` (application commands) <- ``interactions``
<- ``simulated`` (what simulated users do) <- ``rest`` (routes, rate limits, faults) <- this
module (lifecycle, ``assert_clean``). Payload limits live in ``validation``, rate-limit
buckets in ``ratelimits``, injected faults in ``faults``.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from aiohttp import web

from .models import EmulatorError
from .rest import RestServer


class DiscordEmulator(RestServer):
    """In-memory Discord: REST + gateway on 127.0.0.1, simulated users, strict validation."""

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self._gateway)
        app.router.add_get("/attachments/{cid}/{aid}/{filename}", self._attachment)
        app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", self._rest)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        site = web.SockSite(runner, sock, backlog=4096)
        await site.start()
        self._runner = runner

    async def stop(self) -> None:
        for conn in list(self._conns):
            await conn.close(1001)
            if conn.writer is not None:
                conn.writer.cancel()
        self._conns.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordEmulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def env(self) -> dict[str, str]:
        """Environment for a bot in a separate process."""
        return {
            "CAFEBOT_DISCORD_API_BASE": self.rest_base,
            "CAFEBOT_DISCORD_GATEWAY": self.gateway_url,
            "DISCORD_TOKEN": self.token,
        }

    def patch_discord(self) -> Callable[[], None]:
        """Point this process's discord.py at the emulator; returns an undo callable."""
        import discord.gateway
        import discord.http
        import yarl

        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.rest_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

        def undo() -> None:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

        return undo

    def assert_clean(self, *, allow_rate_limited: bool = False) -> None:
        """Raise if the bot did anything Discord would have rejected, hit an unknown route, or
        (unless ``allow_rate_limited``) was answered a 429 by the rate-limit buckets. Injected
        faults (``inject_fault``, ``force_rate_limit``) never count."""
        problems = [str(v) for v in self.violations]
        problems += [f"unknown route {m} {p}" for m, p in self.unknown_routes]
        if not allow_rate_limited:
            problems += [
                f"429 ({r.scope}, bucket {r.bucket}, retry_after {r.retry_after}s) "
                f"[{r.method} {r.path}]"
                for r in self.rate_limited
            ]
        if problems:
            raise EmulatorError("emulator saw problems:\n  " + "\n  ".join(problems))
