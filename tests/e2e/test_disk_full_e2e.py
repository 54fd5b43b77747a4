"""A full disk, through Discord: moves are refused with a clear private answer and nothing
changed, the log gets one warning per episode (no traceback), and play goes on once there is
room again, without a restart.

The disk is filled the way SQLite sees it: ``PRAGMA max_page_count`` at the database's size, on
the bot's own connection, makes every write that needs a new page fail with SQLITE_FULL
("database or disk is full"), the error a real full disk gives.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.app import CafeBot
from tests.e2e.harness import World, controls, open_game, press, world

FULL = "I can't save moves right now — nothing was changed"


async def fill_disk(bot: CafeBot) -> None:
    await bot.store.raw_execute("PRAGMA max_page_count = 1")  # clamped to the size it has


async def free_disk(bot: CafeBot) -> None:
    await bot.store.raw_execute("PRAGMA max_page_count = 1073741823")


async def click_until_refused(w: World, bot: CafeBot, limit: int = 80) -> tuple[int, str]:
    """The current player clicks the table's first control until a click is refused; returns
    how many moves were made before, and the refusal."""
    for moves in range(limit):
        s = await bot.service.load(1)
        assert s.state is not None
        (current,) = s.game.active_players(s.state)
        options = controls(w.table_message(), 1, "t")
        answer = await press(w.emu, int(current), options[0])
        if answer.ephemeral:
            assert answer.message is not None
            return moves, answer.message.current_text()
        await w.settle()
    raise AssertionError(f"no move refused in {limit} clicks")


async def test_a_full_disk_refuses_moves_plainly_warns_once_per_episode_and_recovers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue: no move was lost, but the log got 682 tracebacks and players the generic
    "something went wrong"."""
    caplog.set_level(logging.INFO)
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "monster-cafe")
        for episode in (1, 2):
            await fill_disk(bot)
            _, refusal = await click_until_refused(w, bot)
            assert FULL in refusal, refusal
            stored = await bot.store.actions(1)
            state = (await bot.service.load(1)).state
            for _ in range(3):  # still full: refused each time, nothing changed
                again = await click_until_refused(w, bot, limit=1)
                assert again == (0, refusal)
            w.clock.advance(7)  # the timers' loop runs on the full disk (its heartbeat is due)
            await bot.scheduler.tick()
            assert await bot.store.actions(1) == stored
            assert (await bot.service.load(1)).state == state
            await free_disk(bot)
            s = await bot.service.load(1)
            assert s.state is not None
            (current,) = s.game.active_players(s.state)
            answer = await press(w.emu, int(current), controls(w.table_message(), 1, "t")[0])
            assert not answer.ephemeral, "room again: the move is played, no restart needed"
            await w.settle()
            assert len(await bot.store.actions(1)) == len(stored) + 1
            warnings = [
                r
                for r in caplog.records
                if r.levelno == logging.WARNING and "disk is full" in r.message
            ]
            assert len(warnings) == episode, [r.message for r in warnings]
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not problems, [r.message for r in problems]


async def test_a_deadline_due_on_a_full_disk_is_played_once_there_is_room(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A deadline that falls due while the disk is full waits (its game is not taken for a
    broken one), and is played by the timers' loop once there is room."""
    caplog.set_level(logging.INFO)
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "monster-cafe")
        await fill_disk(bot)
        await click_until_refused(w, bot)
        deadline = await bot.service.deadline(1)
        assert deadline is not None
        w.clock.advance(deadline.due_at - w.clock() + 1)
        played = len(await bot.store.actions(1))
        await bot.scheduler.tick()
        if len(await bot.store.actions(1)) == played:  # refused for space: still to be played
            assert [t.kind for t in await bot.store.timers(1)] == ["deadline"]
            await free_disk(bot)
            await bot.scheduler.tick()
        await w.settle()
        assert (await bot.store.actions(1))[-1].source == "timeout"
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not problems, [r.message for r in problems]
