"""Clicks that reach the bot together are read one a turn (bot.adapter.gateway_reads): each
click's handling starts before the next event is parsed, instead of every event of the burst
being parsed first and every handler starting at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import discord

from tests.e2e.harness import controls, handlers_done, open_game, press, world


async def test_a_burst_of_clicks_is_handled_one_event_at_a_time(tmp_path: Path) -> None:
    async with world(tmp_path, players=4) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        started: list[int] = []  # the clicks whose handling began, by interaction id

        async def on_interaction(interaction: discord.Interaction[Any]) -> None:
            started.append(interaction.id)

        bot.add_listener(on_interaction)
        # How many clicks' handling had begun when each click's event was parsed.
        begun_at_parse: list[int] = []
        parsers: dict[str, Any] = bot._connection.parsers
        theirs = parsers["INTERACTION_CREATE"]

        def parse(data: Any) -> None:
            begun_at_parse.append(len(started))
            theirs(data)

        parsers["INTERACTION_CREATE"] = parse
        version = (await bot.service.load(1)).version
        picks = [controls(w.latest_dm(user))[0] for user in w.users]
        # Dispatched in one turn: the emulator writes the four events together, and the bot
        # receives them in one read.
        results = await asyncio.gather(
            *(press(w.emu, user, pick) for user, pick in zip(w.users, picks, strict=True))
        )
        await handlers_done()
        assert len(started) == 4
        assert begun_at_parse == [0, 1, 2, 3], "each click began before the next was read"
        for result in results:
            assert not result.ephemeral and result.type in (6, 7), "each click was answered"
        assert (await bot.service.load(1)).version == version + 4, "every move was played"
