"""Application commands: the application object, command sync, and building the data of a command
interaction."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from .command_validation import validate_commands
from .messages import Messages
from .models import Channel, EmulatorError
from .validation import FormErrors, Json


class ApplicationCommands(Messages):
    async def _h_application(self, request: web.Request, m: re.Match[str]) -> web.StreamResponse:
        return self._json(self._application_payload())

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
            # Discord returns the permissions as a string, whatever number type was sent.
            permissions = out.get("default_member_permissions")
            out["default_member_permissions"] = None if permissions is None else str(permissions)
            if gid is None and not out.get("integration_types"):
                out["integration_types"] = [0]  # the application's one context: guild install
            elif out.get("integration_types") is None:
                out.pop("integration_types", None)  # only global commands have them
            out.setdefault("nsfw", False)
            if gid is not None:
                out["guild_id"] = str(gid)
            stored.append(out)
        self._commands[gid] = stored
        return self._json(stored)

    def synced_commands(self, guild_id: int | None = None) -> list[Json]:
        return copy.deepcopy(self._commands.get(guild_id, []))

    def _find_command(self, name: str, guild_id: int | None, ctype: int = 1) -> Json:
        scopes: list[int | None] = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            for cmd in self._commands.get(scope, []):
                if cmd["name"] == name and int(cmd.get("type") or 1) == ctype:
                    return cmd
        synced = sorted({c["name"] for s in scopes for c in self._commands.get(s, [])})
        raise EmulatorError(f"command {name!r} was not synced (synced: {synced})")

    def _lookup_command(self, name: str, guild_id: int | None) -> Json | None:
        scopes: list[int | None] = [guild_id, None] if guild_id is not None else [None]
        scopes += [g for g in self._commands if g not in scopes]
        for scope in scopes:
            for cmd in self._commands.get(scope, []):
                if cmd["name"] == name and int(cmd.get("type") or 1) == 1:
                    return cmd
        return None

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
