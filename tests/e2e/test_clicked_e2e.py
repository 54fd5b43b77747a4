"""A click on one of our controls is handled without parsing the clicked message
(bot.adapter.clicked), and the message is still there, as discord.py builds it, for a
reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord

from bot.adapter.clicked import ClickInteraction, has_component, message_id
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
        # ...nor its DM channel...
        assert click.__dict__["_raw_channel"] is not None
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
        found = [
            c
            for row in message.components
            for c in getattr(row, "children", [])
            if getattr(c, "custom_id", None) == control.custom_id
        ]
        assert found, "the parsed message has the clicked control"
        assert has_component(click, control.custom_id, 3 if control.value else 2)


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
