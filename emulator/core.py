"""The emulator's state, ids and clock, lookups, and how a REST handler answers or refuses."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import web
from aiohttp.multipart import BodyPartReader

from .faults import Fault
from .jsondata import dumps
from .models import (
    ALL_PERMISSIONS,
    BOT_PERMISSIONS,
    PERM_ADMINISTRATOR,
    PERM_SEND_MESSAGES,
    PERM_VIEW_CHANNEL,
    Channel,
    EmulatorError,
    FaultRecord,
    Guild,
    InteractionRecord,
    Message,
    RateLimitRecord,
    RestCall,
    User,
    Violation,
)
from .ratelimits import RateLimiter
from .validation import FormErrors, Json

T = TypeVar("T")

DISCORD_EPOCH_MS = 1420070400000
API_VERSION = 10
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
TOKEN_LIFETIME = 15 * 60.0
NONCE_LIFETIME = 5 * 60.0  # "checked for uniqueness in the past few minutes"
NONCE_MAX = 25
# Tests click ~100x faster than people: windows 100x shorter keep the same pressure on the
# buckets without slowing the suite. EMULATOR_RATE_LIMIT_SCALE=1 runs at Discord's own pace.
DEFAULT_RATE_LIMIT_SCALE = 0.01
RATE_LIMIT_SCALE_ENV = "EMULATOR_RATE_LIMIT_SCALE"

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

DM_APP_PERMISSIONS = (
    PERM_VIEW_CHANNEL
    | PERM_SEND_MESSAGES
    | (1 << 6)
    | (1 << 14)
    | (1 << 15)
    | (1 << 16)
    | (1 << 18)
)

# Gateway opcodes
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE = 3
OP_VOICE_STATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11


Handler = Callable[[web.Request, "re.Match[str]"], Awaitable[web.StreamResponse]]


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat()


@dataclass
class Upload:
    field: str
    filename: str
    data: bytes
    content_type: str | None


@dataclass(eq=False)
class GatewayConnection:
    ws: web.WebSocketResponse
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    session: GatewaySession | None = None
    writer: asyncio.Task[None] | None = None
    closed_by_emulator: bool = False

    def send(self, payload: Json) -> None:
        self.queue.put_nowait(dumps(payload))

    async def close(self, code: int, reason: bytes = b"") -> None:
        self.closed_by_emulator = True
        with contextlib.suppress(Exception):
            await self.ws.close(code=code, message=reason)


@dataclass(eq=False)
class GatewaySession:
    id: str
    intents: int
    shard: list[int] | None
    seq: int = 0
    buffer: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=5000))
    conn: GatewayConnection | None = None
    identified_at: float = 0.0


class HttpError(Exception):
    def __init__(self, response: web.Response) -> None:
        super().__init__(response.status)
        self.response = response


class EmulatorCore:
    """State every resource shares, the clock, ids, lookups and REST answers/refusals."""

    def __init__(
        self,
        *,
        token: str | None = None,
        bot_name: str = "CafeBot",
        bot_permissions: int = BOT_PERMISSIONS,
        ack_deadline: float = 3.0,
        heartbeat_interval_ms: int = 41250,
        emit_message_events: bool = True,
        rate_limits: bool = True,
        rate_limit_scale: float | None = None,
        shard_count: int = 1,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """``rate_limits``/``rate_limit_scale``: enforce Discord's buckets, every window
        multiplied by the scale (default: $EMULATOR_RATE_LIMIT_SCALE, else 0.01; see README
        "Rate limits"). ``shard_count``: what GET /gateway/bot recommends and what every
        IDENTIFY must use (see README "Shards"). ``clock``: a monotonic clock in seconds for
        the rate-limit windows and the times in ``rest_calls``, ``rate_limited`` and
        ``faults_injected`` (default ``time.monotonic``; tests can pass one they move)."""
        if shard_count < 1:
            raise ValueError("shard_count must be >= 1")
        self._last_snowflake = 0
        self._clock_offset = 0.0
        # Seconds on a monotonic clock: the rate-limit windows and the times of what tests read
        # (rest_calls, rate_limited, faults_injected). Tests may pass one they move by hand.
        self.clock: Callable[[], float] = clock or time.monotonic
        self.bot_user_id: int = self.snowflake()
        self.application_id: int = self.bot_user_id  # as for every modern application
        self.owner_user_id: int = self.snowflake()
        id_part = base64.b64encode(str(self.bot_user_id).encode()).decode().rstrip("=")
        self.token: str = token or (
            f"{id_part}.{secrets.token_urlsafe(4)}.{secrets.token_urlsafe(27)}"
        )
        self.bot_permissions = bot_permissions
        self.ack_deadline = ack_deadline
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.emit_message_events = emit_message_events
        self.shard_count = shard_count
        if rate_limit_scale is None:
            rate_limit_scale = float(
                os.environ.get(RATE_LIMIT_SCALE_ENV) or DEFAULT_RATE_LIMIT_SCALE
            )
        self.rate_limiter = RateLimiter(enabled=rate_limits, scale=rate_limit_scale)

        self.users: dict[int, User] = {
            self.bot_user_id: User(self.bot_user_id, bot_name, bot=True, dms_open=False),
            self.owner_user_id: User(self.owner_user_id, "app-owner", dms_open=False),
        }
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self._dm_by_user: dict[int, int] = {}
        self._messages: dict[int, Message] = {}
        self._channel_msgs: dict[int, list[Message]] = {}
        self._ephemerals: dict[int, list[Message]] = {}
        self._commands: dict[int | None, list[Json]] = {}
        self._command_ids: dict[tuple[int | None, int, str], int] = {}
        self._interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}

        # What tests look at
        self.rest_calls: list[RestCall] = []
        self.unknown_routes: list[tuple[str, str]] = []
        self.violations: list[Violation] = []
        self.error_responses: list[tuple[str, str, int, int]] = []  # method, path, status, code
        self.interactions: list[InteractionRecord] = []
        self.gateway_log: list[tuple[str, Json]] = []  # (direction, payload) for ops != 0/1/11
        self.rate_limited: list[RateLimitRecord] = []  # 429s the buckets answered
        self.faults_injected: list[FaultRecord] = []
        self.deleted_channels: dict[int, Channel] = {}
        self.unresolved_attachments: list[tuple[int, str]] = []  # (message id, attachment:// url)
        self.gateway_refusals: int = 0  # connections refused by stop_gateway_for
        self._faults: list[Fault] = []
        self._nonces: dict[tuple[int, int, str], tuple[int, float]] = {}
        # (channel id, nonce, message id) of every create answered with an existing message
        self.nonce_duplicates: list[tuple[int, str, int]] = []
        self._gateway_down_until: float = 0.0

        self._sessions: dict[str, GatewaySession] = {}
        self._conns: set[GatewayConnection] = set()
        self._bot_ready = asyncio.Event()
        self._changed = asyncio.Event()
        self._listeners: list[Callable[[], None]] = []
        self.change_count = 0
        self._runner: web.AppRunner | None = None
        self.port: int = 0
        self._routes: list[tuple[str, re.Pattern[str], str, Handler, bool]] = []
        self._setup_routes()

    def _setup_routes(self) -> None:
        """Fills ``_routes``: the REST server's (``rest.py``); the bare core serves none."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def rest_base(self) -> str:
        """Value for ``discord.http.Route.BASE`` (and CAFEBOT_DISCORD_API_BASE)."""
        return f"{self.base_url}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        """Value for ``DiscordWebSocket.DEFAULT_GATEWAY`` (and CAFEBOT_DISCORD_GATEWAY)."""
        return f"ws://127.0.0.1:{self.port}/"

    def snowflake(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = ms << 22
        if value <= self._last_snowflake:
            value = self._last_snowflake + 1
        self._last_snowflake = value
        return value

    def now(self) -> float:
        """Emulator wall clock (real time plus whatever ``advance_clock`` added)."""
        return time.time() + self._clock_offset

    def advance_clock(self, seconds: float) -> None:
        """Pretend time passed (e.g. to expire interaction tokens after 15 minutes)."""
        self._clock_offset += seconds

    def _touch(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
        self.change_count += 1
        for listener in list(self._listeners):
            listener()

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` after every change the emulator sees (a REST call answered, an
        interaction acknowledged, a user's message); returns a callable that unsubscribes.
        For live front ends (the playground); tests use ``wait_until``."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def wait_until(self, predicate: Callable[[], T], timeout: float = 5.0) -> T:
        """Wait until ``predicate()`` is truthy (re-checked on every state change)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise EmulatorError(f"condition not met within {timeout}s")
            event = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(remaining, 0.25))

    def shard_for(self, guild_id: int | None) -> int:
        """The shard Discord routes a guild's events to (DMs: shard 0)."""
        if guild_id is None:
            return 0
        return (guild_id >> 22) % self.shard_count

    def _snowflake_on_shard(self, shard: int) -> int:
        if not 0 <= shard < self.shard_count:
            raise EmulatorError(f"shard {shard} is not in 0..{self.shard_count - 1}")
        value = self.snowflake()
        ms = value >> 22
        if ms % self.shard_count != shard:
            ms += (shard - ms) % self.shard_count
            value = ms << 22  # a few ms in the future; later ids stay increasing
            self._last_snowflake = value
        return value

    def _user(self, user_id: int) -> User:
        try:
            return self.users[user_id]
        except KeyError:
            raise EmulatorError(f"unknown user {user_id}") from None

    def _guild(self, guild_id: int) -> Guild:
        try:
            return self.guilds[guild_id]
        except KeyError:
            raise EmulatorError(f"unknown guild {guild_id}") from None

    def _channel_or_none(self, channel_id: int) -> Channel | None:
        return self.channels.get(channel_id)

    def get_message(self, message_id: int) -> Message:
        try:
            return self._messages[message_id]
        except KeyError:
            raise EmulatorError(f"unknown message {message_id}") from None

    def permissions(self, guild_id: int, user_id: int) -> int:
        guild = self._guild(guild_id)
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        member = guild.members.get(user_id)
        if member is None:
            return 0
        perms = guild.roles[guild.id].permissions
        for rid in member.roles:
            role = guild.roles.get(rid)
            if role is not None:
                perms |= role.permissions
        if perms & PERM_ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def _can_see_channel(self, user_id: int, ch: Channel) -> bool:
        if ch.is_dm:
            return ch.recipient_id == user_id
        assert ch.guild_id is not None
        if user_id not in self.guilds[ch.guild_id].members:
            return False
        return bool(self.permissions(ch.guild_id, user_id) & PERM_VIEW_CHANNEL)

    def _json(self, data: Any, status: int = 200) -> web.Response:
        resp = web.Response(body=dumps(data).encode(), status=status)
        resp.headers["Content-Type"] = "application/json"
        return resp

    def _fail(
        self,
        request: web.Request,
        status: int,
        code: int,
        message: str,
        *,
        errors: FormErrors | None = None,
        violation: str | None = None,
    ) -> HttpError:
        body: Json = {"message": message, "code": code}
        if errors:
            body["errors"] = errors.to_discord()
        path = request.match_info.get("tail", "")
        self.error_responses.append((request.method, "/" + path, status, code))
        if violation is not None:
            detail = f"{message}: {errors.summary()}" if errors else message
            self.violations.append(Violation(violation, detail, request.method, "/" + path))
        return HttpError(self._json(body, status))

    def _invalid_form(self, request: web.Request, errors: FormErrors) -> HttpError:
        return self._fail(
            request, 400, 50035, "Invalid Form Body", errors=errors, violation="invalid_form_body"
        )

    async def _read_body(self, request: web.Request) -> tuple[Any, list[Upload]]:
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            payload: Any = None
            uploads: list[Upload] = []
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue
                if part.name == "payload_json":
                    payload = json.loads(await part.text())
                else:
                    data = bytes(await part.read(decode=False))
                    uploads.append(
                        Upload(
                            part.name or "",
                            part.filename or "",
                            data,
                            part.headers.get("Content-Type"),
                        )
                    )
            return payload, uploads
        if not request.can_read_body:
            return None, []
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw), []
        except json.JSONDecodeError:
            raise self._fail(
                request,
                400,
                50109,
                "The request body contains invalid JSON.",
                violation="invalid_json",
            ) from None
