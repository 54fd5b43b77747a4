"""The gateway: HELLO, IDENTIFY/RESUME, READY, dispatching events to sessions and shards,
outages."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from typing import Any

from aiohttp import WSMsgType, web

from .core import (
    API_VERSION,
    INTENT_GUILDS,
    OP_DISPATCH,
    OP_HEARTBEAT,
    OP_HEARTBEAT_ACK,
    OP_HELLO,
    OP_IDENTIFY,
    OP_INVALID_SESSION,
    OP_RECONNECT,
    OP_REQUEST_MEMBERS,
    OP_RESUME,
    GatewayConnection,
    GatewaySession,
)
from .jsondata import dumps
from .models import EmulatorError, Violation
from .payloads import Payloads
from .validation import Json


class Gateway(Payloads):
    async def _h_gateway(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        return self._json({"url": self.gateway_url.rstrip("/")})

    async def _h_gateway_bot(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        return self._json(
            {
                "url": self.gateway_url.rstrip("/"),
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    def _live_sessions(self) -> list[GatewaySession]:
        return [s for s in self._sessions.values() if s.conn is not None]

    def _routes_to(self, session: GatewaySession, guild_id: int | None) -> bool:
        """Whether Discord sends a guild's events (``None``: DM events) on ``session``."""
        if session.shard is None:
            return True
        return bool(session.shard[0] == self.shard_for(guild_id))

    def _session_for(self, guild_id: int | None) -> GatewaySession:
        live = [s for s in self._live_sessions() if self._routes_to(s, guild_id)]
        if not live:
            if self._live_sessions():
                raise EmulatorError(
                    f"shard {self.shard_for(guild_id)} of the bot is not connected to the "
                    f"emulator's gateway (connected: {self.connected_shards})"
                )
            raise EmulatorError("the bot is not connected to the emulator's gateway")
        return max(live, key=lambda s: s.identified_at)

    @property
    def connected_shards(self) -> list[int]:
        """Shard ids with a live gateway connection (an unsharded client counts as 0)."""
        return sorted({s.shard[0] if s.shard else 0 for s in self._live_sessions()})

    def _update_ready(self) -> None:
        live = self._live_sessions()
        if live and (
            any(s.shard is None for s in live)
            or set(range(self.shard_count)) <= set(self.connected_shards)
        ):
            self._bot_ready.set()
        else:
            self._bot_ready.clear()

    def _send_dispatch(self, session: GatewaySession, event: str, data: Json) -> None:
        session.seq += 1
        raw = dumps({"op": OP_DISPATCH, "t": event, "s": session.seq, "d": data})
        session.buffer.append((session.seq, raw))
        if session.conn is not None:
            session.conn.queue.put_nowait(raw)

    def _dispatch_soon(self, event: str, data: Json, intent: int, *, guild_id: int | None) -> None:
        # Disconnected but resumable sessions buffer the event; RESUME replays it.
        for session in list(self._sessions.values()):
            if session.intents & intent and self._routes_to(session, guild_id):
                self._send_dispatch(session, event, data)

    async def _writer(self, conn: GatewayConnection) -> None:
        while True:
            raw = await conn.queue.get()
            if raw is None or conn.ws.closed:
                return
            try:
                await conn.ws.send_str(raw)
            except (ConnectionError, RuntimeError):
                return

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if asyncio.get_running_loop().time() < self._gateway_down_until:
            self.gateway_refusals += 1
            self._touch()
            return web.Response(
                status=503,
                text="<html><body><h1>503 Service Unavailable</h1></body></html>",
                content_type="text/html",
            )
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        conn = GatewayConnection(ws)
        conn.writer = asyncio.create_task(self._writer(conn))
        self._conns.add(conn)
        conn.send(
            {
                "op": OP_HELLO,
                "s": None,
                "t": None,
                "d": {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ["emulator"]},
            }
        )
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    try:
                        payload = json.loads(msg.data)
                    except json.JSONDecodeError:
                        await conn.close(4002, b"Error while decoding payload.")
                        break
                    await self._on_gateway_message(conn, payload)
                elif msg.type == WSMsgType.BINARY:
                    await conn.close(4002, b"Error while decoding payload.")
                    break
        finally:
            self._conns.discard(conn)
            conn.queue.put_nowait(None)
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
                if ws.close_code in (1000, 1001) and not conn.closed_by_emulator:
                    # A client closing with 1000/1001 ends its session (no RESUME).
                    self._sessions.pop(conn.session.id, None)
            self._update_ready()
            if conn.writer is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await conn.writer
            self._touch()
        return ws

    def _check_shard(self, shard: Any, conn: GatewayConnection) -> tuple[int, str, str] | None:
        """``(close code, reason, violation kind)`` when Discord would refuse this IDENTIFY."""
        if shard is None:
            if self.shard_count > 1:
                return 4011, "Sharding required.", "sharding_required"
            return None
        if (
            not isinstance(shard, list)
            or len(shard) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in shard)
        ):
            return 4010, f"Invalid shard {shard!r}.", "invalid_shard"
        shard_id, count = shard
        if count != self.shard_count or not 0 <= shard_id < count:
            return (
                4010,
                f"Invalid shard {shard!r}: the application runs {self.shard_count} shard(s).",
                "invalid_shard",
            )
        for other in self._live_sessions():
            if (
                other.conn is not conn
                and other.conn is not None
                and not other.conn.ws.closed
                and other.shard is not None
                and other.shard[0] == shard_id
            ):
                return 4010, f"Shard {shard_id} is already connected.", "duplicate_shard"
        return None

    async def _on_gateway_message(self, conn: GatewayConnection, payload: Json) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if op == OP_HEARTBEAT:
            conn.send({"op": OP_HEARTBEAT_ACK, "s": None, "t": None, "d": None})
            return
        self.gateway_log.append(("recv", {"op": op} if op in (OP_IDENTIFY, OP_RESUME) else payload))
        if op == OP_IDENTIFY:
            if not isinstance(data, dict) or data.get("token") != self.token:
                await conn.close(4004, b"Authentication failed.")
                return
            if conn.session is not None:
                await conn.close(4005, b"Already authenticated.")
                return
            refused = self._check_shard(data.get("shard"), conn)
            if refused is not None:
                code, reason, kind = refused
                self.violations.append(Violation(kind, reason))
                await conn.close(code, reason.encode())
                self._touch()
                return
            intents = int(data.get("intents", 0))
            shard = data.get("shard")
            session = GatewaySession(secrets.token_hex(16), intents, list(shard) if shard else None)
            session.identified_at = self.clock()
            self._sessions[session.id] = session
            session.conn = conn
            conn.session = session
            guilds = [g for g in self.guilds.values() if self._routes_to(session, g.id)]
            ready: Json = {
                "v": API_VERSION,
                "user": self._me_payload(),
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.id,
                "session_type": "normal",
                "resume_gateway_url": self.gateway_url,
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "user_settings": {},
                "auth": {},
                "_trace": ["emulator"],
            }
            if session.shard is not None:
                ready["shard"] = session.shard
            self._send_dispatch(session, "READY", ready)
            if intents & INTENT_GUILDS:
                for guild in guilds:
                    self._send_dispatch(session, "GUILD_CREATE", self._guild_create_payload(guild))
            self._update_ready()
            self._touch()
        elif op == OP_RESUME:
            sid = data.get("session_id") if isinstance(data, dict) else None
            resumed = self._sessions.get(str(sid))
            if resumed is None or not isinstance(data, dict) or data.get("token") != self.token:
                conn.send({"op": OP_INVALID_SESSION, "s": None, "t": None, "d": False})
                return
            if resumed.conn is not None and resumed.conn is not conn:
                await resumed.conn.close(4000)
            resumed.conn = conn
            conn.session = resumed
            last = int(data.get("seq") or 0)
            for seq, raw in list(resumed.buffer):
                if seq > last:
                    conn.queue.put_nowait(raw)
            self._send_dispatch(resumed, "RESUMED", {"_trace": ["emulator"]})
            self._update_ready()
            self._touch()
        elif op == OP_REQUEST_MEMBERS and isinstance(data, dict) and conn.session is not None:
            chunk_guild = self.guilds.get(int(data.get("guild_id", 0)))
            if chunk_guild is None:
                return
            wanted = {int(u) for u in data.get("user_ids") or []}
            query = str(data.get("query") or "").lower()
            limit = int(data.get("limit") or 0) or len(chunk_guild.members)
            members = [
                m
                for m in chunk_guild.members.values()
                if (not wanted or m.user_id in wanted)
                and self.users[m.user_id].name.lower().startswith(query)
            ][:limit]
            chunk: Json = {
                "guild_id": str(chunk_guild.id),
                "members": [self._member_payload(chunk_guild, m) for m in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [str(u) for u in wanted if u not in chunk_guild.members],
            }
            if data.get("nonce") is not None:
                chunk["nonce"] = data["nonce"]
            self._send_dispatch(conn.session, "GUILD_MEMBERS_CHUNK", chunk)

    async def wait_for_bot_ready(self, timeout: float = 10.0) -> None:
        """Wait until the bot IDENTIFY'd (or resumed) and got READY + its GUILD_CREATEs — on
        every shard ``0..shard_count-1`` when the emulator is sharded."""
        try:
            await asyncio.wait_for(self._bot_ready.wait(), timeout)
        except TimeoutError:
            raise EmulatorError(
                f"the bot did not connect within {timeout}s "
                f"(connected shards: {self.connected_shards} of {self.shard_count})"
            ) from None

    @property
    def bot_connected(self) -> bool:
        return bool(self._live_sessions())

    async def kick_gateway(
        self,
        *,
        resumable: bool = True,
        close_code: int | None = None,
        shard: int | None = None,
    ) -> None:
        """Drop the bot's gateway connection(s) (``shard``: only that shard's). Resumable: op 7
        RECONNECT, the client RESUMEs and gets the missed events. ``resumable=False``: the
        session is invalidated (op 9), the client must IDENTIFY again (discord.py first waits
        5 s in ``Client.before_identify_hook``). ``close_code``: close the socket with that
        code instead (e.g. 4000 resumable, 4009 session timed out, 4004 fatal)."""
        for conn in list(self._conns):
            session = conn.session
            if shard is not None and (
                session is None or (session.shard[0] if session.shard else 0) != shard
            ):
                continue
            if not resumable and session is not None:
                self._sessions.pop(session.id, None)
            if close_code is not None:
                await conn.close(close_code, b"Kicked by the emulator.")
            elif not resumable:
                conn.send({"op": OP_INVALID_SESSION, "s": None, "t": None, "d": False})
            else:
                conn.send({"op": OP_RECONNECT, "s": None, "t": None, "d": None})

    async def stop_gateway_for(self, seconds: float, *, close_code: int = 1001) -> None:
        """A gateway outage: close every connection with ``close_code`` (sessions stay
        resumable) and refuse new connections (HTTP 503 on the upgrade) for ``seconds``; the
        client retries with its backoff and then RESUMEs. Refusals: ``gateway_refusals``."""
        self._gateway_down_until = asyncio.get_running_loop().time() + seconds
        for conn in list(self._conns):
            await conn.close(close_code, b"Gateway unavailable.")
