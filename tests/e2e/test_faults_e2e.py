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
from typing import Any

import pytest

from bot.core.store import DatabaseInUse, DatabaseReadOnly
from bot.core.store.sqlite import SqliteStore
from emulator import DiscordEmulator, EmulatorError, RestCall
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


@pytest.mark.heavy
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


@pytest.mark.expect_errors(r"#1\b.*damaged", r"#2\b")  # each logged once: the test counts them
async def test_a_damaged_session_is_logged_once_and_blocks_no_other_timer(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue: a damaged session logged an ERROR traceback at its deadlines; one whose default
    move crashes (its state loads, but names a card no game has) failed the whole timer loop
    every 5 s, for ever, and held up every later deadline of every other game. Each is logged
    once (the unreadable one without a traceback), and the healthy game's deadline is played."""
    caplog.set_level(logging.INFO)
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        channels = [w.channel] + [w.emu.add_text_channel(w.guild, f"t{i}") for i in range(2)]
        host, *others = w.users
        for channel in channels:
            lobby = await (
                await w.emu.slash(host, channel, "game new", {"game": "monster-cafe"})
            ).final()
            for user in others:
                await w.emu.click(user, lobby.id, w.emu.get_message(lobby.id).button("Join"))
            await w.emu.click(host, lobby.id, w.emu.get_message(lobby.id).button("Start"))
        await w.settle()
        await bot.store.raw_execute("UPDATE sessions SET state = '{not json' WHERE id = 1")
        await bot.store.raw_execute(
            "UPDATE sessions SET state = json_set(state, '$.deck', json('[\"X99\", \"X98\"]')) "
            "WHERE id = 2"
        )
        bot.service.forget(1)
        bot.service.forget(2)
        healthy = await bot.service.deadline(3)
        assert healthy is not None
        for _ in range(4):  # the deadlines fall due, and the scheduler comes back to them
            w.clock.advance(healthy.due_at - w.clock() + 60)
            await w.fire_timers()
        assert [a.source for a in await bot.store.actions(3)][-1] == "timeout"
    about = {
        sid: [r for r in caplog.records if r.levelno >= logging.WARNING and f"#{sid}" in r.message]
        for sid in (1, 2)
    }
    assert [r.levelname for r in about[1]] == ["ERROR"], about[1]
    assert about[1][0].exc_info is None, "an unreadable session needs no traceback"
    assert "damaged" in about[1][0].message
    assert [r.levelname for r in about[2]] == ["ERROR"], about[2]
    assert "X99" in about[2][0].message or about[2][0].exc_info is not None
    loop = [r for r in caplog.records if "timer loop failed" in r.message]
    assert not loop, "one game's failure is not the timer loop's"


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
        returncode, text, calls = await _run_bot_until_it_exits(db, tmp_path, timeout=30)
        assert returncode == 2, text
        assert "cafebot cannot write to its database" in text
        assert "Traceback" not in text
        assert not any(c.method == "PUT" and "commands" in c.path for c in calls)
    finally:
        make_writable(db)


async def _run_bot_until_it_exits(
    db: Path, tmp_path: Path, timeout: float
) -> tuple[int | None, str, list[RestCall]]:
    """A bot process on ``db`` against a fresh emulator, until it exits: its exit code, what it
    printed, and the REST calls it made."""
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        process = await start_bot_process(
            _bot_env(emu, db, guild),
            tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        output, _ = await asyncio.wait_for(process.communicate(), timeout=timeout)
        return process.returncode, output.decode(), list(emu.rest_calls)


async def test_a_read_only_database_is_named_so_not_as_a_lock_file_problem(
    tmp_path: Path,
) -> None:
    """Issue: a database the process may not write (0444, run as another user, whose lock file
    it may not open either) was reported as "Permission denied" on the lock file. Both ways
    (its lock file there, or none and a folder it may not write) it is named read-only, exit 2,
    no traceback."""
    for with_lock in (True, False):
        folder = tmp_path / f"ro-{with_lock}"
        folder.mkdir()
        db = folder / "cafebot.sqlite3"
        store = await SqliteStore.open(db, owner=with_lock)
        await store.close()
        lock = folder / "cafebot.sqlite3.lock"
        assert lock.exists() == with_lock
        locked = [db, lock, folder] if with_lock else [db, folder]
        make_read_only(*locked)
        try:
            with pytest.raises(DatabaseReadOnly, match="this database is read-only"):
                await SqliteStore.open(db, owner=True)
            returncode, text, _ = await _run_bot_until_it_exits(db, tmp_path, timeout=60)
            assert returncode == 2, text
            assert "this database is read-only" in text and str(db) in text
            assert "lock file" not in text and "Traceback" not in text
        finally:
            make_writable(*locked)


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
        # Every other announcement once; of the turn notices the newest is left while the game
        # goes on (one on its own goes when the next comes, one told with its move stays).
        turns = [a.title for a in s.state.announcements if a.kind == "turn"]
        expected = [a.title for a in s.state.announcements if a.kind != "turn"]
        posted = announcement_titles(w, w.channel, s.row.table_message_id)
        assert collections.Counter(t for t in posted if t not in turns) == collections.Counter(
            expected
        )
        assert len([t for t in posted if t in turns]) <= len(turns), "none posted twice"
        if turns and s.game.outcome(s.state) is None:
            assert turns[-1] in posted
        assert w.emu.nonce_duplicates, "the lost answer's retry was deduplicated by its nonce"


async def test_a_deleted_channel_does_not_hold_back_the_next_steps_dms(tmp_path: Path) -> None:
    """Issue: after the game's channel was deleted, the next step's DMs reached 1 of 3 players
    at once: the others waited for the step's posts (a quick game holds them a moment so that
    later moves join them), which can never go. With the channel gone, nothing waits for it:
    once the sync worker is done (its delayed passes not waited for), every player has each
    next round's DM."""
    async with world(tmp_path, players=3) as w:
        # As deployed: posts wait for later moves to join them, edits are spaced.
        w.post_coalesce_interval = 3.0
        w.table_edit_interval = 1.0
        async with w.bot_running() as bot:
            await open_game(w, "cafe-carnage")
            w.emu.delete_channel(w.channel)
            rng = Rng(seed=3)
            s = await bot.service.load(1)
            assert s.state is not None
            while s.state.round < 4:  # three rounds of steps, each new step by DM
                for user in [int(p) for p in s.game.active_players(s.state)]:
                    # The step's DM is there once the worker is done: nothing waits.
                    options = controls(w.emu.dm_messages(user)[-1], 1)
                    assert options, f"round {s.state.round}: no DM to play in at once"
                    confirm = [c for c in options if c.label.startswith("Confirm")]
                    await press(w.emu, user, confirm[0] if confirm else rng.choice(options))
                    await bot.tables.idle(delayed=False)
                    s = await bot.service.load(1)
                    assert s.state is not None
                    break
            await w.settle()


async def test_a_failed_callback_is_tried_again_inside_discords_window(tmp_path: Path) -> None:
    """Issue: a 5xx on an interaction's callback was tried again after 1 s, then 3 s more:
    past Discord's 3 s window, refused (10062), the click never answered. Now the retries come
    a moment apart, inside the window: a callback failing twice is answered by the third try."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, _ = w.users
        new = await w.emu.slash(alice, w.channel, "game new", {"game": "cafe-carnage"})
        table = await new.final()
        w.emu.inject_fault("POST", "/callback", status=500, times=2)
        result = await w.emu.click(bob, table.id, table.button("Join"))
        assert result.type == 7, "answered by updating the lobby"
        assert [f.status for f in w.emu.faults_injected if f.path.endswith("/callback")] == [
            500,
            500,
        ]
        assert (await bot.service.load(1)).player(str(bob)) is not None
        assert "Bob" in w.emu.get_message(table.id).current_text()


async def test_a_callback_lost_past_the_window_is_answered_through_the_webhook(
    tmp_path: Path,
) -> None:
    """The window closes while a failed callback's answer travels back (a 502 for a callback
    Discord had taken): instead of trying the callback again (refused, and the click answered
    with an apology on top), the click's answer goes through the interaction's webhook (valid
    15 minutes): the lobby shows the new player, and nothing else is said."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, _ = w.users
        new = await w.emu.slash(alice, w.channel, "game new", {"game": "cafe-carnage"})
        table = await new.final()
        lost = w.emu.inject_fault("POST", "/callback", status=502, processed=True, times=1)
        moved: list[bool] = []

        def window_closes() -> None:  # on the emulator's and the bot's clocks, no waiting
            if lost.hits and not moved:
                moved.append(True)
                w.emu.advance_clock(3.5)
                w.clock.advance(3.5)

        stop = w.emu.on_change(window_closes)
        try:
            result = await w.emu.click(bob, table.id, table.button("Join"))
            await w.settle()
        finally:
            stop()
        assert moved, "the callback failed as the window closed"
        assert result.type == 7
        assert (await bot.service.load(1)).player(str(bob)) is not None
        lobby = w.emu.get_message(table.id)
        assert "Bob" in lobby.current_text()
        webhook = [c for c in w.emu.rest_calls if c.path.endswith("/messages/@original")]
        assert webhook, "answered through the interaction's webhook"
        callbacks = [c for c in w.emu.rest_calls if f"/interactions/{result.record.id}/" in c.path]
        assert len(callbacks) == 1, "the callback was not tried again past the window"
        assert result.followups() == [], "no apology on top"


async def test_a_deleted_thread_sends_the_play_by_play_to_the_channel(tmp_path: Path) -> None:
    """A game's thread deleted (not its channel): the play-by-play goes on in the channel, and
    the table message, in the channel, keeps being updated."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        thread = table.id  # a thread opened on a message has the message's id
        assert thread in w.emu.channels, "the game opened its thread"
        w.emu.delete_channel(thread)
        thread_gone_at = max(p.sent_at or 0 for p in await bot.store.posts(1))
        s = await bot.service.load(1)
        assert s.state is not None
        rng = Rng(seed=5)
        while s.state.round == 1:
            (current,) = s.game.active_players(s.state)
            await press(w.emu, int(current), rng.choice(controls(w.table_message(), 1, "t")))
            await w.settle()
            s = await bot.service.load(1)
            assert s.state is not None
        posted = [m for m in w.emu.channel_messages(w.channel) if m.id != table.id]
        assert posted, "the round's announcements are in the channel"
        posts = await bot.store.posts(1)
        assert all(p.message_id is not None for p in posts if p.sent_at > thread_gone_at), [
            (p.id, p.failure) for p in posts
        ]
        assert "round 2" in w.table_message().current_text().lower()


async def test_a_click_discord_never_took_is_not_tried_again_past_the_window(
    tmp_path: Path,
) -> None:
    """Every try of a click's callback fails until Discord's window closes, and Discord never
    took one: the click cannot be answered any more. The bot asks the interaction's webhook
    once (it would have worked had Discord taken the callback), then tries nothing else on
    that interaction (each try past the window is one more refused request); the join is
    stored and the lobby message shows it."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, _ = w.users
        new = await w.emu.slash(alice, w.channel, "game new", {"game": "cafe-carnage"})
        table = await new.final()
        down = w.emu.inject_fault("POST", "/callback", status=500, times=None)
        moved: list[bool] = []

        def window_closes() -> None:
            if down.hits and not moved:
                moved.append(True)
                w.emu.advance_clock(3.5)
                w.clock.advance(3.5)

        stop = w.emu.on_change(window_closes)
        try:
            with pytest.raises(EmulatorError, match="not acknowledged"):
                await w.emu.click(bob, table.id, table.button("Join"))
            await w.settle()
        finally:
            stop()
            down.remove()
        click = w.emu.interactions[-1]
        tries = [
            c.path for c in w.emu.rest_calls if str(click.id) in c.path or click.token in c.path
        ]
        assert len([p for p in tries if p.endswith("/callback")]) == 1, tries
        assert len([p for p in tries if p.endswith("/messages/@original")]) == 1, tries
        assert len(tries) == 2, tries
        assert (await bot.service.load(1)).player(str(bob)) is not None
        assert "Bob" in w.emu.get_message(table.id).current_text(), "the sync showed the join"
        # What the emulator saw as wrong: the unanswered click, and the webhook asked before
        # any answer (Discord's 10015); nothing else.
        kinds = sorted(v.kind for v in w.emu.violations)
        assert kinds == ["followup_before_ack", "unacknowledged"], w.emu.violations
        w.emu.violations.clear()


async def test_a_click_answered_past_discords_window_is_a_warning_not_a_bug(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A click or command whose answer reaches Discord after its 3 s window (the machine
    stalled) is refused with 10062 Unknown interaction: nothing can answer it any more. That is
    logged as a warning (no "unexpected error", no apology or "done" note tried on a dead
    interaction), and what the click did is kept and shown by the table sync. Before, the join
    was answered twice (both refused) and a command's refused answer was an ERROR."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, _ = w.users
        new = await w.emu.slash(alice, w.channel, "game new", {"game": "cafe-carnage"})
        table = await new.final()
        w.emu.ack_deadline = 0.0  # every answer arrives too late
        with caplog.at_level(logging.WARNING):
            with pytest.raises(EmulatorError, match="not acknowledged"):
                await w.emu.click(bob, table.id, table.button("Join"))
            click = w.emu.interactions[-1]

            def tries() -> list[str]:
                paths = [c.path for c in w.emu.rest_calls]
                return [p for p in paths if str(click.id) in p or click.token in p]

            await w.emu.wait_until(tries, timeout=10)
            await w.settle()
            assert [p.rsplit("/", 1)[-1] for p in tries()] == ["callback"], tries()
            with pytest.raises(EmulatorError, match="not acknowledged"):
                await w.emu.slash(bob, w.channel, "game help")
            click = w.emu.interactions[-1]
            await w.emu.wait_until(tries, timeout=10)
            await w.settle()
            assert [p.rsplit("/", 1)[-1] for p in tries()] == ["callback"], tries()
        w.emu.ack_deadline = 3.0
        expired = [r for r in caplog.records if "expired before" in r.getMessage()]
        assert len(expired) == 2, caplog.text
        assert (await bot.service.load(1)).player(str(bob)) is not None
        assert "Bob" in w.emu.get_message(table.id).current_text(), "the sync showed the join"
        kinds = sorted({v.kind for v in w.emu.violations})
        assert kinds == ["late_ack", "unacknowledged"], w.emu.violations
        w.emu.violations.clear()


async def test_a_start_committed_while_the_worker_reads_the_lobby_still_deals_by_dm(
    tmp_path: Path,
) -> None:
    """Issue: under load, one table of bench/bot.py now and then never got its hands. The sync
    worker read the lobby from the database (a slow read) while the host's Start committed;
    the read then cached the lobby over the start, and every later load served it: the start's
    announcement went to the channel and no hand was DMed. Here the worker's read is held until
    the Start is answered: every player still gets their hand, with its controls, by DM."""
    async with world(tmp_path, players=4) as w, w.bot_running() as bot:
        host, *others = w.users
        table = await (
            await w.emu.slash(host, w.channel, "game new", {"game": "cafe-carnage"})
        ).final()
        for user in others:
            await w.emu.click(user, table.id, w.emu.get_message(table.id).button("Join"))
        await w.settle()
        store: Any = bot.service.store
        read = store.get_session
        started, reading = asyncio.Event(), asyncio.Event()

        async def slow_first_read(session_id: int) -> Any:
            row = await read(session_id)
            if not reading.is_set():  # the worker's read: what it read waits for the start
                reading.set()
                await started.wait()
            return row

        bot.service.forget(1)  # the worker's next load reads the database
        store.get_session = slow_first_read
        try:
            bot.tables.request_sync(1)
            await asyncio.wait_for(reading.wait(), 10)
            result = await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
            assert not result.ephemeral, result
            started.set()
            await w.settle()
        finally:
            store.get_session = read
        for user in w.users:  # the hand, with its controls
            assert w.latest_dm(user).selects() or w.latest_dm(user).buttons(), user
        assert (await bot.service.load(1)).state is not None
