"""Sending and editing messages through Discord's REST API: channel posts, DMs, edits.

Every message the bot creates outside an interaction response carries a nonce derived from what
it is (an outbox row, a player's panel of one step…); discord.py sends it with
``enforce_nonce``, so Discord answers
a repeat within a few minutes with the message already created, so a post retried after a crash
or a lost response is not shown twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any

import aiohttp
import discord
from discord.http import Route
from discord.webhook.async_ import async_context, interaction_message_response_params

from bot.adapter.callbacks import CallbackAdapter, callback_route
from bot.adapter.clicked import message_id
from bot.adapter.render import mention_line
from bot.core.keyed_locks import KeyedLocks

log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
CANNOT_DM = 50007


async def update_clicked(interaction: discord.Interaction[Any], **fields: Any) -> None:
    """``interaction.response.edit_message(**fields)`` without asking Discord to send the
    message back: discord.py always asks (``with_response``) and then parses it into a
    Message, a fifth of what answering a click costs, for a copy nobody reads. With
    attachments, use edit_message: their URLs come back in that copy."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value,
        previous_allowed_mentions=interaction._state.allowed_mentions,
        **fields,
    )
    await _callback(interaction, params.payload)
    response._response_type = discord.InteractionResponseType.message_update
    clicked = message_id(interaction)
    if clicked is not None:
        _store_view(interaction._state, fields.get("view"), clicked)


async def update_drawn(interaction: discord.Interaction[Any], data: dict[str, Any]) -> None:
    """``update_clicked`` for a message drawn straight as Discord's JSON (its ``embeds`` and
    ``components``, or a V2 message's components and flags): the same payload, no discord.py
    object built for it (nor any view to store: its controls are DynamicItems)."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    body = {"tts": False, **data}
    mentions = interaction._state.allowed_mentions
    if mentions is not None:
        body["allowed_mentions"] = mentions.to_dict()
    await _callback(interaction, {"type": 7, "data": body})
    response._response_type = discord.InteractionResponseType.message_update


async def acknowledge_click(interaction: discord.Interaction[Any]) -> None:
    """``interaction.response.defer()`` for a component (a deferred update of the clicked
    message), without asking Discord to send the interaction's answer back: discord.py asks
    (``with_response``) and parses it, for nothing here."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    if interaction.type is not discord.InteractionType.component:
        await response.defer()
        return
    await _callback(interaction, {"type": 6})
    response._response_type = discord.InteractionResponseType.deferred_message_update


async def _callback(interaction: discord.Interaction[Any], payload: Any) -> None:
    """Answer the interaction with ``payload``: straight through cafebot's callback adapter
    (its URL and body written at once), else as ``post_callback``."""
    adapter = async_context.get()
    if isinstance(adapter, CallbackAdapter) and payload is not None:
        await adapter.callback(interaction, payload)
    else:
        await post_callback(interaction, payload)


async def post_callback(interaction: discord.Interaction[Any], payload: Any) -> None:
    """Answer the interaction with ``payload`` (its type and data) through discord.py's
    webhook adapter, without asking for the message back."""
    http = interaction._state.http
    await async_context.get().request(
        callback_route(interaction),
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        payload=payload,
    )


def _store_view(state: Any, view: Any, message_id: int) -> None:
    """What discord.py does with a view once its message is sent or edited: one with items it
    must dispatch itself is kept for that message (ours are DynamicItems or none at all)."""
    if view and not view.is_finished() and view.is_dispatchable():
        state.store_view(view, message_id)


class Failure(Enum):
    """What a failed request means for what we meant to do."""

    RETRY = "retry"  # Discord or the network failed: try again later
    GONE = "gone"  # the channel is deleted or no longer ours to post in: stop trying
    MESSAGE_GONE = "message gone"  # the message was deleted: post a new one if it matters
    REFUSED = "refused"  # Discord refuses this request (bad form): retrying will not help


class ChannelGone(Exception):
    """A channel we already know is deleted or closed to the bot."""


def failure_of(exc: BaseException) -> Failure:
    if isinstance(exc, ChannelGone):
        return Failure.GONE
    if isinstance(exc, aiohttp.ClientError | OSError | asyncio.TimeoutError):
        return Failure.RETRY
    if isinstance(exc, discord.DiscordServerError):
        return Failure.RETRY
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429 or exc.status >= 500:
            return Failure.RETRY
        if exc.code == UNKNOWN_MESSAGE:
            return Failure.MESSAGE_GONE
        if exc.code in (UNKNOWN_CHANNEL, MISSING_ACCESS, MISSING_PERMISSIONS) or exc.status in (
            403,
            404,
        ):
            return Failure.GONE
        return Failure.REFUSED
    return Failure.REFUSED


def nonce(*parts: object) -> str:
    """A Discord message nonce (≤ 25 characters) naming one message we mean to create."""
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()[:25]


def drawn_message(
    data: dict[str, Any], key_nonce: str, mentions: discord.AllowedMentions | None
) -> dict[str, Any]:
    """The body discord.py's ``send_message`` posts for a new message showing ``data`` (its
    ``embeds`` and ``components``, or a V2 message's components and ``flags``), with no
    content nor files, in the same order: the same bytes go out."""
    payload: dict[str, Any] = {}
    if "embeds" in data:
        payload["embeds"] = data["embeds"]
    payload["content"] = None
    if data["components"]:  # none: the key is left out (a new message has no components)
        payload["components"] = data["components"]
    payload["nonce"] = key_nonce
    payload["enforce_nonce"] = True
    payload["tts"] = False
    if "flags" in data:
        payload["flags"] = data["flags"]
    if mentions is not None:
        payload["allowed_mentions"] = mentions.to_dict()
    payload["attachments"] = []
    return payload


@dataclass(frozen=True)
class Sent:
    """A message the bot created, as far as the bot reads Discord's answer (building a
    discord.Message from it, every component and option of it, cost more than the request)."""

    id: int
    channel_id: int
    attachments: list[dict[str, Any]]  # as discord.Attachment.to_dict() gives them

    @classmethod
    def of(cls, data: Any, state: Any) -> Sent:
        return cls(
            int(data["id"]),
            int(data["channel_id"]),
            [
                dict(discord.Attachment(data=a, state=state).to_dict())
                for a in data.get("attachments") or []
            ],
        )


class Messenger:
    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._dm_channels: dict[str, int] = {}
        # One request at a time per channel: Discord's buckets are per channel, and discord.py
        # only learns a bucket from its first answer; several games writing to one player's DM
        # at once would otherwise overrun it (a 429) before that answer arrives.
        self._channel_locks: KeyedLocks[int] = KeyedLocks()
        self._opening_dms = asyncio.Lock()

    def _lock(self, channel_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return self._channel_locks.hold(channel_id)

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id)

    async def send(self, channel_id: int, key: str, **kwargs: Any) -> Sent:
        """Post in a channel once: ``key`` names this message (see :func:`nonce`)."""
        async with self._lock(channel_id):
            return await self._create(channel_id, nonce=nonce(key), **kwargs)

    async def _create(self, channel_id: int, **kwargs: Any) -> Sent:
        """What Messageable.send does with the arguments we give it, without building a
        discord.Message from the answer."""
        for name in ("file", "files", "embed", "embeds"):
            if name in kwargs and kwargs[name] is None:
                del kwargs[name]  # send() takes None for "none"
        content = kwargs.pop("content", None)
        view = kwargs.get("view")
        state: Any = self.client._connection
        with discord.http.handle_message_parameters(
            content=str(content) if content is not None else None,
            previous_allowed_mentions=state.allowed_mentions,
            **kwargs,
        ) as params:
            data = await self.client.http.send_message(channel_id, params=params)
        _store_view(state, view, int(data["id"]))
        return Sent.of(data, state)

    async def edit(
        self,
        channel_id: int,
        message_id: int,
        *,
        embeds: list[discord.Embed] | None,
        view: discord.ui.View | discord.ui.LayoutView | None,
        attachments: list[Any] | None = None,
    ) -> dict[str, Any]:
        """Edit through discord.py's HTTP layer: the same request as Message.edit, without
        building a Message (and every component in it) from the response. ``embeds`` None:
        a Components V2 message (no embeds); ``attachments`` None: leave them as they are."""
        params = discord.http.handle_message_parameters(
            embeds=embeds if embeds is not None else discord.utils.MISSING,
            view=view,
            attachments=attachments if attachments is not None else discord.utils.MISSING,
        )
        async with self._lock(channel_id):
            with params:
                data: Any = await self.client.http.edit_message(
                    channel_id, message_id, params=params
                )
        return dict(data)

    async def edit_text(
        self, channel_id: int, message_id: int, content: str, embeds: list[discord.Embed]
    ) -> None:
        """Replace a posted message's text and embeds (nobody is pinged by an edit)."""
        params = discord.http.handle_message_parameters(content=content, embeds=embeds)
        async with self._lock(channel_id):
            with params:
                await self.client.http.edit_message(channel_id, message_id, params=params)

    async def close_controls(self, channel_id: int, message_id: int, content: str) -> None:
        """A message's buttons go (what they asked is decided); its text becomes ``content``."""
        params = discord.http.handle_message_parameters(content=content, view=None)
        async with self._lock(channel_id):
            with params:
                await self.client.http.edit_message(channel_id, message_id, params=params)

    async def delete(self, channel_id: int, message_id: int) -> None:
        async with self._lock(channel_id):
            await self.client.http.delete_message(channel_id, message_id)

    async def send_dm(self, user_id: str, key: str | None = None, **kwargs: Any) -> Sent | None:
        """DM a user (once, when ``key`` names the message); None when their DMs are closed.
        Other failures raise."""
        if key is not None:
            kwargs["nonce"] = nonce(key)
        return await self._to_dm(user_id, partial(self._create, **kwargs))

    async def send_dm_drawn(self, user_id: str, key: str, data: dict[str, Any]) -> Sent | None:
        """``send_dm`` of a message drawn straight as Discord's JSON (a private panel's
        ``data``: see render.PrivateDrawing), with no files: the same request, without
        building discord.py's embeds and view from that JSON only to turn them back into it."""
        return await self._to_dm(user_id, partial(self._create_drawn, data, nonce(key)))

    async def _to_dm(self, user_id: str, create: Callable[[int], Awaitable[Sent]]) -> Sent | None:
        """``create`` the message in the user's DM channel; None when their DMs are closed."""
        try:
            channel_id = await self._dm_channel_id(user_id)
            async with self._lock(channel_id):
                return await create(channel_id)
        except discord.Forbidden:
            return None

    async def _create_drawn(self, data: dict[str, Any], key_nonce: str, channel_id: int) -> Sent:
        """``_create`` of a message drawn as Discord's JSON (see ``drawn_message``)."""
        state: Any = self.client._connection
        payload = drawn_message(data, key_nonce, state.allowed_mentions)
        route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
        return Sent.of(await self.client.http.request(route, json=payload), state)

    async def _dm_channel_id(self, user_id: str) -> int:
        if user_id not in self._dm_channels:
            # Opening DM channels is one bucket for the whole bot: one at a time (see above).
            async with self._opening_dms:
                if user_id not in self._dm_channels:
                    data = await self.client.http.start_private_message(int(user_id))
                    self._dm_channels[user_id] = int(data["id"])
        return self._dm_channels[user_id]

    async def start_thread(self, channel_id: int, message_id: int, name: str) -> dict[str, Any]:
        """Open a public thread on a message (its id is the message's)."""
        async with self._lock(channel_id):
            data: Any = await self.client.http.start_thread_with_message(
                channel_id, message_id, name=name[:100], auto_archive_duration=10080
            )
        return dict(data)

    async def post_notice(
        self, channel_id: int, text: str, key: str, ping: list[str] | None = None
    ) -> Sent:
        content = " ".join(filter(None, [mention_line(ping or []), text]))
        return await self.send(
            channel_id,
            key,
            content=content[:2000],
            allowed_mentions=discord.AllowedMentions(users=True),
        )
