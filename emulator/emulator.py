"""A loopback emulator of the parts of Discord's REST API and gateway that cafebot uses.

The real (unmodified) discord.py client talks to it over 127.0.0.1: REST under
``http://127.0.0.1:PORT/api/v10`` and the gateway at ``ws://127.0.0.1:PORT/``. Tests drive
simulated users (``slash``, ``click``, ``select``...) and inspect what the bot produced
(``channel_messages``, ``dm_messages``, ``ephemerals``, ``visible_to``...). The emulator is
strict where Discord is strict and records every breach in ``violations``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import hashlib
import json
import os
import re
import secrets
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import WSMsgType, web
from aiohttp.multipart import BodyPartReader

from .faults import Chance, Fault
from .jsondata import dumps, json_copy
from .models import (
    ALL_PERMISSIONS,
    BOT_PERMISSIONS,
    CHANNEL_DM,
    CHANNEL_PRIVATE_THREAD,
    CHANNEL_PUBLIC_THREAD,
    CHANNEL_TEXT,
    EVERYONE_PERMISSIONS,
    PERM_ADMINISTRATOR,
    PERM_MANAGE_CHANNELS,
    PERM_MANAGE_MESSAGES,
    PERM_SEND_MESSAGES,
    PERM_SEND_MESSAGES_IN_THREADS,
    PERM_VIEW_CHANNEL,
    Channel,
    EmulatorError,
    FaultRecord,
    Guild,
    InteractionRecord,
    InteractionResult,
    Member,
    Message,
    RateLimitRecord,
    RestCall,
    Role,
    User,
    Violation,
)
from .ratelimits import RateLimiter
from .validation import (
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    SELECT_TYPES,
    FormErrors,
    Json,
    iter_components,
    validate_autocomplete,
    validate_commands,
    validate_message,
    validate_modal,
    validate_sent_flags,
)

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

_SNOWFLAKE_RE = re.compile(r"(?<=/)\d{5,}(?=/|$)")


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat()


@dataclass
class _Upload:
    field: str
    filename: str
    data: bytes
    content_type: str | None


@dataclass(eq=False)
class _GatewayConn:
    ws: web.WebSocketResponse
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    session: _Session | None = None
    writer: asyncio.Task[None] | None = None
    closed_by_emulator: bool = False

    def send(self, payload: Json) -> None:
        self.queue.put_nowait(dumps(payload))

    async def close(self, code: int, reason: bytes = b"") -> None:
        self.closed_by_emulator = True
        with contextlib.suppress(Exception):
            await self.ws.close(code=code, message=reason)


@dataclass(eq=False)
class _Session:
    id: str
    intents: int
    shard: list[int] | None
    seq: int = 0
    buffer: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=5000))
    conn: _GatewayConn | None = None
    identified_at: float = 0.0


def _component_data(custom_id: str, component_type: int, values: Sequence[Any] | None) -> Json:
    data: Json = {"custom_id": custom_id, "component_type": component_type}
    if values is not None:
        data["values"] = [str(v) for v in values]
    return data


def _guess_option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    return 3


class _HttpError(Exception):
    def __init__(self, response: web.Response) -> None:
        super().__init__(response.status)
        self.response = response


Handler = Callable[[web.Request, "re.Match[str]"], Awaitable[web.StreamResponse]]


class DiscordEmulator:
    """In-memory Discord: REST + gateway on 127.0.0.1, simulated users, strict validation."""

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
    ) -> None:
        """``rate_limits``/``rate_limit_scale``: enforce Discord's buckets, every window
        multiplied by the scale (default: $EMULATOR_RATE_LIMIT_SCALE, else 0.01; see README
        "Rate limits"). ``shard_count``: what GET /gateway/bot recommends and what every
        IDENTIFY must use (see README "Shards")."""
        if shard_count < 1:
            raise ValueError("shard_count must be >= 1")
        self._last_snowflake = 0
        self._clock_offset = 0.0
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

        self._sessions: dict[str, _Session] = {}
        self._conns: set[_GatewayConn] = set()
        self._bot_ready = asyncio.Event()
        self._changed = asyncio.Event()
        self._listeners: list[Callable[[], None]] = []
        self.change_count = 0
        self._runner: web.AppRunner | None = None
        self.port: int = 0
        self._routes: list[tuple[str, re.Pattern[str], str, Handler, bool]] = []
        self._setup_routes()

    # ================================================================== lifecycle

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

    # ================================================================== ids and clock

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

    # ================================================================== world building

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

    def add_guild(self, name: str, *, owner: int | None = None, shard: int | None = None) -> int:
        """A guild the bot is in; ``shard`` picks an id that Discord routes to that shard."""
        gid = self.snowflake() if shard is None else self._snowflake_on_shard(shard)
        guild = Guild(gid, name, owner or self.owner_user_id, _iso(self.now()))
        guild.roles[gid] = Role(gid, gid, "@everyone", EVERYONE_PERMISSIONS, 0)
        bot_role = Role(
            self.snowflake(),
            gid,
            self.users[self.bot_user_id].name,
            self.bot_permissions,
            1,
            managed=True,
        )
        guild.roles[bot_role.id] = bot_role
        self.guilds[gid] = guild
        self._add_member(guild, self.bot_user_id, [bot_role.id])
        self._add_member(guild, guild.owner_id, [])
        self._dispatch_soon(
            "GUILD_CREATE", self._guild_create_payload(guild), INTENT_GUILDS, guild_id=gid
        )
        return gid

    def add_role(self, guild_id: int, name: str, permissions: int) -> int:
        guild = self._guild(guild_id)
        role = Role(self.snowflake(), guild_id, name, permissions, len(guild.roles))
        guild.roles[role.id] = role
        self._dispatch_soon(
            "GUILD_ROLE_CREATE",
            {"guild_id": str(guild_id), "role": self._role_payload(role)},
            INTENT_GUILDS,
            guild_id=guild_id,
        )
        return role.id

    def add_text_channel(self, guild_id: int, name: str, *, topic: str | None = None) -> int:
        guild = self._guild(guild_id)
        cid = self.snowflake()
        ch = Channel(
            cid,
            CHANNEL_TEXT,
            name,
            guild_id,
            position=len(guild.channels),
            created_at=_iso(self.now()),
            topic=topic,
        )
        self.channels[cid] = ch
        guild.channels.append(cid)
        self._dispatch_soon(
            "CHANNEL_CREATE", self._channel_payload(ch), INTENT_GUILDS, guild_id=guild_id
        )
        return cid

    def add_thread(
        self,
        guild_id: int,
        *,
        parent: int,
        name: str,
        private: bool = False,
        owner: int | None = None,
    ) -> int:
        guild = self._guild(guild_id)
        parent_ch = self._channel_or_none(parent)
        if parent_ch is None or parent_ch.guild_id != guild_id or parent_ch.is_thread:
            raise EmulatorError(f"thread parent {parent} is not a text channel of guild {guild_id}")
        tid = self.snowflake()
        return self._create_thread(
            guild, parent_ch, tid, name, private, owner or self.owner_user_id
        )

    def _create_thread(
        self, guild: Guild, parent: Channel, tid: int, name: str, private: bool, owner: int
    ) -> int:
        ch = Channel(
            tid,
            CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            name,
            guild.id,
            parent_id=parent.id,
            owner_id=owner,
            created_at=_iso(self.now()),
        )
        self.channels[tid] = ch
        guild.channels.append(tid)
        payload = self._channel_payload(ch)
        payload["newly_created"] = True
        self._dispatch_soon("THREAD_CREATE", payload, INTENT_GUILDS, guild_id=guild.id)
        self._touch()
        return tid

    def delete_channel(self, channel_id: int) -> None:
        """Delete a guild text channel (with its threads) or a thread, as a moderator would:
        the bot gets CHANNEL_DELETE / THREAD_DELETE, REST calls on it answer 404 10003 Unknown
        Channel, and no interaction can come from it any more. Its messages stay recorded."""
        ch = self.channels.get(channel_id)
        if ch is None:
            raise EmulatorError(f"unknown channel {channel_id}")
        if ch.guild_id is None:
            raise EmulatorError("DM channels cannot be deleted")
        guild = self._guild(ch.guild_id)
        if not ch.is_thread:
            for cid in list(guild.channels):
                child = self.channels[cid]
                if child.is_thread and child.parent_id == ch.id:
                    self._remove_channel(guild, child)
        self._remove_channel(guild, ch)
        self._touch()

    def _remove_channel(self, guild: Guild, ch: Channel) -> None:
        del self.channels[ch.id]
        guild.channels.remove(ch.id)
        self.deleted_channels[ch.id] = ch
        if ch.is_thread:
            payload: Json = {
                "id": str(ch.id),
                "guild_id": str(guild.id),
                "parent_id": str(ch.parent_id),
                "type": ch.type,
            }
            self._dispatch_soon("THREAD_DELETE", payload, INTENT_GUILDS, guild_id=guild.id)
        else:
            self._dispatch_soon(
                "CHANNEL_DELETE", self._channel_payload(ch), INTENT_GUILDS, guild_id=guild.id
            )

    def add_user(
        self,
        name: str,
        *,
        guild: int | None = None,
        dms_open: bool = True,
        manage_channels: bool = False,
        administrator: bool = False,
        bot: bool = False,
    ) -> int:
        uid = self.snowflake()
        self.users[uid] = User(uid, name, bot=bot, dms_open=dms_open, global_name=name.title())
        if guild is not None:
            self.add_member(
                guild, uid, manage_channels=manage_channels, administrator=administrator
            )
        return uid

    def add_member(
        self,
        guild_id: int,
        user_id: int,
        *,
        roles: Iterable[int] = (),
        manage_channels: bool = False,
        administrator: bool = False,
    ) -> None:
        guild = self._guild(guild_id)
        role_ids = list(roles)
        if manage_channels:
            role_ids.append(
                self._named_role(
                    guild,
                    "Moderator",
                    PERM_MANAGE_CHANNELS | PERM_MANAGE_MESSAGES | EVERYONE_PERMISSIONS,
                )
            )
        if administrator:
            role_ids.append(self._named_role(guild, "Admin", PERM_ADMINISTRATOR))
        member = self._add_member(guild, user_id, role_ids)
        payload = self._member_payload(guild, member)
        payload["guild_id"] = str(guild_id)
        self._dispatch_soon("GUILD_MEMBER_ADD", payload, INTENT_GUILD_MEMBERS, guild_id=guild_id)

    def _named_role(self, guild: Guild, name: str, permissions: int) -> int:
        for role in guild.roles.values():
            if role.name == name:
                return role.id
        return self.add_role(guild.id, name, permissions)

    def _add_member(self, guild: Guild, user_id: int, roles: list[int]) -> Member:
        if user_id not in self.users:
            raise EmulatorError(f"unknown user {user_id}")
        member = Member(user_id, guild.id, roles, _iso(self.now()))
        guild.members[user_id] = member
        return member

    def set_dms_open(self, user_id: int, is_open: bool) -> None:
        self._user(user_id).dms_open = is_open

    def open_dm(self, user_id: int) -> int:
        """The DM channel between the bot and ``user_id`` (created if needed)."""
        self._user(user_id)
        cid = self._dm_by_user.get(user_id)
        if cid is None:
            cid = self.snowflake()
            self.channels[cid] = Channel(
                cid, CHANNEL_DM, recipient_id=user_id, created_at=_iso(self.now())
            )
            self._dm_by_user[user_id] = cid
        return cid

    def dm_channel_id(self, user_id: int) -> int | None:
        return self._dm_by_user.get(user_id)

    # ================================================================== lookups

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

    # ================================================================== what was seen

    def channel_messages(self, channel_id: int) -> list[Message]:
        """Live (not deleted, not ephemeral) messages of a channel, oldest first."""
        return [m for m in self._channel_msgs.get(channel_id, []) if not m.deleted]

    def dm_messages(self, user_id: int) -> list[Message]:
        cid = self._dm_by_user.get(user_id)
        return [] if cid is None else self.channel_messages(cid)

    def ephemerals(self, user_id: int) -> list[Message]:
        return list(self._ephemerals.get(user_id, []))

    def all_messages(self) -> list[Message]:
        return list(self._messages.values())

    def visible_to(self, user_id: int) -> list[Message]:
        """Everything ``user_id`` could ever have seen: channel messages in channels they are in,
        their DMs and their ephemerals. Deleted messages and all edit versions count."""
        out: list[Message] = []
        for msg in self._messages.values():
            if msg.ephemeral_to is not None:
                if msg.ephemeral_to == user_id:
                    out.append(msg)
                continue
            ch = self.channels.get(msg.channel_id) or self.deleted_channels.get(msg.channel_id)
            if ch is not None and self._can_see_channel(user_id, ch):
                out.append(msg)
        return out

    def synced_commands(self, guild_id: int | None = None) -> list[Json]:
        return copy.deepcopy(self._commands.get(guild_id, []))

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

    # ================================================================== fault injection

    def inject_fault(
        self,
        method: str,
        path_part: str | re.Pattern[str],
        *,
        status: int | None = None,
        drop: bool = False,
        times: int | None = 1,
        code: int | None = None,
        message: str | None = None,
        retry_after: float | None = None,
        is_global: bool = False,
        probability: float | None = None,
        seed: int | None = None,
        html: bool | None = None,
        processed: bool = False,
        delay: float = 0.0,
    ) -> Fault:
        """Answer matching REST calls with a fault instead of the real answer.

        ``method`` ("POST", or "*" for any) and ``path_part`` (a substring of, or a regex
        searched in, the path after ``/api/v10``) choose the calls. ``status``: 500 (JSON body),
        502/503/504 (Cloudflare-like HTML unless ``html=False``), 429 (a proper rate limit with
        ``retry_after`` seconds, default 0.05, ``is_global``), 403 (``code`` 50013 by default or
        50001...), 404 (the route's Unknown ... code), any other 4xx/5xx. ``drop=True`` instead
        closes the connection without an answer (the client sees ServerDisconnectedError).
        ``times``: how many calls (None = until ``clear_faults``/``Fault.remove``);
        ``probability`` (with ``seed``): each matching call faults with that chance.
        ``processed=True``: the request takes effect first and only its answer is lost (a
        message is created, then the client sees the 5xx or the drop and may retry).
        ``delay``: wait that many seconds first; alone, a slow but normal answer.
        Every injected fault is recorded in ``faults_injected``."""
        if drop and status is not None:
            raise ValueError("give status=... or drop=True, not both")
        if not drop and status is None and delay <= 0:
            raise ValueError("give status=..., drop=True or delay=...")
        if status is not None and not 400 <= status <= 599:
            raise ValueError(f"status {status} is not an error status")
        if times is not None and times < 1:
            raise ValueError("times must be >= 1 (or None for forever)")
        if probability is not None and not 0.0 < probability <= 1.0:
            raise ValueError("probability must be in (0, 1]")
        fault = Fault(
            method=method.upper(),
            path_part=path_part,
            status=status,
            times=times,
            code=code,
            message=message,
            retry_after=0.05 if retry_after is None else retry_after,
            is_global=is_global,
            probability=probability,
            html=html,
            processed=processed,
            rng=Chance(seed),
            drop=drop,
            delay=delay,
        )
        self._faults.append(fault)
        return fault

    def drop_connection(
        self,
        method: str,
        path_part: str | re.Pattern[str],
        *,
        times: int | None = 1,
        probability: float | None = None,
        seed: int | None = None,
        processed: bool = False,
    ) -> Fault:
        """Close the connection of matching REST calls without answering. Note that aiohttp
        retries an idempotent request (GET, PUT, DELETE...) once by itself when a reused
        keep-alive connection drops: use ``times=2`` to make such a call fail."""
        return self.inject_fault(
            method,
            path_part,
            drop=True,
            times=times,
            probability=probability,
            seed=seed,
            processed=processed,
        )

    def clear_faults(self) -> None:
        """Remove every injected fault (``faults_injected`` is kept)."""
        for fault in self._faults:
            fault.removed = True
        self._faults.clear()

    def force_rate_limit(
        self,
        method: str,
        path_contains: str,
        *,
        retry_after: float = 0.05,
        times: int = 1,
        is_global: bool = False,
    ) -> Fault:
        """Answer the next ``times`` matching REST calls with a proper 429 (an injected fault:
        recorded in ``faults_injected``, not in ``rate_limited``)."""
        return self.inject_fault(
            method,
            path_contains,
            status=429,
            retry_after=retry_after,
            times=times,
            is_global=is_global,
        )

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in list(self._faults):
            if fault.matches(method, path):
                fault.hits += 1
                if not fault.active:
                    self._faults.remove(fault)
                return fault
            if fault.removed or not fault.active:
                self._faults.remove(fault)
        return None

    # ================================================================== payloads

    def _user_payload(self, user_id: int) -> Json:
        user = self._user(user_id)
        payload: Json = {
            "id": str(user.id),
            "username": user.name,
            "discriminator": "0",
            "global_name": user.global_name,
            "avatar": None,
            "avatar_decoration_data": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "bot": user.bot,
        }
        if user.bot:
            payload.update(verified=True, mfa_enabled=False, email=None)
        return payload

    def _role_payload(self, role: Role) -> Json:
        return {
            "id": str(role.id),
            "name": role.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": role.position,
            "permissions": str(role.permissions),
            "managed": role.managed,
            "mentionable": False,
            "flags": 0,
            "tags": {"bot_id": str(self.bot_user_id)} if role.managed else {},
        }

    def _member_payload(
        self,
        guild: Guild,
        member: Member,
        *,
        with_user: bool = True,
        with_permissions: bool = False,
    ) -> Json:
        payload: Json = {
            "nick": member.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in member.roles],
            "joined_at": member.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self._user_payload(member.user_id)
        if with_permissions:
            payload["permissions"] = str(self.permissions(guild.id, member.user_id))
        return payload

    def _channel_payload(self, ch: Channel, *, for_user: int | None = None) -> Json:
        if ch.is_dm:
            assert ch.recipient_id is not None
            return {
                "id": str(ch.id),
                "type": CHANNEL_DM,
                "last_message_id": str(ch.last_message_id) if ch.last_message_id else None,
                "flags": 0,
                "recipients": [self._user_payload(ch.recipient_id)],
            }
        payload: Json = {
            "id": str(ch.id),
            "type": ch.type,
            "guild_id": str(ch.guild_id),
            "name": ch.name,
            "position": ch.position,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": str(ch.parent_id) if ch.parent_id else None,
            "last_message_id": str(ch.last_message_id) if ch.last_message_id else None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if ch.is_thread:
            payload.update(
                owner_id=str(ch.owner_id),
                message_count=len(self._channel_msgs.get(ch.id, [])),
                member_count=1,
                total_message_sent=len(self._channel_msgs.get(ch.id, [])),
                thread_metadata={
                    "archived": ch.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": ch.created_at,
                    "locked": ch.locked,
                    "create_timestamp": ch.created_at,
                    "invitable": True,
                },
            )
        else:
            payload["topic"] = ch.topic
        if for_user is not None and ch.guild_id is not None:
            payload["permissions"] = str(self.permissions(ch.guild_id, for_user))
        return payload

    def _guild_payload(self, guild: Guild) -> Json:
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "roles": [self._role_payload(r) for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "afk_channel_id": None,
            "afk_timeout": 300,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": "en-US",
            "vanity_url_code": None,
            "application_id": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "widget_enabled": False,
            "incidents_data": None,
        }

    def _guild_create_payload(self, guild: Guild) -> Json:
        payload = self._guild_payload(guild)
        channels = [self.channels[c] for c in guild.channels]
        payload.update(
            joined_at=guild.created_at,
            large=False,
            unavailable=False,
            member_count=len(guild.members),
            members=[self._member_payload(guild, m) for m in guild.members.values()],
            channels=[self._channel_payload(c) for c in channels if not c.is_thread],
            threads=[self._channel_payload(c) for c in channels if c.is_thread and not c.archived],
            presences=[],
            voice_states=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
            embedded_activities=[],
            lazy=True,
        )
        return payload

    def _message_payload(
        self, msg: Message, *, for_gateway: bool = False, strip_content: bool = False
    ) -> Json:
        payload: Json = {
            "id": str(msg.id),
            "type": msg.type,
            "channel_id": str(msg.channel_id),
            "author": self._user_payload(msg.author_id),
            "content": "" if strip_content else msg.content,
            "embeds": [] if strip_content else json_copy(msg.embeds),
            "components": [] if strip_content else json_copy(msg.components),
            "attachments": [] if strip_content else json_copy(msg.attachments),
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": msg.tts,
            "timestamp": msg.timestamp,
            "edited_timestamp": msg.edited_timestamp,
            "flags": msg.flags,
            "position": 0,
        }
        if msg.nonce is not None:
            payload["nonce"] = msg.nonce
        if msg.guild_id is not None:
            payload["guild_id"] = str(msg.guild_id)
        if msg.webhook_id is not None:
            payload["webhook_id"] = str(msg.webhook_id)
            payload["application_id"] = str(self.application_id)
        if msg.interaction_metadata is not None:
            payload["interaction_metadata"] = copy.deepcopy(msg.interaction_metadata)
        if msg.message_reference is not None:
            payload["message_reference"] = dict(msg.message_reference)
            ref = self._messages.get(int(msg.message_reference["message_id"]))
            if ref is not None and not ref.deleted:
                inner = self._message_payload(ref)
                inner.pop("referenced_message", None)
                payload["referenced_message"] = inner
            else:
                payload["referenced_message"] = None
        if for_gateway and msg.guild_id is not None:
            guild = self.guilds[msg.guild_id]
            member = guild.members.get(msg.author_id)
            if member is not None:
                payload["member"] = self._member_payload(guild, member, with_user=False)
        return payload

    def _application_payload(self) -> Json:
        return {
            "id": str(self.application_id),
            "name": self.users[self.bot_user_id].name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "hook": True,
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": hashlib.sha256(self.token.encode()).hexdigest(),
            "flags": 0,
            "owner": self._user_payload(self.owner_user_id),
            "team": None,
            "bot": self._user_payload(self.bot_user_id),
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.guilds),
            "integration_types_config": {"0": {}},
            "tags": [],
        }

    # ================================================================== REST plumbing

    def _setup_routes(self) -> None:
        snow = r"(\d+)"
        table: list[tuple[str, str, Handler, bool]] = [
            ("GET", "/gateway", self._h_gateway, False),
            ("GET", "/gateway/bot", self._h_gateway_bot, True),
            ("GET", "/users/@me", self._h_me, True),
            ("POST", "/users/@me/channels", self._h_create_dm, True),
            ("GET", "/users/{uid}", self._h_get_user, True),
            ("GET", "/oauth2/applications/@me", self._h_application, True),
            ("GET", "/applications/@me", self._h_application, True),
            ("GET", "/applications/{app}/commands", self._h_get_commands, True),
            ("PUT", "/applications/{app}/commands", self._h_put_commands, True),
            ("GET", "/applications/{app}/guilds/{gid}/commands", self._h_get_commands, True),
            ("PUT", "/applications/{app}/guilds/{gid}/commands", self._h_put_commands, True),
            ("POST", "/interactions/{iid}/{token}/callback", self._h_callback, False),
            ("POST", "/webhooks/{app}/{token}", self._h_followup, False),
            ("GET", "/webhooks/{app}/{token}/messages/{wmid}", self._h_webhook_get, False),
            ("PATCH", "/webhooks/{app}/{token}/messages/{wmid}", self._h_webhook_edit, False),
            ("DELETE", "/webhooks/{app}/{token}/messages/{wmid}", self._h_webhook_delete, False),
            ("GET", "/channels/{cid}", self._h_get_channel, True),
            ("PATCH", "/channels/{cid}", self._h_edit_channel, True),
            ("GET", "/channels/{cid}/messages", self._h_history, True),
            ("POST", "/channels/{cid}/messages", self._h_send, True),
            ("GET", "/channels/{cid}/messages/{mid}", self._h_get_msg, True),
            ("PATCH", "/channels/{cid}/messages/{mid}", self._h_edit_msg, True),
            ("DELETE", "/channels/{cid}/messages/{mid}", self._h_delete_msg, True),
            ("POST", "/channels/{cid}/typing", self._h_typing, True),
            ("POST", "/channels/{cid}/threads", self._h_create_thread, True),
            ("POST", "/channels/{cid}/messages/{mid}/threads", self._h_create_thread, True),
            ("GET", "/guilds/{gid}", self._h_get_guild, True),
            ("GET", "/guilds/{gid}/channels", self._h_guild_channels, True),
            ("GET", "/guilds/{gid}/roles", self._h_guild_roles, True),
            ("GET", "/guilds/{gid}/members/{uid}", self._h_get_member, True),
        ]
        for method, template, handler, auth in table:
            pattern = re.escape(template)
            for name in ("uid", "app", "gid", "iid", "cid", "mid"):
                pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>{snow[1:-1]})")
            pattern = pattern.replace(re.escape("{token}"), r"(?P<token>[^/]+)")
            pattern = pattern.replace(re.escape("{wmid}"), r"(?P<wmid>@original|\d+)")
            self._routes.append((method, re.compile(pattern), template, handler, auth))

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
    ) -> _HttpError:
        body: Json = {"message": message, "code": code}
        if errors:
            body["errors"] = errors.to_discord()
        path = request.match_info.get("tail", "")
        self.error_responses.append((request.method, "/" + path, status, code))
        if violation is not None:
            detail = f"{message}: {errors.summary()}" if errors else message
            self.violations.append(Violation(violation, detail, request.method, "/" + path))
        return _HttpError(self._json(body, status))

    def _invalid_form(self, request: web.Request, errors: FormErrors) -> _HttpError:
        return self._fail(
            request, 400, 50035, "Invalid Form Body", errors=errors, violation="invalid_form_body"
        )

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        self.rest_calls.append(RestCall(method, path, time.monotonic()))
        for r_method, rx, template, handler, auth in self._routes:
            if r_method != method:
                continue
            match = rx.fullmatch(path)
            if match is None:
                continue
            fault = self._take_fault(method, path)
            if fault is not None and fault.delay > 0:
                await asyncio.sleep(fault.delay)
            if fault is not None and fault.kind == "delay":
                self.faults_injected.append(
                    FaultRecord(method, path, None, None, "delay", False, time.monotonic())
                )
                fault = None  # only slowed down: answered normally
            if fault is not None and not fault.processed:
                return await self._answer_fault(request, fault, path, template)
            if auth and request.headers.get("Authorization") != f"Bot {self.token}":
                self.error_responses.append((method, path, 401, 0))
                return self._json({"message": "401: Unauthorized", "code": 0}, 401)
            major = self._major_parameter(match)
            decision = self.rate_limiter.acquire(method, template, major)
            if not decision.allowed:
                bucket = "global" if decision.scope == "global" else f"{decision.rule}:{major}"
                self.rate_limited.append(
                    RateLimitRecord(
                        method, path, bucket, decision.scope, decision.reset_after, time.monotonic()
                    )
                )
                limited = self._json(
                    {
                        "message": "You are being rate limited.",
                        "retry_after": decision.reset_after,
                        "global": decision.scope == "global",
                        "code": 0,
                    },
                    429,
                )
                limited.headers["Via"] = "1.1 google"
                limited.headers.update(decision.headers())
                self._touch()
                return limited
            resp: web.StreamResponse
            try:
                resp = await handler(request, match)
            except _HttpError as exc:
                resp = exc.response
            self._touch()
            if fault is not None:  # processed: the request took effect, its answer is lost
                return await self._answer_fault(request, fault, path, template)
            resp.headers.update(decision.headers())
            return resp
        self.unknown_routes.append((method, path))
        return self._json({"message": "404: Not Found", "code": 0}, 404)

    @staticmethod
    def _major_parameter(match: re.Match[str]) -> str:
        groups = match.groupdict()
        if groups.get("token"):
            return f"{groups.get('iid') or groups.get('app')}:{groups['token']}"
        return groups.get("cid") or groups.get("gid") or ""

    async def _answer_fault(
        self, request: web.Request, fault: Fault, path: str, template: str
    ) -> web.StreamResponse:
        now = time.monotonic()
        if fault.drop:
            self.faults_injected.append(
                FaultRecord(request.method, path, None, None, "drop", fault.processed, now)
            )
            self._touch()
            with contextlib.suppress(Exception):
                await request.read()
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=204)  # never reaches the client
        rule, bucket = self.rate_limiter.rule_for(request.method, template)
        resp = fault.response(
            path, {"X-RateLimit-Limit": str(rule.limit), "X-RateLimit-Bucket": bucket}
        )
        code: int | None = None
        if resp.content_type == "application/json" and isinstance(resp.body, bytes):
            code = int(json.loads(resp.body).get("code", 0))
        self.faults_injected.append(
            FaultRecord(request.method, path, fault.status, code, "http", fault.processed, now)
        )
        self._touch()
        return resp

    async def _read_body(self, request: web.Request) -> tuple[Any, list[_Upload]]:
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            payload: Any = None
            uploads: list[_Upload] = []
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
                        _Upload(
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

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        aid = int(request.match_info["aid"])
        for msg in self._messages.values():
            for att in msg.attachments:
                if int(att["id"]) == aid and att["filename"] in msg.files:
                    return web.Response(
                        body=msg.files[att["filename"]],
                        content_type=att.get("content_type") or "application/octet-stream",
                    )
        return web.Response(status=404)

    # ================================================================== REST: basics

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

    async def _h_me(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        return self._json(self._user_payload(self.bot_user_id))

    async def _h_get_user(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        uid = int(m["uid"])
        if uid not in self.users:
            raise self._fail(request, 404, 10013, "Unknown User")
        return self._json(self._user_payload(uid))

    async def _h_application(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        return self._json(self._application_payload())

    async def _h_create_dm(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        body, _ = await self._read_body(request)
        try:
            uid = int((body or {})["recipient_id"])
        except (KeyError, TypeError, ValueError):
            errors = FormErrors()
            errors.add("recipient_id", "BASE_TYPE_REQUIRED", "This field is required")
            raise self._invalid_form(request, errors) from None
        if uid not in self.users or uid == self.bot_user_id:
            raise self._fail(request, 400, 50033, "Invalid Recipient(s)")
        return self._json(self._channel_payload(self.channels[self.open_dm(uid)]))

    # ================================================================== REST: commands

    def _check_app(self, request: web.Request, m: re.Match[str]) -> None:
        if int(m["app"]) != self.application_id:
            raise self._fail(request, 403, 50001, "Missing Access", violation="wrong_application")

    async def _h_get_commands(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        self._check_app(request, m)
        gid = int(m["gid"]) if m.groupdict().get("gid") else None
        return self._json(self._commands.get(gid, []))

    async def _h_put_commands(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        self._check_app(request, m)
        gid = int(m["gid"]) if m.groupdict().get("gid") else None
        if gid is not None and gid not in self.guilds:
            raise self._fail(request, 404, 10004, "Unknown Guild")
        body, _ = await self._read_body(request)
        errors = FormErrors()
        validate_commands(body, errors)
        if errors:
            raise self._invalid_form(request, errors)
        stored: list[Json] = []
        for cmd in body:
            ctype = int(cmd.get("type") or 1)
            key = (gid, ctype, str(cmd["name"]))
            cid = self._command_ids.get(key)
            if cid is None:
                cid = self._command_ids[key] = self.snowflake()
            out = copy.deepcopy(cmd)
            out.update(
                id=str(cid),
                application_id=str(self.application_id),
                type=ctype,
                version=str(self.snowflake()),
            )
            out.setdefault("description", "")
            out.setdefault("options", [])
            out.setdefault("default_member_permissions", None)
            out.setdefault("nsfw", False)
            if gid is not None:
                out["guild_id"] = str(gid)
            stored.append(out)
        self._commands[gid] = stored
        return self._json(stored)

    # ================================================================== messages: build & edit

    def _make_attachments(
        self,
        request: web.Request,
        specs: Any,
        uploads: list[_Upload],
        channel_id: int,
        existing: Sequence[Json] = (),
    ) -> tuple[list[Json], dict[str, bytes]]:
        by_field = {u.field: u for u in uploads}
        out: list[Json] = []
        files: dict[str, bytes] = {}
        existing_by_id = {str(a["id"]): a for a in existing}
        used: set[str] = set()
        for spec in specs or []:
            sid = str(spec.get("id"))
            if sid in existing_by_id:
                out.append(existing_by_id[sid])
                continue
            upload = by_field.get(f"files[{sid}]")
            if upload is None:
                errors = FormErrors()
                errors.add(f"attachments.{sid}", "ATTACHMENT_NOT_FOUND", "Attachment not found")
                raise self._invalid_form(request, errors)
            used.add(upload.field)
            out.append(self._attachment_obj(spec, upload, channel_id, files))
        for upload in uploads:  # files without attachment specs still count (legacy form)
            if upload.field not in used and upload.field.startswith("file"):
                out.append(self._attachment_obj({}, upload, channel_id, files))
        total = sum(len(b) for b in files.values())
        if total > ATTACHMENT_SIZE_LIMIT:
            raise self._fail(
                request, 413, 40005, "Request entity too large", violation="attachment_too_large"
            )
        return out, files

    def _attachment_obj(
        self, spec: Json, upload: _Upload, channel_id: int, files: dict[str, bytes]
    ) -> Json:
        aid = self.snowflake()
        filename = spec.get("filename") or upload.filename
        files[filename] = upload.data
        url = f"{self.base_url}/attachments/{channel_id}/{aid}/{filename}"
        att: Json = {
            "id": str(aid),
            "filename": filename,
            "size": len(upload.data),
            "url": url,
            "proxy_url": url,
            "content_type": upload.content_type or "application/octet-stream",
        }
        if spec.get("description"):
            att["description"] = spec["description"]
        return att

    def _resolve_attachment_refs(
        self, embeds: Any, components: Any, attachments: Sequence[Json], errors: FormErrors
    ) -> tuple[list[Json], list[str]]:
        """``attachment://name`` in an embed becomes that attachment's URL; naming no attachment
        of the message, the image is silently dropped (as Discord does; listed in the second
        value). In components V2 media it must name an attachment (400 otherwise)."""
        prefix = "attachment://"
        by_name = {str(a["filename"]): a for a in attachments}
        unresolved: list[str] = []
        out: list[Json] = []
        for embed in embeds if isinstance(embeds, list) else []:
            if not isinstance(embed, dict):
                out.append(embed)
                continue
            embed = copy.deepcopy(embed)
            refs = [(key, "url", "proxy_url") for key in ("image", "thumbnail")]
            refs += [(key, "icon_url", "proxy_icon_url") for key in ("author", "footer")]
            for key, url_key, proxy_key in refs:
                part = embed.get(key)
                url = part.get(url_key) if isinstance(part, dict) else None
                if not isinstance(part, dict) or not isinstance(url, str):
                    continue
                if not url.startswith(prefix):
                    continue
                att = by_name.get(url[len(prefix) :])
                if att is not None:
                    part[url_key] = att["url"]
                    part[proxy_key] = att["proxy_url"]
                    continue
                unresolved.append(url)
                if key in ("image", "thumbnail"):
                    del embed[key]
                else:
                    part.pop(url_key)
            out.append(embed)
        comps = components if isinstance(components, list) else []
        for comp in iter_components(comps):
            ctype = comp.get("type")
            media: list[Any] = []
            if ctype == 11:
                media.append(comp.get("media"))
            elif ctype == 12:
                media += [i.get("media") for i in comp.get("items") or [] if isinstance(i, dict)]
            elif ctype == 13:
                media.append(comp.get("file"))
            for item in media:
                url = item.get("url") if isinstance(item, dict) else None
                name = url[len(prefix) :] if isinstance(url, str) else ""
                if isinstance(url, str) and url.startswith(prefix) and name not in by_name:
                    errors.add(
                        "components",
                        "UNFURLED_MEDIA_ITEM_ATTACHMENT_NOT_FOUND",
                        f"{url} names no attachment of the message ({sorted(by_name)})",
                    )
        return out, unresolved

    def _new_message(
        self,
        request: web.Request,
        channel: Channel,
        payload: Json,
        uploads: list[_Upload],
        *,
        allowed_flags: int,
        ephemeral_to: int | None = None,
        forced_flags: int = 0,
        rec: InteractionRecord | None = None,
        message_type: int = 0,
        author_id: int | None = None,
        nonce: str | int | None = None,
    ) -> Message:
        if not isinstance(payload, dict):
            errors = FormErrors()
            errors.add("", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            raise self._invalid_form(request, errors)
        errors = FormErrors()
        validate_sent_flags(payload.get("flags"), errors, allowed=allowed_flags)
        flags = (int(payload.get("flags") or 0) & allowed_flags) | forced_flags
        if ephemeral_to is None:
            flags &= ~FLAG_EPHEMERAL
        attachments, files = self._make_attachments(
            request, payload.get("attachments"), uploads, channel.id
        )
        candidate: Json = {
            "content": payload.get("content") or "",
            "embeds": payload.get("embeds") or [],
            "components": payload.get("components") or [],
            "flags": flags,
            "attachments": attachments,
            "poll": payload.get("poll"),
            "sticker_ids": payload.get("sticker_ids"),
        }
        validate_message(candidate, errors, require_content=not flags & FLAG_LOADING)
        candidate["embeds"], unresolved = self._resolve_attachment_refs(
            candidate["embeds"], candidate["components"], attachments, errors
        )
        reference = payload.get("message_reference")
        if isinstance(reference, dict) and reference.get("message_id"):
            ref_msg = self._messages.get(int(reference["message_id"]))
            if ref_msg is None or ref_msg.deleted:
                if reference.get("fail_if_not_exists", True):
                    errors.add("message_reference", "REPLIES_UNKNOWN_MESSAGE", "Unknown message")
                reference = None
            else:
                reference = {
                    "type": 0,
                    "message_id": str(ref_msg.id),
                    "channel_id": str(ref_msg.channel_id),
                }
                if ref_msg.guild_id:
                    reference["guild_id"] = str(ref_msg.guild_id)
                message_type = 19
        else:
            reference = None
        if errors:
            raise self._invalid_form(request, errors)
        msg = Message(
            id=self.snowflake(),
            channel_id=channel.id,
            author_id=author_id or self.bot_user_id,
            guild_id=channel.guild_id,
            content=candidate["content"],
            embeds=json_copy(candidate["embeds"]),
            components=json_copy(candidate["components"]),
            flags=flags,
            attachments=attachments,
            files=files,
            ephemeral_to=ephemeral_to,
            timestamp=_iso(self.now()),
            type=message_type,
            message_reference=reference,
            tts=bool(payload.get("tts", False)),
            nonce=nonce,
        )
        self.unresolved_attachments.extend((msg.id, url) for url in unresolved)
        for embed in msg.embeds:
            embed.setdefault("type", "rich")
        if rec is not None:
            msg.webhook_id = self.application_id
            msg.interaction_id = rec.id
            msg.interaction_metadata = self._interaction_metadata(rec)
        self._store(msg)
        return msg

    def _interaction_metadata(self, rec: InteractionRecord) -> Json:
        meta: Json = {
            "id": str(rec.id),
            "type": rec.type,
            "user": self._user_payload(rec.user_id),
            "authorizing_integration_owners": self._integration_owners(rec.guild_id),
        }
        if rec.type == 2:
            meta["name"] = rec.data.get("name")
            meta["command_type"] = rec.data.get("type", 1)
        if rec.message_id is not None:
            meta["interacted_message_id"] = str(rec.message_id)
        return meta

    def _store(self, msg: Message) -> None:
        self._messages[msg.id] = msg
        if msg.ephemeral_to is not None:
            self._ephemerals.setdefault(msg.ephemeral_to, []).append(msg)
            return
        self._channel_msgs.setdefault(msg.channel_id, []).append(msg)
        ch = self.channels.get(msg.channel_id)
        if ch is not None:
            ch.last_message_id = msg.id
        self._message_event("MESSAGE_CREATE", msg)

    def _edit_message(
        self,
        request: web.Request,
        msg: Message,
        payload: Any,
        uploads: list[_Upload],
        *,
        finish_loading: bool = False,
    ) -> None:
        if not isinstance(payload, dict):
            errors = FormErrors()
            errors.add("", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            raise self._invalid_form(request, errors)
        errors = FormErrors()
        allowed = FLAG_SUPPRESS_EMBEDS | FLAG_IS_COMPONENTS_V2 | FLAG_EPHEMERAL
        validate_sent_flags(
            payload.get("flags"),
            errors,
            allowed=allowed | FLAG_LOADING | FLAG_SUPPRESS_NOTIFICATIONS,
        )
        new_flags = msg.flags
        if finish_loading:
            new_flags &= ~FLAG_LOADING
        if payload.get("flags") is not None:
            sent = int(payload["flags"])
            new_flags = (new_flags & ~FLAG_SUPPRESS_EMBEDS) | (sent & FLAG_SUPPRESS_EMBEDS)
            new_flags |= sent & FLAG_IS_COMPONENTS_V2  # can be set, never removed
        content = msg.content
        if "content" in payload:
            content = payload["content"] or ""
        embeds = msg.embeds
        if "embeds" in payload:
            embeds = payload["embeds"] or []
        components = msg.components
        if "components" in payload:
            components = payload["components"] or []
        attachments, files = msg.attachments, dict(msg.files)
        if "attachments" in payload or uploads:
            # v10: a given ``attachments`` array lists every attachment to keep or add; without
            # one, new files are added to the existing attachments.
            specs = (
                payload.get("attachments")
                if "attachments" in payload
                else [{"id": a["id"]} for a in msg.attachments]
            )
            attachments, new_files = self._make_attachments(
                request, specs, uploads, msg.channel_id, msg.attachments
            )
            kept = {a["filename"] for a in attachments}
            files = {k: v for k, v in files.items() if k in kept}
            files.update(new_files)
        candidate: Json = {
            "content": content,
            "embeds": embeds,
            "components": components,
            "flags": new_flags,
            "attachments": attachments,
        }
        validate_message(candidate, errors, require_content=not new_flags & FLAG_LOADING)
        embeds, unresolved = self._resolve_attachment_refs(embeds, components, attachments, errors)
        if errors:
            raise self._invalid_form(request, errors)
        self.unresolved_attachments.extend((msg.id, url) for url in unresolved)
        msg.history.append(msg.snapshot())
        msg.content = content
        msg.embeds = json_copy(embeds)
        for embed in msg.embeds:
            embed.setdefault("type", "rich")
        msg.components = json_copy(components)
        msg.flags = new_flags
        msg.attachments = attachments
        msg.files = files
        msg.edited_timestamp = _iso(self.now())
        if msg.ephemeral_to is None:
            self._message_event("MESSAGE_UPDATE", msg)

    def delete_message(self, message_id: int) -> None:
        """A user or a moderator deletes a message (MESSAGE_DELETE to the bot; 404 10008 on
        every later call on it, callbacks that update it included)."""
        self._delete_message(self.get_message(message_id))

    def _delete_message(self, msg: Message) -> None:
        msg.deleted = True
        if msg.ephemeral_to is None:
            data: Json = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            ch = self.channels.get(msg.channel_id)
            intent = (
                INTENT_DIRECT_MESSAGES if ch is not None and ch.is_dm else INTENT_GUILD_MESSAGES
            )
            self._dispatch_soon("MESSAGE_DELETE", data, intent, guild_id=msg.guild_id)

    def _message_event(self, event: str, msg: Message) -> None:
        if not self.emit_message_events:
            return
        ch = self.channels.get(msg.channel_id)
        if ch is None:
            return
        intent = INTENT_DIRECT_MESSAGES if ch.is_dm else INTENT_GUILD_MESSAGES
        for session in list(self._sessions.values()):
            if not session.intents & intent or not self._routes_to(session, ch.guild_id):
                continue
            strip = (
                msg.author_id != self.bot_user_id
                and not ch.is_dm
                and not session.intents & INTENT_MESSAGE_CONTENT
            )
            self._send_dispatch(
                session, event, self._message_payload(msg, for_gateway=True, strip_content=strip)
            )

    # ================================================================== REST: channels

    def _rest_channel(self, request: web.Request, cid: int) -> Channel:
        ch = self.channels.get(cid)
        if ch is None:
            raise self._fail(request, 404, 10003, "Unknown Channel")
        return ch

    def _rest_message(self, request: web.Request, ch: Channel, mid: int) -> Message:
        msg = self._messages.get(mid)
        if msg is None or msg.deleted or msg.channel_id != ch.id or msg.ephemeral_to is not None:
            raise self._fail(request, 404, 10008, "Unknown Message")
        return msg

    def _require_bot_perms(self, request: web.Request, ch: Channel, perms: int) -> None:
        if ch.guild_id is None:
            return
        have = self.permissions(ch.guild_id, self.bot_user_id)
        if have & perms != perms:
            raise self._fail(request, 403, 50013, "Missing Permissions")

    async def _h_get_channel(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        return self._json(self._channel_payload(ch))

    async def _h_edit_channel(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        body, _ = await self._read_body(request)
        body = body or {}
        if ch.is_dm:
            raise self._fail(request, 403, 50003, "Cannot execute action on a DM channel")
        if "name" in body:
            ch.name = str(body["name"])
        if "topic" in body:
            ch.topic = body["topic"]
        if ch.is_thread:
            ch.archived = bool(body.get("archived", ch.archived))
            ch.locked = bool(body.get("locked", ch.locked))
        payload = self._channel_payload(ch)
        self._dispatch_soon(
            "THREAD_UPDATE" if ch.is_thread else "CHANNEL_UPDATE",
            payload,
            INTENT_GUILDS,
            guild_id=ch.guild_id,
        )
        return self._json(payload)

    async def _h_history(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        limit = max(1, min(100, int(request.query.get("limit", "50"))))
        msgs = self.channel_messages(ch.id)
        if "before" in request.query:
            msgs = [x for x in msgs if x.id < int(request.query["before"])]
        if "after" in request.query:
            msgs = [x for x in msgs if x.id > int(request.query["after"])][:limit]
        if "around" in request.query:
            around = int(request.query["around"])
            older = [x for x in msgs if x.id <= around][-(limit // 2 + 1) :]
            newer = [x for x in msgs if x.id > around][: limit // 2]
            msgs = older + newer
        msgs = msgs[-limit:]
        return self._json([self._message_payload(x) for x in reversed(msgs)])

    async def _h_send(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        body, uploads = await self._read_body(request)
        if ch.is_dm:
            assert ch.recipient_id is not None
            user = self.users[ch.recipient_id]
            shares_guild = any(user.id in g.members for g in self.guilds.values())
            if not user.dms_open or user.bot or not shares_guild:
                raise self._fail(request, 403, 50007, "Cannot send messages to this user")
        else:
            needed = PERM_VIEW_CHANNEL | (
                PERM_SEND_MESSAGES_IN_THREADS if ch.is_thread else PERM_SEND_MESSAGES
            )
            self._require_bot_perms(request, ch, needed)
            if ch.is_thread and ch.locked:
                raise self._fail(request, 400, 50083, "Thread is archived")
            ch.archived = False
        nonce, enforce = self._check_nonce(request, body)
        key = (ch.id, self.bot_user_id, str(nonce))
        if nonce is not None and enforce:
            seen = self._nonces.get(key)
            if seen is not None and self.now() - seen[1] <= NONCE_LIFETIME:
                existing = self._messages.get(seen[0])
                if existing is not None and not existing.deleted:
                    self.nonce_duplicates.append((ch.id, str(nonce), existing.id))
                    return self._json(self._message_payload(existing))
        allowed = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_IS_COMPONENTS_V2
        msg = self._new_message(request, ch, body, uploads, allowed_flags=allowed, nonce=nonce)
        if nonce is not None:
            self._nonces[key] = (msg.id, self.now())
        return self._json(self._message_payload(msg))

    def _check_nonce(self, request: web.Request, body: Any) -> tuple[str | int | None, bool]:
        if not isinstance(body, dict):
            return None, False
        nonce = body.get("nonce")
        enforce = body.get("enforce_nonce")
        errors = FormErrors()
        if nonce is not None:
            if isinstance(nonce, bool) or not isinstance(nonce, int | str):
                errors.add("nonce", "NONCE_TYPE_INVALID", "Nonce must be an integer or a string")
            elif len(str(nonce)) > NONCE_MAX:
                errors.add(
                    "nonce", "BASE_TYPE_BAD_LENGTH", f"Must be {NONCE_MAX} or fewer in length."
                )
        if enforce is not None and not isinstance(enforce, bool):
            errors.add("enforce_nonce", "BASE_TYPE_BOOLEAN", "Must be either true or false.")
        if errors:
            raise self._invalid_form(request, errors)
        return nonce, bool(enforce)

    async def _h_get_msg(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        msg = self._rest_message(request, ch, int(m["mid"]))
        return self._json(self._message_payload(msg))

    async def _h_edit_msg(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        msg = self._rest_message(request, ch, int(m["mid"]))
        body, uploads = await self._read_body(request)
        if msg.author_id != self.bot_user_id:
            raise self._fail(
                request,
                403,
                50005,
                "Cannot edit a message authored by another user",
                violation="edit_foreign_message",
            )
        self._edit_message(request, msg, body, uploads)
        return self._json(self._message_payload(msg))

    async def _h_delete_msg(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        ch = self._rest_channel(request, int(m["cid"]))
        msg = self._rest_message(request, ch, int(m["mid"]))
        if msg.author_id != self.bot_user_id:
            if ch.is_dm:
                raise self._fail(request, 403, 50003, "Cannot execute action on a DM channel")
            self._require_bot_perms(request, ch, PERM_MANAGE_MESSAGES)
        self._delete_message(msg)
        return web.Response(status=204)

    async def _h_typing(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        self._rest_channel(request, int(m["cid"]))
        return web.Response(status=204)

    async def _h_create_thread(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        parent = self._rest_channel(request, int(m["cid"]))
        body, _ = await self._read_body(request)
        body = body or {}
        if parent.guild_id is None or parent.is_thread:
            raise self._fail(request, 400, 50024, "Cannot execute action on this channel type")
        name = body.get("name")
        errors = FormErrors()
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            errors.add("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
            raise self._invalid_form(request, errors)
        mid = m.groupdict().get("mid")
        if mid is not None:
            self._rest_message(request, parent, int(mid))
            tid = int(mid)  # a thread started from a message shares its id
            if tid in self.channels:
                raise self._fail(
                    request, 400, 160004, "A thread has already been created for this message"
                )
            private = False
        else:
            tid = self.snowflake()
            private = body.get("type", CHANNEL_PRIVATE_THREAD) == CHANNEL_PRIVATE_THREAD
        self._require_bot_perms(request, parent, PERM_VIEW_CHANNEL)
        guild = self.guilds[parent.guild_id]
        self._create_thread(guild, parent, tid, name, private, self.bot_user_id)
        return self._json(self._channel_payload(self.channels[tid]), 201)

    # ================================================================== REST: guilds

    def _rest_guild(self, request: web.Request, gid: int) -> Guild:
        guild = self.guilds.get(gid)
        if guild is None:
            raise self._fail(request, 404, 10004, "Unknown Guild")
        return guild

    async def _h_get_guild(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        payload = self._guild_payload(guild)
        if request.query.get("with_counts") in ("true", "1", "True"):
            payload["approximate_member_count"] = len(guild.members)
            payload["approximate_presence_count"] = 0
        return self._json(payload)

    async def _h_guild_channels(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        return self._json(
            [
                self._channel_payload(self.channels[c])
                for c in guild.channels
                if not self.channels[c].is_thread
            ]
        )

    async def _h_guild_roles(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        return self._json([self._role_payload(r) for r in guild.roles.values()])

    async def _h_get_member(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        guild = self._rest_guild(request, int(m["gid"]))
        member = guild.members.get(int(m["uid"]))
        if member is None:
            raise self._fail(request, 404, 10007, "Unknown Member")
        return self._json(self._member_payload(guild, member))

    # ================================================================== REST: interactions

    async def _h_callback(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        rec = self._interactions.get(int(m["iid"]))
        if rec is None or rec.token != m["token"]:
            raise self._fail(
                request, 404, 10062, "Unknown interaction", violation="unknown_interaction"
            )
        body, uploads = await self._read_body(request)
        loop = asyncio.get_running_loop()
        if rec.response_type is not None:
            raise self._fail(
                request,
                400,
                40060,
                "Interaction has already been acknowledged.",
                violation="double_ack",
            )
        # Real time, or the emulator's clock when a test moved it (advance_clock).
        elapsed = max(loop.time() - rec.dispatched_at, self.now() - rec.created_at)
        if elapsed > self.ack_deadline:
            raise self._fail(
                request, 404, 10062, "Unknown interaction", violation="late_ack"
            ) from None
        if not isinstance(body, dict):
            errors = FormErrors()
            errors.add("type", "BASE_TYPE_REQUIRED", "This field is required")
            raise self._invalid_form(request, errors)
        rtype = body.get("type")
        data = body.get("data") or {}
        allowed_types = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5}}[rec.type]
        if rec.type == 5 and rec.message_id is not None:
            allowed_types = {4, 5, 6, 7}
        if rtype not in allowed_types:
            errors = FormErrors()
            errors.add(
                "type",
                "INTERACTION_CALLBACK_TYPE_INVALID",
                f"Callback type {rtype} is not valid for interaction type {rec.type}",
            )
            raise self._invalid_form(request, errors)
        ch = self.channels.get(rec.channel_id)
        if ch is None and rtype in (4, 5, 6, 7):  # the channel was deleted meanwhile
            raise self._fail(request, 404, 10003, "Unknown Channel")
        resource: Json = {"type": rtype}
        response_message: Message | None = None
        if rtype in (4, 5):
            assert ch is not None
            ephemeral = bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            allowed = FLAG_EPHEMERAL | FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS
            if rtype == 4:
                allowed |= FLAG_IS_COMPONENTS_V2
                msg = self._new_message(
                    request,
                    ch,
                    data,
                    uploads,
                    allowed_flags=allowed,
                    ephemeral_to=rec.user_id if ephemeral else None,
                    rec=rec,
                    message_type=20 if rec.type == 2 else 0,
                )
                rec.content_message_id = msg.id
            else:
                loading = {"flags": data.get("flags") or 0}
                msg = self._new_message(
                    request,
                    ch,
                    loading,
                    [],
                    allowed_flags=allowed,
                    ephemeral_to=rec.user_id if ephemeral else None,
                    rec=rec,
                    forced_flags=FLAG_LOADING,
                    message_type=20 if rec.type == 2 else 0,
                )
                rec.deferred_pending = True
            rec.ephemeral = ephemeral
            rec.original_message_id = msg.id
            response_message = msg
        elif rtype in (6, 7):
            assert rec.message_id is not None
            target = self._messages[rec.message_id]
            if rtype == 7:
                if target.deleted:
                    raise self._fail(request, 404, 10008, "Unknown Message")
                self._edit_message(request, target, data, uploads)
                rec.content_message_id = target.id
                response_message = target
            rec.ephemeral = target.ephemeral_to is not None
            rec.original_message_id = target.id
        elif rtype == 8:
            errors = FormErrors()
            choices = validate_autocomplete(data, errors)
            if errors:
                raise self._invalid_form(request, errors)
            rec.choices = choices
        elif rtype == 9:
            errors = FormErrors()
            validate_modal(data, errors)
            if errors:
                raise self._invalid_form(request, errors)
            rec.modal = copy.deepcopy(data)
        rec.response_type = rtype
        rec.responded_at = loop.time()
        rec.acked.set()
        if rec.content_message_id is not None:
            rec.content_event.set()
        inter: Json = {
            "id": str(rec.id),
            "type": rec.type,
            "response_message_loading": rtype == 5,
            "response_message_ephemeral": rec.ephemeral,
        }
        if rec.original_message_id is not None and rtype in (4, 5, 7):
            inter["response_message_id"] = str(rec.original_message_id)
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return web.Response(status=204)  # Discord sends the callback object only when asked
        if response_message is not None:
            resource["message"] = self._message_payload(response_message)
        return self._json({"interaction": inter, "resource": resource})

    def _webhook_rec(self, request: web.Request, m: re.Match[str]) -> InteractionRecord:
        rec = self._by_token.get(m["token"])
        if int(m["app"]) != self.application_id or rec is None:
            raise self._fail(request, 404, 10015, "Unknown Webhook", violation="unknown_webhook")
        if self.now() - rec.created_at > TOKEN_LIFETIME:
            raise self._fail(
                request, 401, 50027, "Invalid Webhook Token", violation="expired_interaction_token"
            )
        if rec.response_type is None:
            raise self._fail(
                request, 404, 10015, "Unknown Webhook", violation="followup_before_ack"
            )
        return rec

    def _webhook_msg(self, request: web.Request, rec: InteractionRecord, wmid: str) -> Message:
        if wmid == "@original":
            mid = rec.original_message_id
        else:
            mid = int(wmid)
            if mid != rec.original_message_id and mid not in rec.followup_ids:
                mid = None
        msg = self._messages.get(mid) if mid is not None else None
        if msg is not None and msg.channel_id in self.deleted_channels:
            raise self._fail(request, 404, 10003, "Unknown Channel")
        if msg is None or msg.deleted:
            raise self._fail(request, 404, 10008, "Unknown Message")
        return msg

    async def _h_followup(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        rec = self._webhook_rec(request, m)
        body, uploads = await self._read_body(request)
        wait = request.query.get("wait", "false").lower() in ("1", "true")
        if rec.channel_id in self.deleted_channels:
            raise self._fail(request, 404, 10003, "Unknown Channel")
        if rec.deferred_pending and rec.original_message_id is not None:
            # The first followup after a "thinking" defer replaces the loading message.
            msg = self._messages[rec.original_message_id]
            if isinstance(body, dict):
                body = {k: v for k, v in body.items() if k != "flags"} | {
                    "flags": int(body.get("flags") or 0) & FLAG_IS_COMPONENTS_V2
                }
                body.setdefault("content", "")
            self._edit_message(request, msg, body, uploads, finish_loading=True)
            rec.deferred_pending = False
        else:
            ch = self.channels[rec.channel_id]  # not deleted: checked above
            ephemeral = isinstance(body, dict) and bool(
                int(body.get("flags") or 0) & FLAG_EPHEMERAL
            )
            allowed = (
                FLAG_EPHEMERAL
                | FLAG_SUPPRESS_EMBEDS
                | FLAG_SUPPRESS_NOTIFICATIONS
                | FLAG_IS_COMPONENTS_V2
            )
            msg = self._new_message(
                request,
                ch,
                body,
                uploads,
                allowed_flags=allowed,
                ephemeral_to=rec.user_id if ephemeral else None,
                rec=rec,
            )
            rec.followup_ids.append(msg.id)
        if rec.content_message_id is None:
            rec.content_message_id = msg.id
        rec.content_event.set()
        if not wait:
            return web.Response(status=204)
        return self._json(self._message_payload(msg))

    async def _h_webhook_get(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        rec = self._webhook_rec(request, m)
        return self._json(self._message_payload(self._webhook_msg(request, rec, m["wmid"])))

    async def _h_webhook_edit(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        rec = self._webhook_rec(request, m)
        msg = self._webhook_msg(request, rec, m["wmid"])
        body, uploads = await self._read_body(request)
        finishing = msg.loading and msg.id == rec.original_message_id
        self._edit_message(request, msg, body, uploads, finish_loading=finishing)
        if finishing:
            rec.deferred_pending = False
        if msg.id == rec.original_message_id and rec.content_message_id is None:
            rec.content_message_id = msg.id
        rec.content_event.set()
        return self._json(self._message_payload(msg))

    async def _h_webhook_delete(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        rec = self._webhook_rec(request, m)
        msg = self._webhook_msg(request, rec, m["wmid"])
        self._delete_message(msg)
        if msg.id == rec.original_message_id:
            rec.deferred_pending = False
        return web.Response(status=204)

    # ================================================================== gateway

    def _live_sessions(self) -> list[_Session]:
        return [s for s in self._sessions.values() if s.conn is not None]

    def _routes_to(self, session: _Session, guild_id: int | None) -> bool:
        """Whether Discord sends a guild's events (``None``: DM events) on ``session``."""
        if session.shard is None:
            return True
        return bool(session.shard[0] == self.shard_for(guild_id))

    def _session_for(self, guild_id: int | None) -> _Session:
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

    def _send_dispatch(self, session: _Session, event: str, data: Json) -> None:
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

    async def _writer(self, conn: _GatewayConn) -> None:
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
        conn = _GatewayConn(ws)
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

    def _check_shard(self, shard: Any, conn: _GatewayConn) -> tuple[int, str, str] | None:
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

    async def _on_gateway_message(self, conn: _GatewayConn, payload: Json) -> None:
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
            session = _Session(secrets.token_hex(16), intents, list(shard) if shard else None)
            session.identified_at = time.monotonic()
            self._sessions[session.id] = session
            session.conn = conn
            conn.session = session
            guilds = [g for g in self.guilds.values() if self._routes_to(session, g.id)]
            ready: Json = {
                "v": API_VERSION,
                "user": self._user_payload(self.bot_user_id),
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

    # ================================================================== interactions

    def _integration_owners(self, guild_id: int | None) -> Json:
        return {"0": str(guild_id) if guild_id is not None else "0"}

    def _interaction_base(self, rec: InteractionRecord) -> Json:
        ch = self.channels[rec.channel_id]
        payload: Json = {
            "id": str(rec.id),
            "application_id": str(self.application_id),
            "type": rec.type,
            "token": rec.token,
            "version": 1,
            "channel_id": str(ch.id),
            "channel": self._channel_payload(ch, for_user=rec.user_id),
            "locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": self._integration_owners(rec.guild_id),
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "data": rec.data,
        }
        if rec.guild_id is not None:
            guild = self.guilds[rec.guild_id]
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=self._member_payload(
                    guild,
                    guild.members.get(rec.user_id)  # forged: an outsider gets a bare member
                    or Member(rec.user_id, guild.id, [], _iso(self.now())),
                    with_permissions=True,
                ),
                app_permissions=str(self.permissions(guild.id, self.bot_user_id)),
                context=0,
            )
        else:
            payload.update(
                user=self._user_payload(rec.user_id),
                app_permissions=str(DM_APP_PERMISSIONS),
                context=1,
            )
        if rec.message_id is not None:
            payload["message"] = self._message_payload(self._messages[rec.message_id])
        return payload

    def _resolve_actor(self, user_id: int, channel_id: int) -> Channel:
        self._user(user_id)
        ch = self.channels.get(channel_id)
        if ch is None:
            raise EmulatorError(f"unknown channel {channel_id}")
        if not self._can_see_channel(user_id, ch):
            raise EmulatorError(f"user {user_id} cannot see channel {channel_id}")
        return ch

    async def _interact(
        self,
        itype: int,
        user_id: int,
        ch: Channel,
        data: Json,
        *,
        message: Message | None = None,
    ) -> InteractionRecord:
        session = self._session_for(ch.guild_id)
        rec = InteractionRecord(
            id=self.snowflake(),
            token="aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
            type=itype,
            user_id=user_id,
            channel_id=ch.id,
            guild_id=ch.guild_id,
            data=data,
            created_at=self.now(),
            message_id=message.id if message is not None else None,
        )
        rec.shard_id = session.shard[0] if session.shard else None
        payload = self._interaction_base(rec)
        self._interactions[rec.id] = rec
        self._by_token[rec.token] = rec
        self.interactions.append(rec)
        loop = asyncio.get_running_loop()
        rec.dispatched_at = loop.time()
        self._send_dispatch(session, "INTERACTION_CREATE", payload)
        try:
            await asyncio.wait_for(rec.acked.wait(), self.ack_deadline)
        except TimeoutError:
            what = data.get("name") or data.get("custom_id")
            detail = (
                f"interaction {rec.id} ({what!r}, type {itype}) was not acknowledged "
                f"within {self.ack_deadline}s"
            )
            rejected = [
                str(v) for v in self.violations if v.path.startswith(f"/interactions/{rec.id}/")
            ]
            if rejected:
                detail += "; rejected callbacks: " + "; ".join(rejected)
            self.violations.append(Violation("unacknowledged", detail))
            raise EmulatorError(detail) from None
        self._touch()
        return rec

    # ---------------------------------------------------------------- application commands

    def _find_command(self, name: str, guild_id: int | None, ctype: int = 1) -> Json:
        scopes: list[int | None] = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            for cmd in self._commands.get(scope, []):
                if cmd["name"] == name and int(cmd.get("type") or 1) == ctype:
                    return cmd
        synced = sorted({c["name"] for s in scopes for c in self._commands.get(s, [])})
        raise EmulatorError(f"command {name!r} was not synced (synced: {synced})")

    def _check_command_visible(self, cmd: Json, user_id: int, ch: Channel) -> None:
        contexts = cmd.get("contexts")
        if ch.guild_id is None:
            if cmd.get("guild_id") is not None:
                raise EmulatorError(f"guild command {cmd['name']!r} cannot be used in DMs")
            if contexts is not None and 1 not in contexts:
                raise EmulatorError(f"command {cmd['name']!r} is not available in bot DMs")
            if contexts is None and cmd.get("dm_permission") is False:
                raise EmulatorError(f"command {cmd['name']!r} is not available in DMs")
            return
        if contexts is not None and 0 not in contexts:
            raise EmulatorError(f"command {cmd['name']!r} is not available in guilds")
        needed = cmd.get("default_member_permissions")
        if needed is not None:
            have = self.permissions(ch.guild_id, user_id)
            if int(needed) & have != int(needed):
                raise EmulatorError(
                    f"user {user_id} lacks the permissions ({needed}) to see {cmd['name']!r}"
                )

    def _walk_command(self, command: str, guild_id: int | None) -> tuple[Json, list[Json], Json]:
        """Returns (root command, path of subcommand/group option decls, leaf decl)."""
        parts = command.split()
        if not parts:
            raise EmulatorError("empty command")
        root = self._find_command(parts[0], guild_id)
        node = root
        path: list[Json] = []
        for part in parts[1:]:
            found = None
            for opt in node.get("options") or []:
                if opt.get("name") == part and opt.get("type") in (1, 2):
                    found = opt
                    break
            if found is None:
                subs = [o["name"] for o in node.get("options") or [] if o.get("type") in (1, 2)]
                raise EmulatorError(f"{command!r}: no subcommand {part!r} (have {subs})")
            path.append(found)
            node = found
        if any(o.get("type") in (1, 2) for o in node.get("options") or []):
            subs = [o["name"] for o in node.get("options") or []]
            raise EmulatorError(f"{command!r} needs a subcommand: one of {subs}")
        return root, path, node

    def _convert_option(
        self, decl: Json, value: Any, guild_id: int | None, resolved: Json, *, strict: bool
    ) -> Any:
        otype = decl["type"]
        name = decl["name"]
        if otype == 3:
            if not isinstance(value, str):
                raise EmulatorError(f"option {name!r} is a string, got {value!r}")
            if strict:
                if "min_length" in decl and len(value) < decl["min_length"]:
                    raise EmulatorError(f"option {name!r} shorter than {decl['min_length']}")
                if "max_length" in decl and len(value) > decl["max_length"]:
                    raise EmulatorError(f"option {name!r} longer than {decl['max_length']}")
                if len(value) > 6000:
                    raise EmulatorError(f"option {name!r} too long")
        elif otype == 4:
            if isinstance(value, bool) or not isinstance(value, int):
                raise EmulatorError(f"option {name!r} is an integer, got {value!r}")
            if abs(value) > 2**53:
                raise EmulatorError(f"option {name!r} out of range")
        elif otype == 10:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise EmulatorError(f"option {name!r} is a number, got {value!r}")
        elif otype == 5:
            if not isinstance(value, bool):
                raise EmulatorError(f"option {name!r} is a boolean, got {value!r}")
        elif otype in (6, 7, 8, 9):
            return self._convert_snowflake_option(decl, value, guild_id, resolved)
        else:
            raise EmulatorError(f"option {name!r}: option type {otype} is not supported")
        if strict:
            if otype in (4, 10):
                if "min_value" in decl and value < decl["min_value"]:
                    raise EmulatorError(f"option {name!r}: {value} < min {decl['min_value']}")
                if "max_value" in decl and value > decl["max_value"]:
                    raise EmulatorError(f"option {name!r}: {value} > max {decl['max_value']}")
            choices = decl.get("choices")
            if choices and value not in [c["value"] for c in choices]:
                raise EmulatorError(
                    f"option {name!r}: {value!r} is not one of {[c['value'] for c in choices]}"
                )
        return value

    def _convert_snowflake_option(
        self, decl: Json, value: Any, guild_id: int | None, resolved: Json
    ) -> str:
        otype = decl["type"]
        name = decl["name"]
        try:
            ident = int(value)
        except (TypeError, ValueError):
            raise EmulatorError(f"option {name!r} takes an id, got {value!r}") from None
        if otype in (6, 9) and ident in self.users:
            resolved.setdefault("users", {})[str(ident)] = self._user_payload(ident)
            guild = self.guilds.get(guild_id or 0)
            if guild is not None and ident in guild.members:
                resolved.setdefault("members", {})[str(ident)] = self._member_payload(
                    guild, guild.members[ident], with_user=False, with_permissions=True
                )
            return str(ident)
        if otype in (8, 9):
            guild = self.guilds.get(guild_id or 0)
            role = guild.roles.get(ident) if guild is not None else None
            if role is None:
                raise EmulatorError(f"option {name!r}: unknown role/user {value!r}")
            resolved.setdefault("roles", {})[str(role.id)] = self._role_payload(role)
            return str(role.id)
        if otype == 6:
            raise EmulatorError(f"option {name!r}: unknown user {value!r}")
        ch = self.channels.get(ident)
        if ch is None or ch.guild_id is None or ch.guild_id != guild_id:
            raise EmulatorError(f"option {name!r}: unknown channel {value!r}")
        types = decl.get("channel_types")
        if types and ch.type not in types:
            raise EmulatorError(f"option {name!r}: channel type {ch.type} not in {types}")
        payload = self._channel_payload(ch)
        payload["permissions"] = str(self.permissions(ch.guild_id, self.bot_user_id))
        resolved.setdefault("channels", {})[str(ch.id)] = payload
        return str(ch.id)

    def _command_data(
        self,
        user_id: int,
        ch: Channel,
        command: str,
        options: Mapping[str, Any],
        *,
        focused: str | None = None,
    ) -> Json:
        root, path, leaf = self._walk_command(command, ch.guild_id)
        self._check_command_visible(root, user_id, ch)
        decls = {o["name"]: o for o in leaf.get("options") or []}
        resolved: Json = {}
        leaf_opts: list[Json] = []
        for name, value in options.items():
            decl = decls.get(name)
            if decl is None:
                raise EmulatorError(f"{command!r} has no option {name!r} (has {list(decls)})")
            if name == focused:
                if not decl.get("autocomplete"):
                    raise EmulatorError(f"option {name!r} of {command!r} has no autocomplete")
                leaf_opts.append(
                    {"name": name, "type": decl["type"], "value": str(value), "focused": True}
                )
                continue
            converted = self._convert_option(
                decl, value, ch.guild_id, resolved, strict=focused is None
            )
            leaf_opts.append({"name": name, "type": decl["type"], "value": converted})
        if focused is None:
            missing = [n for n, d in decls.items() if d.get("required") and n not in options]
            if missing:
                raise EmulatorError(f"{command!r}: required option(s) missing: {missing}")
        elif focused not in options:
            raise EmulatorError(f"focused option {focused!r} needs a (partial) value")
        leaf_opts.sort(key=lambda o: list(decls).index(o["name"]))
        nested: list[Json] = leaf_opts
        for decl in reversed(path):
            nested = [{"name": decl["name"], "type": decl["type"], "options": nested}]
        data: Json = {"id": root["id"], "name": root["name"], "type": 1}
        if nested:
            data["options"] = nested
        if resolved:
            data["resolved"] = resolved
        if root.get("guild_id") is not None:
            data["guild_id"] = root["guild_id"]
        return data

    async def slash(
        self,
        user_id: int,
        channel_id: int,
        command: str,
        options: Mapping[str, Any] | None = None,
    ) -> InteractionResult:
        """Run ``/command`` ("game new" = command game, subcommand new) as ``user_id``."""
        ch = self._resolve_actor(user_id, channel_id)
        data = self._command_data(user_id, ch, command, options or {})
        rec = await self._interact(2, user_id, ch, data)
        return InteractionResult(self, rec)

    async def autocomplete(
        self,
        user_id: int,
        channel_id: int,
        command: str,
        options: Mapping[str, Any],
        *,
        focused: str,
    ) -> list[Json]:
        """Type into an autocomplete option; returns the choices the bot offered."""
        ch = self._resolve_actor(user_id, channel_id)
        data = self._command_data(user_id, ch, command, options, focused=focused)
        rec = await self._interact(4, user_id, ch, data)
        return list(rec.choices or [])

    async def context_menu(
        self, user_id: int, channel_id: int, name: str, target: int | Message
    ) -> InteractionResult:
        """Run a user (target = user id) or message (target = Message) context menu command."""
        ch = self._resolve_actor(user_id, channel_id)
        ctype = 3 if isinstance(target, Message) else 2
        cmd = self._find_command(name, ch.guild_id, ctype)
        self._check_command_visible(cmd, user_id, ch)
        resolved: Json = {}
        if isinstance(target, Message):
            resolved["messages"] = {str(target.id): self._message_payload(target)}
            target_id = target.id
        else:
            target_id = int(
                self._convert_option(
                    {"name": "target", "type": 6}, target, ch.guild_id, resolved, strict=True
                )
            )
        data: Json = {
            "id": cmd["id"],
            "name": name,
            "type": ctype,
            "target_id": str(target_id),
            "resolved": resolved,
        }
        if cmd.get("guild_id") is not None:
            data["guild_id"] = cmd["guild_id"]
        rec = await self._interact(2, user_id, ch, data)
        return InteractionResult(self, rec)

    # ---------------------------------------------------------------- components

    def _component_target(self, user_id: int, message: Message | int) -> tuple[Message, Channel]:
        msg = self.get_message(message if isinstance(message, int) else message.id)
        if msg.deleted:
            raise EmulatorError(f"message {msg.id} was deleted")
        if msg.ephemeral_to is not None and msg.ephemeral_to != user_id:
            raise EmulatorError(f"message {msg.id} is ephemeral to someone else")
        ch = self._resolve_actor(user_id, msg.channel_id)
        if msg.loading:
            raise EmulatorError(f"message {msg.id} is still loading")
        return msg, ch

    async def click(
        self, user_id: int, message: Message | int, custom_id: str
    ) -> InteractionResult:
        """Click the button ``custom_id`` on ``message``."""
        msg, ch = self._component_target(user_id, message)
        comp = msg.find_component(custom_id)
        if comp is None or comp.get("type") != 2:
            raise EmulatorError(f"no button {custom_id!r} on message {msg.id}: {msg.buttons()}")
        if comp.get("disabled"):
            raise EmulatorError(f"button {custom_id!r} on message {msg.id} is disabled")
        data: Json = {"custom_id": custom_id, "component_type": 2}
        if comp.get("id") is not None:
            data["id"] = comp["id"]
        rec = await self._interact(3, user_id, ch, data, message=msg)
        return InteractionResult(self, rec)

    async def forge_component(
        self,
        user_id: int,
        message: Message | int,
        custom_id: str,
        *,
        component_type: int = 2,
        values: Sequence[str] | None = None,
        data: Json | None = None,
        skip_checks: bool = False,
    ) -> InteractionResult:
        """A hostile, modified client: a component interaction on ``message`` with any
        custom_id, component_type (a select's id sent as a button...) and values, without the
        checks Discord's own client makes. ``data`` replaces the whole interaction data.
        ``skip_checks``: also from users who cannot see the message (not in the guild, someone
        else's ephemeral) and on deleted or loading messages."""
        if skip_checks:
            msg = self.get_message(message if isinstance(message, int) else message.id)
            return await self.forge_interaction(
                user_id,
                msg.channel_id,
                3,
                data if data is not None else _component_data(custom_id, component_type, values),
                message=msg,
            )
        msg, ch = self._component_target(user_id, message)
        if data is None:
            data = _component_data(custom_id, component_type, values)
        rec = await self._interact(3, user_id, ch, copy.deepcopy(data), message=msg)
        return InteractionResult(self, rec)

    async def forge_interaction(
        self,
        user_id: int,
        channel_id: int,
        interaction_type: int,
        data: Json,
        *,
        message: Message | int | None = None,
    ) -> InteractionResult:
        """Dispatch an INTERACTION_CREATE (type 2 command, 3 component, 4 autocomplete, 5 modal
        submit) carrying exactly ``data``, from any existing user in any existing channel
        (members or not, DMs or not): what a hostile or buggy client could send. The bot must
        still acknowledge within ``ack_deadline`` (else ``unacknowledged``, as always)."""
        self._user(user_id)
        ch = self.channels.get(channel_id)
        if ch is None:
            raise EmulatorError(f"unknown channel {channel_id}")
        if interaction_type not in (2, 3, 4, 5):
            raise EmulatorError(f"interaction type {interaction_type} is not 2, 3, 4 or 5")
        msg = None
        if message is not None:
            msg = self.get_message(message if isinstance(message, int) else message.id)
        if interaction_type == 3 and msg is None:
            raise EmulatorError("a component interaction always comes with its message")
        rec = await self._interact(interaction_type, user_id, ch, copy.deepcopy(data), message=msg)
        return InteractionResult(self, rec)

    def _lookup_command(self, name: str, guild_id: int | None) -> Json | None:
        scopes: list[int | None] = [guild_id, None] if guild_id is not None else [None]
        scopes += [g for g in self._commands if g not in scopes]
        for scope in scopes:
            for cmd in self._commands.get(scope, []):
                if cmd["name"] == name and int(cmd.get("type") or 1) == 1:
                    return cmd
        return None

    async def forge_slash(
        self,
        user_id: int,
        channel_id: int,
        command: str,
        options: Mapping[str, Any] | Sequence[Json] | None = None,
        *,
        validate: bool = False,
        focused: str | None = None,
        command_id: int | None = None,
    ) -> InteractionResult:
        """``/command`` ("game new": command, then subcommand group/subcommand) as a hostile
        client could send it: unknown commands and subcommands, options that were never
        declared, values of the wrong type, outside the choices or min/max, huge strings, a
        guild-only command from a DM, a user who is not in the guild. ``options``: a mapping
        (name -> value; the type is the declared one, else guessed from the value) or the exact
        list of leaf option objects. ``focused``: an autocomplete (type 4) for that option.
        ``validate=True`` applies every check ``slash``/``autocomplete`` make."""
        if validate:
            ch = self._resolve_actor(user_id, channel_id)
            if options is not None and not isinstance(options, Mapping):
                raise EmulatorError("validate=True takes options as a mapping")
            checked = self._command_data(user_id, ch, command, options or {}, focused=focused)
            rec = await self._interact(4 if focused else 2, user_id, ch, checked)
            return InteractionResult(self, rec)
        ch_or_none = self.channels.get(channel_id)
        if ch_or_none is None:
            raise EmulatorError(f"unknown channel {channel_id}")
        parts = command.split()
        if not parts:
            raise EmulatorError("empty command")
        root = self._lookup_command(parts[0], ch_or_none.guild_id)
        node: Json = root or {}
        path: list[Json] = []
        for index, part in enumerate(parts[1:], start=2):
            decl = next(
                (
                    o
                    for o in node.get("options") or []
                    if isinstance(o, dict) and o.get("name") == part and o.get("type") in (1, 2)
                ),
                None,
            )
            node = decl or {"name": part, "type": 1 if index == len(parts) else 2}
            path.append(node)
        decls = {
            o["name"]: o for o in node.get("options") or [] if isinstance(o, dict) and "name" in o
        }
        resolved: Json = {}
        leaf: list[Any]
        if options is None:
            leaf = []
        elif isinstance(options, Mapping):
            leaf = []
            for name, value in options.items():
                decl = decls.get(name)
                otype = int(decl["type"]) if decl else _guess_option_type(value)
                opt: Json = {"name": name, "type": otype, "value": value}
                if name == focused:
                    opt["focused"] = True
                if decl is not None and otype in (6, 7, 8, 9):
                    with contextlib.suppress(EmulatorError):
                        self._convert_snowflake_option(decl, value, ch_or_none.guild_id, resolved)
                leaf.append(opt)
        else:
            leaf = copy.deepcopy(list(options))
        nested: list[Any] = leaf
        for decl in reversed(path):
            nested = [{"name": decl["name"], "type": decl["type"], "options": nested}]
        cid = command_id or (int(root["id"]) if root is not None else self.snowflake())
        data: Json = {"id": str(cid), "name": parts[0], "type": 1}
        if nested:
            data["options"] = nested
        if resolved:
            data["resolved"] = resolved
        if root is not None and root.get("guild_id") is not None:
            data["guild_id"] = root["guild_id"]
        return await self.forge_interaction(user_id, channel_id, 4 if focused else 2, data)

    async def select(
        self, user_id: int, message: Message | int, custom_id: str, values: Sequence[Any]
    ) -> InteractionResult:
        """Pick ``values`` in the select ``custom_id`` on ``message``."""
        msg, ch = self._component_target(user_id, message)
        comp = msg.find_component(custom_id)
        if comp is None or comp.get("type") not in SELECT_TYPES:
            raise EmulatorError(f"no select {custom_id!r} on message {msg.id}: {msg.selects()}")
        if comp.get("disabled"):
            raise EmulatorError(f"select {custom_id!r} on message {msg.id} is disabled")
        min_values = int(comp.get("min_values", 1))
        max_values = int(comp.get("max_values", 1))
        if not min_values <= len(values) <= max_values:
            raise EmulatorError(
                f"select {custom_id!r} takes {min_values}..{max_values} values, got {len(values)}"
            )
        if len(set(map(str, values))) != len(values):
            raise EmulatorError(f"duplicate values {values!r}")
        data: Json = {"custom_id": custom_id, "component_type": comp["type"]}
        if comp.get("id") is not None:
            data["id"] = comp["id"]
        data["values"], resolved = self._select_values(comp, list(values), ch)
        if resolved:
            data["resolved"] = resolved
        rec = await self._interact(3, user_id, ch, data, message=msg)
        return InteractionResult(self, rec)

    def _select_values(self, comp: Json, values: list[Any], ch: Channel) -> tuple[list[str], Json]:
        ctype = comp["type"]
        if ctype == 3:
            allowed = [o.get("value") for o in comp.get("options") or []]
            for v in values:
                if v not in allowed:
                    raise EmulatorError(
                        f"{v!r} is not an option of {comp['custom_id']!r}: {allowed}"
                    )
            return [str(v) for v in values], {}
        resolved: Json = {}
        otype = {5: 6, 6: 8, 7: 9, 8: 7}[ctype]
        decl: Json = {
            "name": comp["custom_id"],
            "type": otype,
            "channel_types": comp.get("channel_types"),
        }
        out = [
            str(self._convert_option(decl, v, ch.guild_id, resolved, strict=True)) for v in values
        ]
        return out, resolved

    async def submit_modal(
        self,
        user_id: int,
        opened_by: InteractionResult,
        values: Mapping[str, str | Sequence[str]],
    ) -> InteractionResult:
        """Fill in and submit the modal the bot opened in answer to ``opened_by``."""
        modal = opened_by.modal
        if modal is None:
            raise EmulatorError("that interaction was not answered with a modal")
        if opened_by.record.user_id != user_id:
            raise EmulatorError("only the user the modal was shown to can submit it")
        ch = self._resolve_actor(user_id, opened_by.record.channel_id)
        unused = set(values)

        def mirror(comp: Json) -> Json | None:
            ctype = comp.get("type")
            if ctype == 1:
                inner = [c for c in (mirror(x) for x in comp.get("components") or []) if c]
                return {"type": 1, "components": inner}
            if ctype == 18:
                inner_comp = mirror(comp["component"])
                return {"type": 18, "component": inner_comp} if inner_comp else None
            if ctype == 10:
                return {"type": 10, "id": comp.get("id", 0)}
            custom_id = comp.get("custom_id")
            if ctype == 4:
                value = values.get(str(custom_id), comp.get("value") or "")
                if not isinstance(value, str):
                    raise EmulatorError(f"text input {custom_id!r} takes a string")
                unused.discard(str(custom_id))
                if comp.get("required", True) and not value:
                    raise EmulatorError(f"text input {custom_id!r} is required")
                if value and len(value) < int(comp.get("min_length") or 0):
                    raise EmulatorError(f"text input {custom_id!r} too short")
                if len(value) > int(comp.get("max_length") or 4000):
                    raise EmulatorError(f"text input {custom_id!r} too long")
                return {"type": 4, "custom_id": custom_id, "value": value}
            if ctype in SELECT_TYPES:
                raw = values.get(str(custom_id), [])
                unused.discard(str(custom_id))
                chosen = [raw] if isinstance(raw, str) else list(raw)
                picked, _ = self._select_values(comp, chosen, ch)
                return {"type": ctype, "custom_id": custom_id, "values": picked}
            return None

        components = [c for c in (mirror(x) for x in modal.get("components") or []) if c]
        if unused:
            raise EmulatorError(f"modal has no inputs {sorted(unused)}")
        data: Json = {"custom_id": modal["custom_id"], "components": components}
        message = None
        if opened_by.record.message_id is not None:
            message = self._messages[opened_by.record.message_id]
        rec = await self._interact(5, user_id, ch, data, message=message)
        return InteractionResult(self, rec)

    # ---------------------------------------------------------------- user messages

    def post_user_message(self, user_id: int, channel_id: int, content: str) -> Message:
        """A user writes in a channel (dispatches MESSAGE_CREATE to the bot)."""
        ch = self._resolve_actor(user_id, channel_id)
        msg = Message(
            id=self.snowflake(),
            channel_id=ch.id,
            author_id=user_id,
            guild_id=ch.guild_id,
            content=content,
            timestamp=_iso(self.now()),
        )
        self._store(msg)
        self._touch()
        return msg

    def interaction(self, interaction_id: int) -> InteractionRecord:
        return self._interactions[interaction_id]

    def find_messages(self, text: str, *, channel_id: int | None = None) -> list[Message]:
        """Live messages whose current text contains ``text``."""
        pool = (
            self.channel_messages(channel_id)
            if channel_id is not None
            else [m for m in self._messages.values() if not m.deleted]
        )
        return [m for m in pool if text in m.current_text()]

    def iter_components(self, message: Message) -> list[Json]:
        return list(iter_components(message.components))
