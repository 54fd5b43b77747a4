"""Discord's JSON objects as the emulator serves them: users, roles, members, channels, guilds,
messages, the application."""

from __future__ import annotations

import copy
import hashlib

from .core import EmulatorCore
from .jsondata import json_copy
from .models import CHANNEL_DM, Channel, Guild, InteractionRecord, Member, Message, Role
from .validation import Json


class Payloads(EmulatorCore):
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
            "primary_guild": None,  # required by the description, null when none is chosen
            "bot": user.bot,
        }
        return payload

    def _me_payload(self) -> Json:
        """The bot's own user as ``GET /users/@me`` and READY give it (with the private fields
        an account's owner sees: ``locale`` and ``mfa_enabled`` are required there)."""
        payload = self._user_payload(self.bot_user_id)
        payload.update(verified=True, mfa_enabled=False, email=None, locale="en-US")
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
                    "auto_archive_duration": ch.auto_archive_duration,
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
            "region": "deprecated",
            "home_header": None,
            "widget_channel_id": None,
            "max_presences": None,
            "max_stage_video_channel_users": 50,
            "nsfw": False,
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
            "flags_new": "0",
            "role_connections_verification_url": None,
            "approximate_user_install_count": 0,
            "approximate_user_authorization_count": 0,
            "explicit_content_filter": 0,  # inherit the guild's setting
            "eligible_oauth2_scopes": ["applications.commands", "bot"],
        }

    def _integration_owners(self, guild_id: int | None) -> Json:
        return {"0": str(guild_id) if guild_id is not None else "0"}

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
        if rec.type == 5:
            # A modal submit names the interaction that opened the modal, not a message.
            trigger = self._interactions.get(rec.trigger_id or 0)
            if trigger is not None:
                meta["triggering_interaction_metadata"] = self._interaction_metadata(trigger)
        elif rec.message_id is not None:
            meta["interacted_message_id"] = str(rec.message_id)
        return meta
