"""Several processes on one PostgreSQL database, each with its own store (own connections, own
process id), session service and scheduler, as two bot processes would have: moves applied
once whichever one receives them, caches that never serve an old state, timers fired once,
posts claimed once, one presenter at a time, migrations that do not race."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.core.config import Settings
from bot.core.errors import StaleVersion
from bot.core.scheduler import Scheduler
from bot.core.sessions import Session, SessionService
from bot.core.store import MIGRATIONS, SCHEMA_VERSION, NewPost, Store, open_store
from tests.test_store import order_free_moves, started


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Process:
    store: Store
    service: SessionService
    scheduler: Scheduler


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[Process, Process, Clock]]:
    clock = Clock()
    processes = []
    for _ in range(2):
        store = await open_store(pg_url)
        service = SessionService(store, now=clock)
        processes.append(Process(store, service, Scheduler(store, service, clock)))
    yield processes[0], processes[1], clock
    for p in processes:
        await p.store.close()


async def test_each_process_serves_the_state_the_other_committed(
    two: tuple[Process, Process, Clock],
) -> None:
    a, b, _ = two
    s = await started(a.service)
    assert (await b.service.load(s.id)).version == s.version  # now cached in b too
    assert s.state is not None
    player = sorted(s.game.active_players(s.state))[0]
    move = s.game.legal_actions(s.state, player)[0]
    after = (await a.service.act(s.id, player, move)).session
    seen = await b.service.load(s.id)
    assert seen.version == after.version and seen.state == after.state
    # A click checked against the version it was shown: b knows a moved on.
    with pytest.raises(StaleVersion):
        await b.service.act(s.id, player, move, expected_version=s.version)
    # What shows the session changes without a new version: b reads it again too.
    await a.service.record_dm(s.id, player, channel_id=77, message_id=88, stamp="st", digest="dg")
    mine = (await b.service.load(s.id)).player(player)
    assert mine is not None and (mine.dm_channel_id, mine.dm_message_id) == (77, 88)
    await a.service.record_table_message(s.id, 99)
    assert (await b.service.load(s.id)).row.table_message_id == 99


async def test_concurrent_moves_on_two_processes_are_each_applied_once(
    two: tuple[Process, Process, Clock],
) -> None:
    a, b, _ = two
    s = await started(a.service, players=8)
    await b.service.load(s.id)
    moves = order_free_moves(s)
    assert len(moves) >= 20
    submissions = [moves[i % len(moves)] for i in range(40)]
    results = await asyncio.gather(
        *((a if i % 2 else b).service.act(s.id, p, m) for i, (p, m) in enumerate(submissions))
    )
    assert len(results) == 40
    log = await a.store.actions(s.id)
    assert [e.seq for e in log] == list(range(1, 41))
    # The log's text is pydantic's (compact): compared as JSON, in one spelling.
    assert Counter((e.player, json.dumps(json.loads(e.action), sort_keys=True)) for e in log) == (
        Counter((p, json.dumps(m, sort_keys=True)) for p, m in submissions)
    )
    final_a, final_b = await a.service.load(s.id), await b.service.load(s.id)
    assert final_a.version == final_b.version == s.version + 40
    assert final_a.state == final_b.state == await a.service.replay(s.id)


async def test_a_move_decided_on_an_old_state_is_decided_again(
    two: tuple[Process, Process, Clock],
) -> None:
    """b decides on the state it read; a commits first; b's write is refused as stale, and b
    decides again on a's state and commits on it."""
    a, b, _ = two
    s = await started(a.service)
    assert s.state is not None
    player = sorted(s.game.active_players(s.state))[0]
    moves = s.game.legal_actions(s.state, player)
    seen: list[int] = []

    def choose(current: Session) -> Any:
        seen.append(current.version)
        return moves[0]

    real_commit = b.store.commit_state
    raced = False

    async def commit_after_a(*args: Any, **kwargs: Any) -> None:
        nonlocal raced
        if not raced:
            raced = True
            await a.service.act(s.id, player, moves[0])
        await real_commit(*args, **kwargs)

    b.store.commit_state = commit_after_a  # type: ignore[method-assign]
    result = await b.service.act_with(s.id, player, choose)
    assert seen == [s.version, s.version + 1]  # decided again on a's state
    assert result.session.version == s.version + 2
    log = await a.store.actions(s.id)
    assert len(log) == 2 and all(e.player == player for e in log)


async def test_a_due_deadline_fires_once_with_both_schedulers_running(
    two: tuple[Process, Process, Clock],
) -> None:
    a, b, clock = two
    s = await started(a.service)
    timers = await a.store.timers(s.id)
    deadline = next(t for t in timers if t.kind == "deadline")
    reminder = next(t for t in timers if t.kind == "reminder")
    clock.now = reminder.due_at + 1
    await asyncio.gather(a.scheduler.run_due(), b.scheduler.run_due())
    reminders = [p for p in await a.store.posts(s.id) if p.target.startswith("user:")]
    assert len(reminders) == len(s.players)  # one reminder per player, not two
    clock.now = deadline.due_at + 1
    await asyncio.gather(a.scheduler.run_due(), b.scheduler.run_due())
    log = await a.store.actions(s.id)
    assert log and all(e.source == "timeout" for e in log)
    assert {e.player for e in log} == set(s.player_ids)  # everyone's default move, once
    once = len(log)
    notices = [p for p in await a.store.posts(s.id) if "Time's up" in p.payload]
    assert len(notices) == 1
    assert (await b.service.load(s.id)).version == s.version + 1  # one commit for the deadline
    await asyncio.gather(a.scheduler.run_due(), b.scheduler.run_due())
    assert len(await a.store.actions(s.id)) == once


async def test_a_claimed_timer_waits_for_its_claim_to_end(
    two: tuple[Process, Process, Clock],
) -> None:
    """A process that claimed a timer and died: the other fires it once the claim is over."""
    a, b, clock = two
    s = await started(a.service)
    deadline = next(t for t in await a.store.timers(s.id) if t.kind == "deadline")
    clock.now = deadline.due_at + 1
    due, _ = await a.store.claim_due_timers(clock.now)  # a claims, then "dies"
    assert {t.kind for t in due} == {"deadline", "reminder"}
    assert (await b.store.claim_due_timers(clock.now))[0] == []
    clock.now += a.store.claim_seconds + 1
    await b.scheduler.run_due()
    log = await b.store.actions(s.id)
    assert log and all(e.source == "timeout" for e in log)


async def test_posts_are_claimed_by_one_process_in_order(
    two: tuple[Process, Process, Clock],
) -> None:
    a, b, clock = two
    s = await started(a.service)
    reminder = next(t for t in await a.store.timers(s.id) if t.kind == "reminder")
    notice = NewPost({"notice": "hurry", "ping": []})
    await a.store.post_and_delete_timer(s.id, "reminder", reminder.key, [notice])
    unsent = await a.store.unsent_posts(s.id)
    assert len(unsent) >= 2, "the start's announcement and the reminder's notice"
    # Fresh posts are left to the process that wrote them (its sync posts them at once).
    assert s.id not in await b.store.sessions_with_posts_due(time.time())
    claimed = await a.service.unsent_posts(s.id)
    assert [p.id for p in claimed] == [p.id for p in unsent]
    assert await b.service.unsent_posts(s.id) == []  # a holds them
    assert s.id not in await b.store.sessions_with_posts_due(clock.now)
    assert await a.service.unsent_posts(s.id) != []  # a may take its own again
    await a.service.mark_posted([claimed[0].id], 1234)
    clock.now += a.store.claim_seconds + 1  # a died: its claim ends, its posts are overdue
    assert s.id in await b.store.sessions_with_posts_due(clock.now)
    taken = await b.service.unsent_posts(s.id)
    assert [p.id for p in taken] == [p.id for p in unsent[1:]] and taken
    assert await a.service.unsent_posts(s.id) == []


async def test_one_process_presents_a_session_at_a_time(
    two: tuple[Process, Process, Clock],
) -> None:
    a, b, _ = two
    s = await started(a.service)
    assert await a.store.acquire_presentation(s.id) == (True, True)  # first presenter
    assert (await b.store.acquire_presentation(s.id))[0] is False
    await a.store.release_presentation(s.id)
    assert await a.store.acquire_presentation(s.id) == (True, False)  # still a's
    await a.store.release_presentation(s.id)
    assert await b.store.acquire_presentation(s.id) == (True, True)  # b takes over
    assert (await a.store.acquire_presentation(s.id))[0] is False
    await b.store.close()  # a process that dies gives the lock back
    assert await a.store.acquire_presentation(s.id) == (True, True)
    await a.store.release_presentation(s.id)
    b.store = await open_store(a.store._url)  # type: ignore[attr-defined]  # for the fixture


async def test_processes_starting_together_migrate_once_and_refund_once(pg_url: str) -> None:
    stores = await asyncio.gather(*(open_store(pg_url) for _ in range(4)))
    try:
        assert {await s.schema_version() for s in stores} == {SCHEMA_VERSION}
        clock = Clock()
        service = SessionService(stores[0], now=clock)
        s = await started(service, players=3, channel=5)
        # Alien Café gets the time the bot was down back (only the row's game id is read
        # here); the bot was down for an hour.
        await stores[0].raw_execute(
            "UPDATE sessions SET game_id = 'alien-cafe' WHERE id = ?", (s.id,)
        )
        before = {t.kind: t.due_at for t in await stores[0].timers(s.id)}
        await stores[0].set_meta("last_alive", repr(clock.now - 3600))
        schedulers = [Scheduler(st, SessionService(st, now=clock), clock) for st in stores]
        await asyncio.gather(*(sch.refund_downtime() for sch in schedulers))
        after = {t.kind: t.due_at for t in await stores[0].timers(s.id)}
        assert {k: round(after[k] - before[k]) for k in before} == {k: 3600 for k in before}
        # One of them restarts while the others run: the bot was not down, nothing refunded.
        clock.now += 4
        await schedulers[1].refund_downtime()
        assert {t.kind: t.due_at for t in await stores[0].timers(s.id)} == after
    finally:
        for store in stores:
            await store.close()


async def test_both_backends_have_the_same_schema(tmp_path: Path, pg_url: str) -> None:
    sqlite = await open_store(f"sqlite:///{tmp_path / 'schema.sqlite3'}")
    pg = await open_store(pg_url)
    try:
        tables = ["sessions", "players", "actions", "timers", "meta", "outbox", "schema_version"]
        for table in tables:
            lite = [r["name"] for r in await sqlite._fetch(f"PRAGMA table_info({table})")]
            post = [
                r["column_name"]
                for r in await pg._fetch(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                    "ORDER BY ordinal_position",
                    (table,),
                )
            ]
            assert lite == post, table
        assert len(MIGRATIONS) == SCHEMA_VERSION == await pg.schema_version()
    finally:
        await sqlite.close()
        await pg.close()


async def test_a_reminder_already_fired_elsewhere_posts_nothing(pg_url: str) -> None:
    store = await open_store(pg_url)
    try:
        service = SessionService(store)
        s = await started(service)
        post = NewPost({"dm": "x", "fallback": "y"}, target="user:1000")
        key = next(t.key for t in await store.timers(s.id) if t.kind == "reminder")
        assert await store.post_and_delete_timer(s.id, "reminder", key, [post]) is True
        assert await store.post_and_delete_timer(s.id, "reminder", key, [post]) is False
        assert sum(p.target == "user:1000" for p in await store.posts(s.id)) == 1
    finally:
        await store.close()


def test_cluster_settings() -> None:
    pg = "postgresql://bot@db/cafebot"
    one = Settings(database_url=pg, cluster_index=1, cluster_count=2, shard_count=4)
    assert (one.shard_ids, one.syncs_commands, one.sharded) == ([1, 3], False, True)
    zero = Settings(database_url=pg, cluster_index=0, cluster_count=2)
    assert (zero.shard_count, zero.shard_ids, zero.syncs_commands) == (2, [0], True)
    plain = Settings(database_path=Path("x.db"))
    assert (plain.database, plain.sharded, plain.syncs_commands) == ("sqlite:///x.db", False, True)
    assert Settings(shard_count=2, shard_ids="0,1").shard_ids == [0, 1]  # type: ignore[arg-type]
    for bad, why in (
        ({"cluster_index": 0, "cluster_count": 2}, "need PostgreSQL"),
        ({"database_url": pg, "cluster_index": 2, "cluster_count": 2}, "below cluster_count"),
        ({"database_url": pg, "cluster_count": 2}, "go together"),
        ({"shard_ids": [0]}, "needs shard_count"),
        ({"shard_ids": [0, 2], "shard_count": 2}, "between 0 and 1"),
        ({"database_url": "mysql://x"}, "postgresql://"),
    ):
        with pytest.raises(ValueError, match=why):
            Settings(**bad)  # type: ignore[arg-type]


async def test_a_move_on_an_up_to_date_copy_asks_no_stamp_and_an_old_copy_plays_again(
    two: tuple[Process, Process, Clock],
) -> None:
    """A move is decided on the cached copy without asking its stamp first (one round trip
    fewer): its write is guarded by version. When another process moved meanwhile, that write
    is refused and the move is played again on the stored state; nothing is lost."""
    a, b, _ = two
    s = await started(a.service, players=8)
    await b.service.load(s.id)
    stamps = 0
    real_stamp = b.store.session_stamp

    async def counted(session_id: int) -> tuple[int, int] | None:
        nonlocal stamps
        stamps += 1
        return await real_stamp(session_id)

    b.store.session_stamp = counted  # type: ignore[method-assign]
    (p1, m1), (p2, m2), (p3, m3) = order_free_moves(s)[:3]
    await b.service.act(s.id, p1, m1)
    assert stamps == 0, "a move on a cached copy asks no stamp: its write checks the version"
    await a.service.act(s.id, p2, m2)  # b's copy is now one version behind
    after = (await b.service.act(s.id, p3, m3)).session
    assert after.version == s.version + 3
    log = await a.store.actions(s.id)
    assert [(e.player, json.loads(e.action)) for e in log] == [(p1, m1), (p2, m2), (p3, m3)]
    assert after.state == await a.service.replay(s.id)


async def test_a_refusal_decided_on_an_old_copy_is_decided_again(
    two: tuple[Process, Process, Clock],
) -> None:
    """A click on the message another process just drew (its version is newer than b's copy)
    is not refused by b's old copy: b sees the copy is behind and decides on the stored one."""
    a, b, _ = two
    s = await started(a.service, players=8)
    await b.service.load(s.id)
    (p1, m1), (p2, m2) = order_free_moves(s)[:2]
    shown = (await a.service.act(s.id, p1, m1)).session
    after = (await b.service.act(s.id, p2, m2, expected_version=shown.version)).session
    assert after.version == shown.version + 1
    # A refusal that holds on the stored state still stands (and changes nothing).
    with pytest.raises(StaleVersion):
        await b.service.act(s.id, p2, m2, expected_version=s.version)
    assert len(await a.store.actions(s.id)) == 2
