"""Interactions: dispatching one, its callback, and the interaction webhook (followups,
@original)."""

from __future__ import annotations

import asyncio
import copy
import re
import secrets

from aiohttp import web

from .command_validation import validate_autocomplete
from .commands import ApplicationCommands
from .components import as_discord_stores
from .core import ATTACHMENT_SIZE_LIMIT, DM_APP_PERMISSIONS, TOKEN_LIFETIME, iso
from .models import Channel, EmulatorError, InteractionRecord, Member, Message, Violation
from .validation import (
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    FormErrors,
    Json,
    validate_modal,
)


class Interactions(ApplicationCommands):
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
                    or Member(rec.user_id, guild.id, [], iso(self.now())),
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
        trigger: InteractionRecord | None = None,
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
            trigger_id=trigger.id if trigger is not None else None,
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

    def interaction(self, interaction_id: int) -> InteractionRecord:
        return self._interactions[interaction_id]

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
            as_discord_stores(rec.modal.get("components") or [], [], self.snowflake)
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
        answer: Json = {"interaction": inter}
        if rtype in (4, 7) and response_message is not None:
            # Discord's description allows a resource of type 4, 7 (with their message) or 12
            # (an activity) only: a deferral, an autocomplete or a modal creates none to return.
            answer["resource"] = {"type": rtype, "message": self._message_payload(response_message)}
        return self._json(answer)

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
