"""What simulated users do: slash commands, clicks, selects, modals, messages, and the hostile
forge_* calls."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Mapping, Sequence
from typing import Any

from .core import iso
from .interactions import Interactions
from .models import Channel, EmulatorError, InteractionResult, Message
from .validation import SELECT_TYPES, Json


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


class SimulatedUsers(Interactions):
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
                return {"type": 1, "id": comp.get("id", 0), "components": inner}
            if ctype == 18:
                inner_comp = mirror(comp["component"])
                return (
                    {"type": 18, "id": comp.get("id", 0), "component": inner_comp}
                    if inner_comp
                    else None
                )
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
                return {"type": 4, "id": comp.get("id", 0), "custom_id": custom_id, "value": value}
            if ctype in SELECT_TYPES:
                raw = values.get(str(custom_id), [])
                unused.discard(str(custom_id))
                chosen = [raw] if isinstance(raw, str) else list(raw)
                picked, _ = self._select_values(comp, chosen, ch)
                return {
                    "type": ctype,
                    "id": comp.get("id", 0),
                    "custom_id": custom_id,
                    "values": picked,
                }
            return None

        components = [c for c in (mirror(x) for x in modal.get("components") or []) if c]
        if unused:
            raise EmulatorError(f"modal has no inputs {sorted(unused)}")
        data: Json = {"custom_id": modal["custom_id"], "components": components}
        message = None
        if opened_by.record.message_id is not None:
            message = self._messages[opened_by.record.message_id]
        rec = await self._interact(5, user_id, ch, data, message=message, trigger=opened_by.record)
        return InteractionResult(self, rec)

    def post_user_message(self, user_id: int, channel_id: int, content: str) -> Message:
        """A user writes in a channel (dispatches MESSAGE_CREATE to the bot)."""
        ch = self._resolve_actor(user_id, channel_id)
        msg = Message(
            id=self.snowflake(),
            channel_id=ch.id,
            author_id=user_id,
            guild_id=ch.guild_id,
            content=content,
            timestamp=iso(self.now()),
        )
        self._store(msg)
        self._touch()
        return msg
