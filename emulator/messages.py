"""Messages: creating, editing and deleting them (REST and gateway events), nonces, history, and
what tests read back."""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from .attachments import Attachments
from .components import as_discord_stores
from .core import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGES,
    INTENT_MESSAGE_CONTENT,
    NONCE_LIFETIME,
    NONCE_MAX,
    Upload,
    iso,
)
from .jsondata import json_copy
from .models import (
    PERM_MANAGE_MESSAGES,
    PERM_SEND_MESSAGES,
    PERM_SEND_MESSAGES_IN_THREADS,
    PERM_VIEW_CHANNEL,
    Channel,
    InteractionRecord,
    Message,
)
from .validation import (
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    FormErrors,
    Json,
    iter_components,
    validate_message,
    validate_sent_flags,
)


class Messages(Attachments):
    def _new_message(
        self,
        request: web.Request,
        channel: Channel,
        payload: Json,
        uploads: list[Upload],
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
            components=as_discord_stores(
                json_copy(candidate["components"]), attachments, self.snowflake
            ),
            flags=flags,
            attachments=attachments,
            files=files,
            ephemeral_to=ephemeral_to,
            timestamp=iso(self.now()),
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
        uploads: list[Upload],
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
        msg.components = as_discord_stores(json_copy(components), attachments, self.snowflake)
        msg.flags = new_flags
        msg.attachments = attachments
        msg.files = files
        msg.edited_timestamp = iso(self.now())
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
