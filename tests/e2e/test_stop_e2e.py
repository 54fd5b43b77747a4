"""Stopping: SIGTERM (what Docker sends, 10 s before SIGKILL) and SIGINT (Ctrl-C) to the bot as
its own process, with moves in flight. The moves that reached the bot are finished and answered,
the outbox is sent, the store is closed, and the process exits 0."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import pytest

from emulator import DiscordEmulator, InteractionResult
from tests.e2e.crashes import waiting_for
from tests.e2e.harness import (
    bot_process_env,
    controls,
    ephemeral_text,
    open_game,
    press,
    start_bot_process,
    world,
)

TABLES = 4
# Generous: a stop that does not end by then hangs (Docker would kill it at 10 s). Not a
# measure of speed: a loaded machine may take longer than usual, never this long.
EXIT_TIMEOUT = 60.0


def read(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_stop_signal_finishes_moves_sends_posts_closes_the_store_and_exits_0(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """Issue: after SIGINT the bot did not exit within 20 s in 5 of 7 stops (two aiosqlite
    threads alive); SIGTERM killed it at once, in the middle of whatever it did."""
    db = tmp_path / "cafebot.sqlite3"
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        users = [emu.add_user(f"Player{i}", guild=guild) for i in range(3)]
        names = {f"Player{i}": u for i, u in enumerate(users)}
        channels = [emu.add_text_channel(guild, f"table-{i}") for i in range(TABLES)]
        env = bot_process_env(
            emu,
            guild,
            CAFEBOT_DATABASE_PATH=str(db),
            # Posts wait for later moves' (a hold) and edits are spaced, as by default: the
            # stop must not leave those behind.
            CAFEBOT_POST_COALESCE_INTERVAL="3",
            CAFEBOT_TABLE_EDIT_INTERVAL="1",
        )
        process = await start_bot_process(
            env, tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        try:
            await emu.wait_for_bot_ready(timeout=EXIT_TIMEOUT)
            tables = []
            host, *others = users
            for channel in channels:
                table = await (
                    await emu.slash(host, channel, "game new", {"game": "monster-cafe"})
                ).final()
                for user in others:
                    await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
                await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
                tables.append(table.id)
            # In every game the first player plays a turn (draw, seat: its post says whose
            # turn it is) and the second draws; then the moves that end their turns are
            # played in every game at once (their posts wait for later moves' posts to share
            # a message, the session having posted a moment ago): the first half's clicks are
            # on their way when the second half's are sent, and the signal follows at once.
            movers = []
            for index, table_id in enumerate(tables):
                for turn in range(2):
                    message = emu.get_message(table_id)
                    user = waiting_for(message, names)
                    draw = next(
                        c for c in controls(message, index + 1, "t") if c.label.startswith("Draw")
                    )
                    assert not (await emu.click(user, table_id, draw.custom_id)).ephemeral
                    if turn == 0:
                        (seat, *_) = controls(emu.get_message(table_id), index + 1, "t")
                        assert not (await emu.click(user, table_id, seat.custom_id)).ephemeral
                movers.append(user)
            clicks = []
            dispatched = len(emu.interactions) + TABLES
            for index, table_id in enumerate(tables):
                (seat, *_) = controls(emu.get_message(table_id), index + 1, "t")
                clicks.append(
                    asyncio.create_task(emu.click(movers[index], table_id, seat.custom_id))
                )
                if index == TABLES // 2 - 1:
                    await asyncio.sleep(0.01)
            while len(emu.interactions) < dispatched:  # every click is dispatched...
                await asyncio.sleep(0)
            for _ in range(5):  # ...and written to the bot's gateway connection
                await asyncio.sleep(0)
            process.send_signal(signum)
            answers: list[InteractionResult | BaseException] = await asyncio.gather(
                *clicks, return_exceptions=True
            )
            output, _ = await asyncio.wait_for(process.communicate(), EXIT_TIMEOUT)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        text = output.decode()
        assert process.returncode == 0, text
        assert "Traceback" not in text, text
        # SQLite removes the WAL file when the last connection closes cleanly (read first:
        # reading it here opens one).
        assert not (tmp_path / "cafebot.sqlite3-wal").exists(), "the store was closed cleanly"
        for session_id, answer in enumerate(answers, start=1):
            # Every click that reached the bot is answered: the move, or "restarting".
            assert isinstance(answer, InteractionResult), answer
            moves = read(db, f"SELECT COUNT(*) FROM actions WHERE session_id = {session_id}")
            if answer.ephemeral:  # it came in after the signal: nothing was changed
                assert answer.message is not None
                assert "nothing was changed" in answer.message.current_text()
                assert moves == [(3,)]
            else:
                assert moves == [(4,)], f"game #{session_id}: an acknowledged move is stored"
        assert read(db, "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == [(0,)]
        sent = read(db, "SELECT message_id FROM outbox WHERE message_id IS NOT NULL")
        # (deleted ones too: a turn notice goes when the next one comes)
        shown = {m.id for m in emu.all_messages() if not m.ephemeral}
        assert {m for (m,) in sent} <= shown, "each post reached Discord"
        assert read(db, "PRAGMA integrity_check") == [("ok",)]


async def test_a_stop_waits_for_the_move_being_played_and_refuses_the_next_plainly(
    tmp_path: Path,
) -> None:
    """A click being handled when the stop begins (here: waiting for its session) is finished
    and acknowledged before the bot disconnects; one arriving meanwhile is answered that the
    bot is restarting, and changes nothing."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "monster-cafe")
        s = await bot.service.load(1)
        assert s.state is not None
        (current,) = s.game.active_players(s.state)
        (draw,) = [c for c in controls(w.table_message(), 1, "t") if c.label.startswith("Draw")]
        stored = len(await bot.store.actions(1))
        async with bot.service.lock(1):
            first = asyncio.create_task(press(w.emu, int(current), draw))
            await w.emu.wait_until(lambda: bool(bot._handling), timeout=EXIT_TIMEOUT)
            stop = asyncio.create_task(bot.close())
            await w.emu.wait_until(lambda: bot.stopping, timeout=EXIT_TIMEOUT)
            second = await press(w.emu, int(current), draw)
            assert "restarting — nothing was changed" in ephemeral_text(second)
            assert not stop.done(), "the stop waits for the move being played"
        answer = await first
        assert not answer.ephemeral, "the move in flight is played and acknowledged"
        await stop
        assert bot.is_closed()
    rows = read(w.db_path, "SELECT COUNT(*) FROM actions WHERE session_id = 1")
    assert rows == [(stored + 1,)]
    assert read(w.db_path, "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == [(0,)]
