"""A hard bot player in Discord: the host seats one from the lobby and it plays a whole game,
thinking in a worker process, never through its clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import world

GAME = "breakfast-vs-aliens"


async def test_a_hard_bot_seated_in_the_lobby_plays_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAFEBOT_BOT_THINK_SECONDS", "0.02")  # a short search: the test's pace
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        (host,) = w.users
        emu = w.emu
        table = await (await emu.slash(host, w.channel, "game new", {"game": GAME})).final()
        await emu.click(host, table.id, emu.get_message(table.id).button("Hard bot"))
        await w.settle()
        assert "🤖 Biscuit (hard)" in emu.get_message(table.id).current_text()
        await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
        await w.settle()
        assert "🤖 Biscuit (hard)" in emu.get_message(table.id).current_text()
        # The host lets every turn of theirs run out; the bot plays its own.
        await w.finish_by_deadlines()
        s = await bot.service.load(1)
        assert s.status == "finished"
        actions = await bot.service.store.actions(1)
        bot_moves = [a for a in actions if a.player == "bot-1"]
        assert bot_moves and all(a.source == "player" for a in bot_moves)  # never its clock
        assert bot.robots.simulations > 0  # it searched (in the worker process)
