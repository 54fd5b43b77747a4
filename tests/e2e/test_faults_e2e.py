"""Faults and bad input, through Discord: nothing posted twice, nothing stuck, every interaction
answered in time, one bot process per database."""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import re
import subprocess
from pathlib import Path

import pytest

from bot.core.store import DatabaseInUse, DatabaseReadOnly
from bot.core.store.sqlite import SqliteStore
from emulator import DiscordEmulator
from games.rng import Rng
from tests.e2e.harness import (
    World,
    bot_process_env,
    controls,
    ephemeral_text,
    game_messages,
    open_game,
    press,
    start_bot_process,
    world,
)


def announcement_titles(w: World, channel: int, table_id: int | None) -> list[str]:
    """The titles of every embed of the channel's messages (one move's announcements share a
    message), the table message aside."""
    return [e["title"] for m in game_messages(w.emu, channel) if m.id != table_id for e in m.embeds]


async def test_fast_players_get_each_announcement_exactly_once(tmp_path: Path) -> None:
    """Issue: with fast players, round announcements were posted 2-3 times (a cached session
    overwrote the announced counter). Six Café Carnage tables of four, everyone clicking as
    fast as they can, all at once: every announcement of every game is posted exactly once."""
    async with world(tmp_path, players=4) as w, w.bot_running() as bot:
        channels = [w.channel] + [w.emu.add_text_channel(w.guild, f"t{i}") for i in range(5)]

        async def play(channel: int, seed: int) -> int:
            host, *others = w.users
            table = await (
                await w.emu.slash(host, channel, "game new", {"game": "cafe-carnage"})
            ).final()
            for user in others:
                await w.emu.click(user, table.id, w.emu.get_message(table.id).button("Join"))
            await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
            s = await bot.service.open_in_channel(channel)
            assert s is not None
            rng = Rng(seed=seed)
            while True:
                s = await bot.service.load(s.id)
                if s.state is None or s.outcome() is not None:
                    return s.id
                waiting = sorted(s.game.active_players(s.state))
                user = int(rng.choice(waiting))
                dms = [m for m in w.emu.dm_messages(user) if controls(m, s.id)]
                if not dms:
                    await asyncio.sleep(0.01)
                    continue
                options = controls(w.emu.get_message(dms[-1].id), s.id)
                confirm = [c for c in options if c.label.startswith("Confirm")]
                await press(
                    w.emu,
                    user,
                    confirm[0] if confirm and rng.randint(0, 2) else rng.choice(options),
                )

        sessions = await asyncio.gather(*(play(c, i) for i, c in enumerate(channels)))
        await w.settle()
        for channel, sid in zip(channels, sessions, strict=True):
            s = await bot.service.load(sid)
            assert s.state is not None
            expected = [a.title for a in s.state.announcements]
            expected.append(f"🏁 {s.game.title} — game over")  # the final message, once
            posted = announcement_titles(w, channel, s.row.table_message_id)
            assert collections.Counter(posted) == collections.Counter(expected), (posted, expected)
            posts = await bot.store.posts(sid)
            assert all(p.sent_at is not None and p.message_id for p in posts)
            shown = {m.id for m in game_messages(w.emu, channel)}
            assert {p.message_id for p in posts} <= shown, "each post is a message players see"


async def test_a_damaged_session_can_be_abandoned_and_the_channel_reused(tmp_path: Path) -> None:
    """Issue: a damaged row stuck the channel: /game abandon and /game new failed like it."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        (draw,) = [c for c in controls(table, 1, "t") if c.label.startswith("Draw")]
        s = await bot.service.load(1)
        assert s.state is not None
        (current,) = s.game.active_players(s.state)
        await press(w.emu, int(current), draw)
        await w.settle()
        log = await bot.store.actions(1)
        assert log
        await bot.store.raw_execute("UPDATE sessions SET state = '{not json' WHERE id = 1")
        bot.service.forget(1)
        refused = await w.emu.slash(w.users[1], w.channel, "game status", {})
        assert "damaged" in ephemeral_text(refused)
        ask = await w.emu.slash(w.users[0], w.channel, "game abandon", {})
        assert "Abandon this game of Monster Café (#1)?" in ephemeral_text(ask)
        assert ask.message is not None
        await w.emu.click(w.users[0], ask.message.id, ask.message.button("Yes, abandon it"))
        await w.settle()
        row = await bot.store.get_session(1)
        assert row is not None and row.status == "abandoned"
        assert row.note is not None and "damaged" in row.note
        assert await bot.store.actions(1) == log, "the log is kept for inspection"
        assert any("abandoned this game" in t for t in w.channel_texts())
        table = await (
            await w.emu.slash(w.users[1], w.channel, "game new", {"game": "cafe-carnage"})
        ).final()
        assert "Café Carnage — lobby" in table.current_text()


async def test_a_slow_move_is_acknowledged_within_discords_three_seconds(tmp_path: Path) -> None:
    """Issue: some clicks were answered after Discord's 3-second window. A click that waits
    for its session (here: held by something slow until the click is answered) is deferred in
    time, then done. The emulator keeps Discord's window on its own clock: an answer after it
    fails the click (unacknowledged) or is refused (late_ack)."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        s = await bot.service.load(1)
        assert s.state is not None
        (current,) = s.game.active_players(s.state)
        (draw,) = [c for c in controls(table, 1, "t") if c.label.startswith("Draw")]
        before = len(await bot.store.actions(1))
        async with bot.service.lock(1):
            # The move cannot run before the click is answered: only a deferral answers it.
            result = await press(w.emu, int(current), draw)
            assert len(await bot.store.actions(1)) == before
        assert result.type == 6, "deferred: the move took too long"
        late = [v for v in w.emu.violations if v.kind in ("late_ack", "unacknowledged")]
        assert not late, late
        for _ in range(100):  # the move itself goes on after the early answer
            if len(await bot.store.actions(1)) > before:
                break
            await asyncio.sleep(0.05)
        assert len(await bot.store.actions(1)) == before + 1


async def test_a_second_owner_of_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "one.sqlite3"
    first = await SqliteStore.open(path, owner=True)
    try:
        with pytest.raises(DatabaseInUse, match="another cafebot process is already running"):
            await SqliteStore.open(path, owner=True)
        reader = await SqliteStore.open(
            path
        )  # tools that only read (simulate's own file) may open it
        await reader.close()
    finally:
        await first.close()
    again = await SqliteStore.open(path, owner=True)  # the lock goes with the owner
    await again.close()


def _bot_env(emu: DiscordEmulator, db: Path, guild: int) -> dict[str, str]:
    return bot_process_env(emu, guild, CAFEBOT_DATABASE_PATH=str(db))


async def test_a_second_bot_process_on_the_same_database_stops_before_syncing(
    tmp_path: Path,
) -> None:
    """Issue: a second process on the same SQLite file ran its own scheduler and deleted the
    first one's deadlines. It is refused at start, with one clear line, exit code 2."""
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        env = _bot_env(emu, tmp_path / "shared.sqlite3", guild)
        first = await start_bot_process(
            env, tmp_path, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
        )
        try:
            await emu.wait_for_bot_ready(timeout=30)
            syncs = sum(1 for c in emu.rest_calls if c.method == "PUT" and "commands" in c.path)
            second = await start_bot_process(
                env, tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
            )
            output, _ = await asyncio.wait_for(second.communicate(), timeout=30)
            assert second.returncode == 2
            text = output.decode()
            assert "another cafebot process is already running" in text
            assert "Traceback" not in text
            assert syncs == sum(
                1 for c in emu.rest_calls if c.method == "PUT" and "commands" in c.path
            ), "the second process synced commands"
        finally:
            first.terminate()
            await asyncio.wait_for(first.wait(), timeout=20)


def make_read_only(*paths: Path) -> None:
    """Read-only even for root (who ignores file modes): the immutable attribute of ext4."""
    for path in paths:
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
            assert done.returncode == 0, f"cannot make {path} read-only: {done.stderr}"
        else:
            path.chmod(0o555 if path.is_dir() else 0o444)


def make_writable(*paths: Path) -> None:
    for path in paths:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=False)
        path.chmod(0o755 if path.is_dir() else 0o644)


async def test_a_read_only_database_stops_the_bot_with_one_clear_line(tmp_path: Path) -> None:
    """Issue: a read-only database failed with a traceback from the heartbeat (exit 1), after
    commands were synced. It is refused at start, before any sync."""
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "cafebot.sqlite3"
    store = await SqliteStore.open(db, owner=True)  # a database that exists, then made read-only
    await store.close()
    make_read_only(db)
    try:
        with pytest.raises(DatabaseReadOnly, match="cannot write to its database"):
            await SqliteStore.open(db, owner=True)
        async with DiscordEmulator() as emu:
            guild = emu.add_guild("Game Night")
            process = await start_bot_process(
                _bot_env(emu, db, guild),
                tmp_path,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            output, _ = await asyncio.wait_for(process.communicate(), timeout=30)
            text = output.decode()
            assert process.returncode == 2, text
            assert "cafebot cannot write to its database" in text
            assert "Traceback" not in text
            assert not any(c.method == "PUT" and "commands" in c.path for c in emu.rest_calls)
    finally:
        make_writable(db)


async def test_a_deleted_channel_does_not_stop_the_game_by_dm(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue: after the channel was deleted, the failing table edit aborted the whole sync:
    no player got the next round's DM, and every sync logged a traceback."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        w.emu.delete_channel(w.channel)
        before = {u: len(w.emu.dm_messages(u)) for u in w.users}
        rng = Rng(seed=3)
        s = await bot.service.load(1)
        assert s.state is not None
        for user in w.users:
            while str(user) in s.game.active_players(s.state):
                options = controls(w.latest_dm(user), 1)
                confirm = [c for c in options if c.label.startswith("Confirm")]
                await press(w.emu, user, confirm[0] if confirm else rng.choice(options))
                await w.settle()
                s = await bot.service.load(1)
                assert s.state is not None
        assert s.state.round == 2
        for user in w.users:
            assert len(w.emu.dm_messages(user)) > before[user], "round 2's menu came by DM"
        tracebacks = [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]
        assert tracebacks == [], [r.getMessage() for r in tracebacks]
        posts = await bot.store.posts(1)
        assert posts and all(p.sent_at is not None for p in posts), "nothing left retrying"


async def test_announcements_survive_5xx_and_lost_answers_and_post_once(tmp_path: Path) -> None:
    """Issue: 5xx on channel posts lost announcements (nothing retried). Every post to the
    channel fails for a while (503), then one succeeds at Discord but its answer is lost (the
    retry must not post it twice): each announcement is still posted exactly once."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        # The game posts in its thread (opened on the table message, with the same id).
        posting = re.compile(rf"/channels/({w.channel}|{table.id})/messages$")
        outage = w.emu.inject_fault("POST", posting, status=503, times=None)
        s = await bot.service.load(1)
        assert s.state is not None
        rng = Rng(seed=5)
        while s.state.round == 1:  # a round of moves while the channel refuses every post
            (current,) = s.game.active_players(s.state)
            table = w.table_message()
            await press(w.emu, int(current), rng.choice(controls(table, 1, "t")))
            await w.settle()
            s = await bot.service.load(1)
            assert s.state is not None
        unsent = [p for p in await bot.store.posts(1) if p.sent_at is None]
        assert unsent, "the round's notices wait in the outbox"
        assert max(p.attempts for p in unsent) >= 1
        outage.remove()
        w.emu.inject_fault("POST", posting, status=500, processed=True, times=1)
        for _ in range(200):  # the outbox retries with backoff (1 s, 2 s, ...)
            if all(p.sent_at is not None for p in await bot.store.posts(1)):
                break
            await asyncio.sleep(0.1)
        posts = await bot.store.posts(1)
        assert all(p.sent_at is not None and p.message_id for p in posts)
        expected = [a.title for a in s.state.announcements]
        posted = announcement_titles(w, w.channel, s.row.table_message_id)
        assert collections.Counter(posted) == collections.Counter(expected)
        assert w.emu.nonce_duplicates, "the lost answer's retry was deduplicated by its nonce"
