"""Clicks that reach the bot together are read a few a turn (bot.adapter.gateway_reads): the
first clicks' handling starts before the next events are parsed, instead of every event of the
burst being parsed first and every handler starting at once."""

from __future__ import annotations

import asyncio
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp.client_ws
import discord
import pytest

from bot.adapter.gateway_reads import AT_ONCE
from tests.e2e.harness import (
    Control,
    World,
    controls,
    handlers_done,
    open_game,
    press,
    world,
)


async def test_a_burst_of_clicks_is_handled_one_event_at_a_time(tmp_path: Path) -> None:
    async with world(tmp_path, players=4) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        started: list[int] = []  # the clicks whose handling began, by interaction id

        async def on_interaction(interaction: discord.Interaction[Any]) -> None:
            started.append(interaction.id)

        bot.add_listener(on_interaction)
        # How many clicks' handling had begun when each click's event was parsed.
        begun_at_parse = counted_at_parse(bot, lambda: len(started))
        await burst_of_twelve_picks(w, bot)
        assert len(started) == 12 > AT_ONCE
        # The first AT_ONCE read in one turn, then the loop turned: their handling began
        # before the rest were read (without the turn, every click: 0).
        assert begun_at_parse == [0] * AT_ONCE + [AT_ONCE] * (12 - AT_ONCE)


async def test_an_event_already_queued_is_read_without_a_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py reads every gateway message under its heartbeat timeout (a timer armed on
    the loop's heap and cancelled): only a read that may wait arms it."""
    async with world(tmp_path, players=4) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        armed: list[float | None] = []  # the bot's websocket reads' timeouts
        timeouts: Any = aiohttp.client_ws.async_timeout  # (asyncio, or async_timeout)

        def timeout(delay: float | None) -> Any:
            armed.append(delay)
            return timeouts.timeout(delay)

        monkeypatch.setattr(
            aiohttp.client_ws, "async_timeout", types.SimpleNamespace(timeout=timeout)
        )
        parsed = counted_at_parse(bot, lambda: len(armed))
        await burst_of_twelve_picks(w, bot)
        # The burst's first read was waiting already (its timeout armed before the count);
        # the next eleven found their event queued: no timeout armed for them (discord.py's
        # reads: one each, [0, 1, 2, …, 10, 11]).
        assert parsed == [0] * 12
        # The read after the burst waits for the socket: under the heartbeat's timeout.
        assert armed and all(delay for delay in armed)


def counted_at_parse(bot: Any, count: Callable[[], int]) -> list[int]:
    """``count()`` at each click's parse, in order (the bot's INTERACTION_CREATE parser wrapped)."""
    at_parse: list[int] = []
    parsers: dict[str, Any] = bot._connection.parsers
    theirs = parsers["INTERACTION_CREATE"]

    def parse(data: Any) -> None:
        at_parse.append(count())
        theirs(data)

    parsers["INTERACTION_CREATE"] = parse
    return at_parse


async def burst_of_twelve_picks(w: World, bot: Any) -> None:
    """Three picks each (a dish of three courses), twelve clicks in all, dispatched in one
    turn: the emulator writes the twelve events together, the bot receives them at once.
    Each is answered and played."""
    version = (await bot.service.load(1)).version
    picks = [(user, pick) for user in w.users for pick in first_of_rows(w, user)[:3]]
    assert len(picks) == 12
    results = await asyncio.gather(*(press(w.emu, user, pick) for user, pick in picks))
    await handlers_done()
    for result in results:
        assert not result.ephemeral and result.type in (6, 7), "each click was answered"
    assert (await bot.service.load(1)).version == version + 12, "every move was played"


def first_of_rows(w: World, user: int) -> list[Control]:
    """The first control of each row of the player's menu (a course each, then the card)."""
    menu = w.latest_dm(user)
    mine = controls(menu)
    rows = []
    for row in menu.all_components():
        ids = {str(c.get("custom_id")) for c in row.get("components") or []}
        first = next((c for c in mine if c.custom_id in ids), None)
        if first is not None:
            rows.append(first)
    return rows
