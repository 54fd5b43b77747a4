"""A click on one of our controls is handled without parsing the clicked message
(bot.adapter.clicked), and the message is still there, as discord.py builds it, for a
reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord

from bot.adapter.clicked import ClickInteraction, clicker, has_component, message_id
from tests.e2e.harness import controls, handlers_done, open_game, press, world


async def test_a_click_is_answered_without_parsing_its_message(tmp_path: Path) -> None:
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        seen: list[discord.Interaction[Any]] = []

        async def on_interaction(interaction: discord.Interaction[Any]) -> None:
            seen.append(interaction)

        bot.add_listener(on_interaction)
        alice = w.users[0]
        menu = w.latest_dm(alice)
        control = controls(menu)[0]
        version = (await bot.service.load(1)).version
        result = await press(w.emu, alice, control)
        await handlers_done()
        assert (await bot.service.load(1)).version == version + 1, "the move was played"
        assert not result.ephemeral and result.type in (6, 7), "answered on the clicked message"
        (click,) = seen
        assert isinstance(click, ClickInteraction)
        # Handled and answered from the payload alone: the message was never parsed...
        assert click.__dict__["_raw_message"] is not None
        assert message_id(click) == menu.id
        assert has_component(click, control.custom_id, 3 if control.value else 2)
        assert not has_component(click, "cb:g:1:0:0000000000:99", 2)
        # ...nor its DM channel, nor its user...
        assert click.__dict__["_raw_channel"] is not None
        assert click.__dict__["_raw_user"] is not None
        assert clicker(click) == str(alice)
        # ...and reading it builds discord.py's Message of that payload, once.
        message = click.message
        assert message is not None and message.id == menu.id
        channel = click.channel
        assert isinstance(channel, discord.DMChannel), "built as discord.py builds a DM's"
        assert channel.id == w.emu.dm_channel_id(alice) == click.channel_id
        assert channel.recipient is not None and channel.recipient.id == alice
        assert click.__dict__["_raw_channel"] is None and click.channel is channel
        assert message.channel is channel
        assert click.__dict__["_raw_message"] is None
        assert click.message is message
        user = click.user
        assert isinstance(user, discord.User) and user.id == alice
        assert click.__dict__["_raw_user"] is None and click.user is user
        found = [
            c
            for row in message.components
            for c in getattr(row, "children", [])
            if getattr(c, "custom_id", None) == control.custom_id
        ]
        assert found, "the parsed message has the clicked control"
        assert has_component(click, control.custom_id, 3 if control.value else 2)


async def test_a_dm_click_reads_as_discord_pys_interaction(tmp_path: Path) -> None:
    """A click in a DM, read field by field without discord.py's parse, has every field
    discord.py gives the same payload."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        alice = w.users[0]
        await press(w.emu, alice, controls(w.latest_dm(alice))[0])
        await handlers_done()
        payload = w.emu._interaction_base(w.emu.interactions[-1])
        assert payload.get("guild_id") is None and "message" in payload
        ours = ClickInteraction(data=payload, state=bot._connection)
        theirs = discord.Interaction(data=payload, state=bot._connection)
        for name in (
            "id",
            "type",
            "data",
            "token",
            "version",
            "guild_id",
            "application_id",
            "entitlement_sku_ids",
            "entitlements",
            "filesize_limit",
            "_integration_owners",
            "locale",
            "guild_locale",
            "_permissions",
            "_app_permissions",
            "channel_id",
            "permissions",
            "app_permissions",
        ):
            assert getattr(ours, name) == getattr(theirs, name), name
        assert (ours.context.guild, ours.context.dm_channel, ours.context.private_channel) == (
            theirs.context.guild,
            theirs.context.dm_channel,
            theirs.context.private_channel,
        )
        assert isinstance(ours.user, discord.User)
        assert (ours.user.id, ours.user.name, ours.user.global_name) == (
            theirs.user.id,
            theirs.user.name,
            theirs.user.global_name,
        )
        assert isinstance(ours.channel, discord.DMChannel)
        assert theirs.channel is not None and ours.channel.id == theirs.channel.id
        assert ours.message is not None and theirs.message is not None
        assert ours.message.id == theirs.message.id
        assert [c.to_dict() for c in ours.message.components] == [
            c.to_dict() for c in theirs.message.components
        ]


async def test_a_slash_command_takes_discord_pys_way(tmp_path: Path) -> None:
    async with world(tmp_path, players=1) as w, w.bot_running() as bot:
        seen: list[discord.Interaction[Any]] = []

        async def on_interaction(interaction: discord.Interaction[Any]) -> None:
            seen.append(interaction)

        bot.add_listener(on_interaction)
        result = await w.emu.slash(w.users[0], w.channel, "game new", {"game": "monster-cafe"})
        await result.final()
        await handlers_done()
        (command,) = seen
        assert not isinstance(command, ClickInteraction)
        assert message_id(command) is None
