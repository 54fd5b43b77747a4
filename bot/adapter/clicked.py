"""A click's message, parsed only when read.

A component interaction carries the whole clicked message (every embed, row, select option
and emoji); discord.py parses it into a ``Message`` as the interaction arrives (about 4 % of
the bot's CPU in a sampling profile of bench/bot.py). A click on one of our controls needs
only the message's id and whether the clicked component is on it, both read from the payload
here; the ``Message`` is built if something reads ``interaction.message`` (a refused click on
an old DM, an answer with pictures), exactly as discord.py would have built it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import discord
from discord.app_commands.installs import AppCommandContext
from discord.channel import _threaded_channel_factory
from discord.sku import Entitlement

OURS = "cb:"  # the prefix of every custom_id of cafebot's controls (bot.adapter.items)

_NO_CONTEXT = object()  # an interaction without "context"

# discord.Interaction keeps its message, channel and user in slots: read and written under our
# properties.
_SLOT: Any = discord.Interaction.__dict__["message"]
_CHANNEL: Any = discord.Interaction.__dict__["channel"]
_USER: Any = discord.Interaction.__dict__["user"]


class ClickInteraction(discord.Interaction[Any]):
    """A component interaction whose message is parsed on first read (in a DM, its channel
    and user too)."""

    def _from_data(self, data: Any) -> None:
        fields = self.__dict__
        fields["_raw_message"] = None
        fields["_raw_channel"] = None
        fields["_raw_user"] = None
        raw = data.get("message")
        if raw is None:
            super()._from_data(data)
            return
        if data.get("guild_id") is None:
            self._from_dm(data)
        else:
            rest = dict(data)
            del rest["message"]
            super()._from_data(rest)  # type: ignore[arg-type]  # the message: parsed when read
        fields["_raw_message"] = raw

    def _from_dm(self, data: Any) -> None:
        """discord.Interaction._from_data for a click outside a guild (a DM: no guild, member
        nor permissions to resolve), its channel and user kept as sent until read (a click on
        our controls reads neither: ``clicker``)."""
        state = self._state
        self.id = int(data["id"])
        self.type = discord.enums.try_enum(discord.InteractionType, data["type"])
        self.data = data.get("data")
        self.token = data["token"]
        self.version = data["version"]
        self.guild_id = None
        self.application_id = int(data["application_id"])
        self.entitlement_sku_ids = [int(x) for x in data.get("entitlement_skus", []) or []]
        self.entitlements = [Entitlement(state, x) for x in data.get("entitlements", [])]
        self.filesize_limit = data["attachment_size_limit"]
        self._integration_owners = {
            int(k): int(v) for k, v in data.get("authorizing_integration_owners", {}).items()
        }
        context = data.get("context", _NO_CONTEXT)
        self.context = (
            AppCommandContext()
            if context is _NO_CONTEXT
            else AppCommandContext._from_value([context])
        )
        self.locale = discord.enums.try_enum(discord.Locale, data.get("locale", "en-US"))
        guild_locale = data.get("guild_locale")
        self.guild_locale = (
            None
            if "guild_locale" not in data
            else discord.enums.try_enum(discord.Locale, guild_locale)
        )
        self._permissions = 0
        self._app_permissions = int(data.get("app_permissions", 0))
        _SLOT.__set__(self, None)
        _CHANNEL.__set__(self, None)
        _USER.__set__(self, discord.utils.MISSING)
        fields = self.__dict__
        fields["_raw_channel"] = data.get("channel")
        fields["_raw_user"] = data.get("user")

    @property
    def user(self) -> discord.User | discord.Member:
        raw = self.__dict__.get("_raw_user")
        if raw is not None:
            self.__dict__["_raw_user"] = None
            _USER.__set__(self, discord.User(state=self._state, data=raw))
        found: discord.User | discord.Member = _USER.__get__(self)
        return found

    @user.setter
    def user(self, value: discord.User | discord.Member) -> None:
        self.__dict__["_raw_user"] = None
        _USER.__set__(self, value)

    @property
    def channel(self) -> Any:
        raw = self.__dict__.get("_raw_channel")
        if raw is not None:
            self.__dict__["_raw_channel"] = None
            # As discord.py builds a channel outside a guild (a DM or a group DM).
            built = None
            factory, kind = _threaded_channel_factory(raw["type"])
            if factory is not None and kind in (
                discord.ChannelType.group,
                discord.ChannelType.private,
            ):
                built = factory(me=self._client.user, data=raw, state=self._state)
            _CHANNEL.__set__(self, built)
        return _CHANNEL.__get__(self)

    @channel.setter
    def channel(self, value: Any) -> None:
        self.__dict__["_raw_channel"] = None
        _CHANNEL.__set__(self, value)

    @property
    def message(self) -> discord.Message | None:
        raw = self.__dict__.get("_raw_message")
        if raw is not None:
            self.__dict__["_raw_message"] = None
            message = discord.Message(state=self._state, channel=self.channel, data=raw)
            guild = self.guild
            if guild is not None and message.guild is None:
                message.guild = guild  # as discord.py upgrades it (partial guild data)
            _SLOT.__set__(self, message)
        found: discord.Message | None = _SLOT.__get__(self)
        return found

    @message.setter
    def message(self, value: discord.Message | None) -> None:
        self.__dict__["_raw_message"] = None
        _SLOT.__set__(self, value)


def created(snowflake: int) -> float:
    """When Discord made what has this id (a snowflake says so), as wall-clock seconds:
    ``snowflake_time(id).timestamp()`` without building a datetime (asked several times a
    click)."""
    return ((snowflake >> 22) + discord.utils.DISCORD_EPOCH) / 1000


def age(interaction: discord.Interaction[Any]) -> float:
    """Seconds since Discord created the interaction, by the wall clock."""
    return time.time() - created(interaction.id)


def clicker(interaction: discord.Interaction[Any]) -> str:
    """The id of who clicked, without building their User."""
    if isinstance(interaction, ClickInteraction):
        raw = interaction.__dict__.get("_raw_user")
        if raw is not None:
            return str(raw["id"])
    return str(interaction.user.id)


def message_id(interaction: discord.Interaction[Any]) -> int | None:
    """The clicked message's id, without parsing the message."""
    raw = _unparsed(interaction)
    if raw is not None:
        return int(raw["id"])
    message = interaction.message
    return message.id if message is not None else None


def has_component(interaction: discord.Interaction[Any], custom_id: str, kind: Any) -> bool:
    """Is that component (custom_id and type) on the clicked message?"""
    raw = _unparsed(interaction)
    if raw is not None:
        return _in_payload(raw.get("components") or [], custom_id, kind)
    message = interaction.message
    return message is not None and _in_message(message, custom_id, kind)


def _unparsed(interaction: discord.Interaction[Any]) -> dict[str, Any] | None:
    """The clicked message's payload, while it is not parsed yet."""
    if isinstance(interaction, ClickInteraction):
        raw: dict[str, Any] | None = interaction.__dict__.get("_raw_message")
        return raw
    return None


def _in_payload(components: list[Any], custom_id: str, kind: Any) -> bool:
    # Depth first, as Discord nests them: rows and containers hold components, a section
    # an accessory.
    stack = list(components)
    while stack:
        component = stack.pop()
        if component.get("custom_id") == custom_id and component.get("type") == kind:
            return True
        children = component.get("components")
        if children:
            stack.extend(children)
        accessory = component.get("accessory")
        if accessory is not None:
            stack.append(accessory)
    return False


def _in_message(message: discord.Message, custom_id: str, kind: Any) -> bool:
    stack = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id and component.type.value == kind:
            return True
        children = getattr(component, "children", None)
        if children:
            stack.extend(children)
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            stack.append(accessory)
    return False


# Set in a click's extras when ``take`` handled it: the ``interaction`` event, dispatched
# only for other listeners then, is not the bot's to answer.
TAKEN = "cafebot.taken"

# Takes a click on one of our controls (the interaction, its component type and custom_id)
# and starts its handling; False: not one it knows, discord.py's way then.
Take = Callable[[ClickInteraction, int, str], bool]


def install(client: discord.Client, take: Take | None = None) -> None:
    """Clicks on our controls arrive as ClickInteractions, without parsing the message first.
    ``take`` starts their handling (one task a click); what it does not take is handed on as
    discord.py's ``parse_interaction_create`` hands it (dynamic items, then a view stored for
    the message, then the ``interaction`` event), as is a click on a message with a stored
    view. Anything else (slash commands, modals, others' components) takes discord.py's way."""
    state: Any = client._connection
    parsers: dict[str, Any] = state.parsers
    theirs = parsers["INTERACTION_CREATE"]
    listeners: dict[str, Any] = client._listeners
    extra: dict[str, Any] = getattr(client, "extra_events", {})

    def parse_interaction_create(data: Any) -> None:
        inner = data.get("data") or {}
        custom_id = inner.get("custom_id")
        if (
            data.get("type") != discord.InteractionType.component.value
            or not isinstance(custom_id, str)
            or not custom_id.startswith(OURS)
            or "message" not in data
        ):
            theirs(data)
            return
        kind = inner["component_type"]
        interaction = ClickInteraction(data=data, state=state)
        store = state._view_store
        views = store._views
        key = (kind, custom_id)
        stored = key in views.get(int(data["message"]["id"]), {}) or key in views.get(None, {})
        if not stored and take is not None and take(interaction, kind, custom_id):
            if listeners.get("interaction") or extra.get("on_interaction"):
                interaction.extras[TAKEN] = True
                state.dispatch("interaction", interaction)
            return
        store.dispatch_dynamic_items(kind, custom_id, interaction)
        if stored:
            # A view stored for the message: discord.py's own lookup (it reads the message).
            _dispatch_stored(store, kind, custom_id, interaction)
        state.dispatch("interaction", interaction)

    parsers["INTERACTION_CREATE"] = parse_interaction_create


def _dispatch_stored(store: Any, kind: int, custom_id: str, interaction: Any) -> None:
    """discord.py's ViewStore.dispatch_view past its dynamic items (already dispatched)."""
    dynamic, store._dynamic_items = store._dynamic_items, {}
    try:
        store.dispatch_view(kind, custom_id, interaction)
    finally:
        store._dynamic_items = dynamic
