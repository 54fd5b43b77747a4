"""State objects of the Discord emulator: users, guilds, channels, messages, interactions."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from .jsondata import json_copy
from .validation import FLAG_EPHEMERAL, FLAG_LOADING, SELECT_TYPES, Json, iter_components


class EmulatorError(AssertionError):
    """A simulated user action could not happen, or the bot misbehaved (e.g. no ack in 3 s)."""


class RestCall(NamedTuple):
    method: str
    path: str
    time: float  # when it arrived, on the emulator's clock (DiscordEmulator.clock)


class RateLimitRecord(NamedTuple):
    """A 429 the emulator's buckets answered (not an injected one: see ``faults_injected``)."""

    method: str
    path: str
    bucket: str  # rule name and major parameter, e.g. "message-create:123" or "global"
    scope: str  # "user" or "global"
    retry_after: float
    time: float  # the emulator's clock (DiscordEmulator.clock)


class FaultRecord(NamedTuple):
    """A fault the emulator injected (``inject_fault``/``drop_connection``/``force_rate_limit``)."""

    method: str
    path: str
    status: int | None  # None: dropped connection
    code: int | None  # JSON error code (None for HTML answers and drops)
    kind: str  # "http" or "drop"
    processed: bool  # the request took effect before its answer was lost
    time: float  # the emulator's clock (DiscordEmulator.clock)


@dataclass(frozen=True)
class Violation:
    """Something real Discord would have rejected (or a bot bug Discord would punish)."""

    kind: str  # "invalid_form_body", "late_ack", "unacknowledged", "double_ack", ...
    detail: str
    method: str = ""
    path: str = ""

    def __str__(self) -> str:
        where = f" [{self.method} {self.path}]" if self.method else ""
        return f"{self.kind}{where}: {self.detail}"


# Permission bits (https://discord.com/developers/docs/topics/permissions)
PERM_CREATE_INSTANT_INVITE = 1 << 0
PERM_ADMINISTRATOR = 1 << 3
PERM_MANAGE_CHANNELS = 1 << 4
PERM_ADD_REACTIONS = 1 << 6
PERM_VIEW_CHANNEL = 1 << 10
PERM_SEND_MESSAGES = 1 << 11
PERM_MANAGE_MESSAGES = 1 << 13
PERM_EMBED_LINKS = 1 << 14
PERM_ATTACH_FILES = 1 << 15
PERM_READ_MESSAGE_HISTORY = 1 << 16
PERM_USE_EXTERNAL_EMOJIS = 1 << 18
PERM_CONNECT = 1 << 20
PERM_SPEAK = 1 << 21
PERM_CHANGE_NICKNAME = 1 << 26
PERM_USE_APPLICATION_COMMANDS = 1 << 31
PERM_MANAGE_THREADS = 1 << 34
PERM_CREATE_PUBLIC_THREADS = 1 << 35
PERM_CREATE_PRIVATE_THREADS = 1 << 36
PERM_SEND_MESSAGES_IN_THREADS = 1 << 38
PERM_USE_EXTERNAL_APPS = 1 << 50
ALL_PERMISSIONS = (1 << 51) - 1

EVERYONE_PERMISSIONS = (
    PERM_CREATE_INSTANT_INVITE
    | PERM_ADD_REACTIONS
    | PERM_VIEW_CHANNEL
    | PERM_SEND_MESSAGES
    | PERM_EMBED_LINKS
    | PERM_ATTACH_FILES
    | PERM_READ_MESSAGE_HISTORY
    | PERM_USE_EXTERNAL_EMOJIS
    | PERM_CONNECT
    | PERM_SPEAK
    | PERM_CHANGE_NICKNAME
    | PERM_USE_APPLICATION_COMMANDS
    | PERM_CREATE_PUBLIC_THREADS
    | PERM_CREATE_PRIVATE_THREADS
    | PERM_SEND_MESSAGES_IN_THREADS
    | PERM_USE_EXTERNAL_APPS
)
BOT_PERMISSIONS = (
    EVERYONE_PERMISSIONS | PERM_MANAGE_MESSAGES | PERM_MANAGE_THREADS | PERM_MANAGE_CHANNELS
)

# Channel types
CHANNEL_TEXT = 0
CHANNEL_DM = 1
CHANNEL_PUBLIC_THREAD = 11
CHANNEL_PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({10, CHANNEL_PUBLIC_THREAD, CHANNEL_PRIVATE_THREAD})


@dataclass(eq=False)
class User:
    id: int
    name: str
    bot: bool = False
    dms_open: bool = True
    global_name: str | None = None


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False


@dataclass(eq=False)
class Member:
    user_id: int
    guild_id: int
    roles: list[int]
    joined_at: str
    nick: str | None = None


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    created_at: str
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channels: list[int] = field(default_factory=list)


@dataclass(eq=False)
class Channel:
    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    recipient_id: int | None = None  # DM channels
    owner_id: int | None = None  # threads
    position: int = 0
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440  # threads: minutes of inactivity before archiving
    created_at: str = ""
    last_message_id: int | None = None
    topic: str | None = None

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == CHANNEL_DM


def _component_text(comp: Json) -> list[str]:
    out: list[str] = []
    for key in ("label", "placeholder", "content", "description", "title"):
        value = comp.get(key)
        if isinstance(value, str) and value:
            out.append(value)
    for opt in comp.get("options") or []:
        if isinstance(opt, dict):
            for key in ("label", "description"):
                value = opt.get(key)
                if isinstance(value, str) and value:
                    out.append(value)
    for item in comp.get("items") or []:  # media gallery descriptions
        if isinstance(item, dict) and isinstance(item.get("description"), str):
            out.append(item["description"])
    return out


def _embed_text(embed: Json) -> list[str]:
    out: list[str] = []
    for key in ("title", "description"):
        if embed.get(key):
            out.append(str(embed[key]))
    author = embed.get("author")
    if isinstance(author, dict) and author.get("name"):
        out.append(str(author["name"]))
    for fld in embed.get("fields") or []:
        out.extend(str(fld.get(k, "")) for k in ("name", "value") if fld.get(k))
    footer = embed.get("footer")
    if isinstance(footer, dict) and footer.get("text"):
        out.append(str(footer["text"]))
    return out


def version_text(version: Json) -> str:
    """Human-visible text of one version of a message."""
    parts: list[str] = []
    if version.get("content"):
        parts.append(str(version["content"]))
    for embed in version.get("embeds") or []:
        parts.extend(_embed_text(embed))
    for comp in iter_components(version.get("components") or []):
        parts.extend(_component_text(comp))
    for att in version.get("attachments") or []:
        if att.get("filename"):
            parts.append(str(att["filename"]))
    return "\n".join(parts)


@dataclass(eq=False)
class Message:
    """A message as the emulator saw it, with every previous version kept in ``history``."""

    id: int
    channel_id: int
    author_id: int
    guild_id: int | None = None
    content: str = ""
    embeds: list[Json] = field(default_factory=list)
    components: list[Json] = field(default_factory=list)
    flags: int = 0
    attachments: list[Json] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    ephemeral_to: int | None = None
    history: list[Json] = field(default_factory=list)
    deleted: bool = False
    timestamp: str = ""
    edited_timestamp: str | None = None
    type: int = 0
    webhook_id: int | None = None
    interaction_id: int | None = None
    interaction_metadata: Json | None = None
    message_reference: Json | None = None
    tts: bool = False
    nonce: str | int | None = None

    # ---- versions
    def snapshot(self) -> Json:
        """This version: content, embeds, components, flags, attachments and ``files``
        (filename -> bytes, so tests can inspect images of earlier versions)."""
        return {
            "content": self.content,
            "embeds": json_copy(self.embeds),
            "components": json_copy(self.components),
            "flags": self.flags,
            "attachments": json_copy(self.attachments),
            "files": dict(self.files),  # bytes: immutable, shared
        }

    def versions(self) -> list[Json]:
        """Every version of the message, oldest first, the current one last."""
        return [*self.history, self.snapshot()]

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & FLAG_LOADING)

    # ---- human-visible helpers
    def text(self) -> str:
        """All human-visible text over all versions (content, embeds, components, filenames)."""
        seen: list[str] = []
        for version in self.versions():
            text = version_text(version)
            if text and text not in seen:
                seen.append(text)
        return "\n".join(seen)

    def current_text(self) -> str:
        return version_text(self.snapshot())

    def all_components(self) -> list[Json]:
        return list(iter_components(self.components))

    def buttons(self) -> list[tuple[str | None, str | None, bool]]:
        """``(label, custom_id, disabled)`` of every button of the current version."""
        return [
            (c.get("label"), c.get("custom_id"), bool(c.get("disabled", False)))
            for c in self.all_components()
            if c.get("type") == 2
        ]

    def selects(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """``(custom_id, [(label, value)])`` of every select of the current version."""
        return [
            (
                str(c.get("custom_id")),
                [(str(o.get("label")), str(o.get("value"))) for o in c.get("options") or []],
            )
            for c in self.all_components()
            if c.get("type") in SELECT_TYPES
        ]

    def file(self, filename: str) -> bytes:
        """The bytes of the current attachment ``filename``."""
        try:
            return self.files[filename]
        except KeyError:
            raise EmulatorError(
                f"message {self.id} has no file {filename!r}: {sorted(self.files)}"
            ) from None

    def embed_images(self) -> list[str]:
        """Image and thumbnail URLs of the current embeds (attachment:// resolved)."""
        out: list[str] = []
        for embed in self.embeds:
            for key in ("image", "thumbnail"):
                media = embed.get(key)
                if isinstance(media, dict) and media.get("url"):
                    out.append(str(media["url"]))
        return out

    def find_component(self, custom_id: str) -> Json | None:
        for comp in self.all_components():
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    def button(self, label: str) -> str:
        """custom_id of the (first) enabled button whose label contains ``label``."""
        for lbl, custom_id, disabled in self.buttons():
            if lbl is not None and label in lbl and custom_id and not disabled:
                return custom_id
        raise EmulatorError(
            f"no enabled button labelled {label!r} on message {self.id}: {self.buttons()}"
        )

    def __repr__(self) -> str:
        text = self.current_text().replace("\n", " | ")
        if len(text) > 80:
            text = text[:77] + "..."
        eph = f" ephemeral_to={self.ephemeral_to}" if self.ephemeral_to else ""
        dead = " deleted" if self.deleted else ""
        return f"<Message id={self.id} channel={self.channel_id}{eph}{dead} {text!r}>"


@dataclass(eq=False)
class InteractionRecord:
    """One interaction the emulator dispatched, and what the bot did with it."""

    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user_id: int
    channel_id: int
    guild_id: int | None
    data: Json
    created_at: float  # emulator clock (for the 15 minute token lifetime)
    message_id: int | None = None  # the message a component sits on
    trigger_id: int | None = None  # a modal submit: the interaction that opened the modal
    dispatched_at: float = 0.0  # loop time
    responded_at: float | None = None
    response_type: int | None = None
    ephemeral: bool = False
    original_message_id: int | None = None  # what @original refers to
    deferred_pending: bool = False  # a type 5 still "thinking"
    followup_ids: list[int] = field(default_factory=list)
    content_message_id: int | None = None
    choices: list[Json] | None = None
    modal: Json | None = None
    shard_id: int | None = None  # the gateway shard it was dispatched on (None: unsharded)
    acked: asyncio.Event = field(default_factory=asyncio.Event)
    content_event: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def latency(self) -> float | None:
        if self.responded_at is None:
            return None
        return self.responded_at - self.dispatched_at


class MessageSource(Protocol):
    """Where an :class:`InteractionResult` looks its messages up (the emulator); a protocol so
    that this module needs no import of the emulator (which imports it)."""

    def get_message(self, message_id: int) -> Message: ...


class InteractionResult:
    """What a simulated user action produced (see ``DiscordEmulator.slash``/``click``...)."""

    def __init__(self, emulator: MessageSource, record: InteractionRecord) -> None:
        self._emu = emulator
        self.record = record

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def type(self) -> int:
        """4 message, 5 deferred message, 6 deferred update, 7 update, 8 autocomplete, 9 modal."""
        assert self.record.response_type is not None
        return self.record.response_type

    @property
    def ephemeral(self) -> bool:
        return self.record.ephemeral

    @property
    def latency(self) -> float:
        return self.record.latency or 0.0

    @property
    def choices(self) -> list[Json] | None:
        return self.record.choices

    @property
    def modal(self) -> Json | None:
        return self.record.modal

    @property
    def message(self) -> Message | None:
        """Message for types 4/7; after a deferral the first followup or @original edit."""
        rec = self.record
        if rec.response_type in (4, 7) and rec.original_message_id is not None:
            return self._emu.get_message(rec.original_message_id)
        if rec.content_message_id is not None:
            return self._emu.get_message(rec.content_message_id)
        return None

    def followups(self) -> list[Message]:
        return [self._emu.get_message(mid) for mid in self.record.followup_ids]

    def messages(self) -> list[Message]:
        """Original response (if any) plus followups."""
        out: list[Message] = []
        rec = self.record
        if rec.original_message_id is not None and rec.response_type in (4, 5, 7):
            out.append(self._emu.get_message(rec.original_message_id))
        out.extend(m for m in self.followups() if m not in out)
        return out

    async def final(self, timeout: float = 5.0) -> Message:
        """Wait until a deferred interaction got its content; return that message."""
        rec = self.record
        if rec.response_type in (8, 9):
            raise EmulatorError(f"interaction answered with type {rec.response_type}: no message")
        message = self.message
        if message is not None:
            return message
        try:
            await asyncio.wait_for(rec.content_event.wait(), timeout)
        except TimeoutError:
            raise EmulatorError(
                f"deferred interaction {rec.id} (type {rec.response_type}) got no followup or "
                f"edit within {timeout}s"
            ) from None
        message = self.message
        assert message is not None
        return message

    def __repr__(self) -> str:
        return (
            f"<InteractionResult id={self.record.id} type={self.record.response_type} "
            f"ephemeral={self.ephemeral} latency={self.latency:.3f}s>"
        )
