"""PostgreSQL's batched trips: moves of many sessions in one statement (one commit), stamps read
together, presentation locks shared by a process's holders. Each must give what the statements
one by one gave: a stale move refused alone, a failed batch failing each of its moves with
nothing applied."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import asyncpg
import pytest

from bot.core.errors import StaleWrite
from bot.core.sessions import Session, SessionService
from bot.core.store import NewAction, NewPost, Store, TimerRow, open_store
from bot.core.store.postgres import PostgresStore
from bot.core.store.rows import MoveWrite
from tests.test_store import started


@pytest.fixture
async def service(pg_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(pg_url)
    yield SessionService(store)
    await store.close()


def pg(service: SessionService) -> PostgresStore:
    assert isinstance(service.store, PostgresStore)
    return service.store


def a_move(s: Session, *, version: int | None = None, source: str = "player") -> MoveWrite:
    """A move of ``s`` with a bit of everything: two log entries, posts (one held), new timers,
    its undo request settled."""
    assert s.state is not None
    return MoveWrite(
        session_id=s.id,
        version=s.version if version is None else version,
        state=s.state.model_dump_json(),
        status="active",
        outcome=None,
        announced=s.row.announced + 1,
        actions=[
            NewAction(player="1000", action=json.dumps({"type": "x", "n": s.id}), source=source),
            NewAction(player="1001", action=json.dumps({"type": "y"}), source="timeout", undoes=1),
        ],
        posts=[NewPost({"notice": "moved"}), NewPost({"notice": "held", "hold": 2.5})],
        timers=[TimerRow(0, "deadline", "k2", 1e9), TimerRow(0, "reminder", "k2", 9e8)],
        settle_undo=True,
        results=[],
    )


async def written(service: SessionService, session_id: int) -> tuple[Any, ...]:
    """What a move wrote for a session, in a form two sessions can be compared by."""
    store = service.store
    row = await store.get_session(session_id)
    assert row is not None
    actions = [
        (a.seq, a.player, a.action.replace(str(session_id), "#"), a.source, a.undoes)
        for a in await store.actions(session_id)
    ]
    posts = [
        (p.target, p.payload, round(p.next_attempt_at - p.created_at, 6))
        for p in await store.posts(session_id)
    ]
    timers = [(t.kind, t.key, t.due_at) for t in await store.timers(session_id)]
    undo = await store.undo_request(session_id)
    return (row.version, row.status, row.announced, actions, posts, timers, undo)


async def test_concurrent_moves_share_one_statement_and_write_what_one_by_one_writes(
    service: SessionService,
) -> None:
    store = pg(service)
    sessions = [await started(service, channel=700 + n) for n in range(6)]
    # The reference: the statements one by one (the path a game's last move takes).
    reference = sessions[0]
    await Store._commit_move(store, a_move(reference))
    batches = store.moves.batches
    await asyncio.gather(*(store._commit_move(a_move(s)) for s in sessions[1:]))
    assert store.moves.batches == batches + 1  # five moves, one statement, one commit
    expected = await written(service, reference.id)
    for s in sessions[1:]:
        assert await written(service, s.id) == expected
    # Timers kept (a move within the same timed step) stay as they were.
    s = replace(sessions[1], row=replace(sessions[1].row, version=sessions[1].version + 1))
    timers = await store.timers(s.id)
    await store._commit_move(replace(a_move(s), timers=None))
    assert await store.timers(s.id) == timers


async def test_a_stale_move_in_a_batch_is_refused_alone_and_writes_nothing(
    service: SessionService,
) -> None:
    store = pg(service)
    a, b, c = [await started(service, channel=710 + n) for n in range(3)]
    before = await written(service, b.id)
    batches = store.moves.batches
    results = await asyncio.gather(
        store._commit_move(a_move(a)),
        store._commit_move(a_move(b, version=b.version - 1)),
        store._commit_move(a_move(c)),
        return_exceptions=True,
    )
    assert store.moves.batches == batches + 1
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], StaleWrite)
    assert await written(service, b.id) == before
    for s in (a, c):
        assert (await written(service, s.id))[0] == s.version + 1


async def test_a_failed_batch_fails_every_move_and_applies_none(service: SessionService) -> None:
    store = pg(service)
    sessions = [await started(service, channel=720 + n) for n in range(3)]
    before = [await written(service, s.id) for s in sessions]
    moves = [a_move(sessions[0]), a_move(sessions[1], source="bogus"), a_move(sessions[2])]
    results = await asyncio.gather(*(store._commit_move(m) for m in moves), return_exceptions=True)
    # The log's CHECK refuses the middle one's source: the statement fails as a whole.
    assert all(isinstance(r, asyncpg.CheckViolationError) for r in results)
    assert [await written(service, s.id) for s in sessions] == before
    # And the store goes on: the same moves, without the bad one, are written.
    await asyncio.gather(store._commit_move(moves[0]), store._commit_move(moves[2]))
    assert (await written(service, sessions[0].id))[0] == sessions[0].version + 1


async def test_two_moves_of_one_session_go_in_two_batches(service: SessionService) -> None:
    store = pg(service)
    s = await started(service, channel=730)
    first = a_move(s)
    second = a_move(s, version=s.version + 1)
    batches = store.moves.batches
    await asyncio.gather(store._commit_move(first), store._commit_move(second))
    assert store.moves.batches == batches + 2
    log = await store.actions(s.id)
    assert [e.seq for e in log] == list(range(1, len(log) + 1))  # no seq twice
    assert (await written(service, s.id))[0] == s.version + 2


async def test_a_session_s_next_move_joins_the_batch_that_goes_next(
    service: SessionService,
) -> None:
    """A caller answered by a commit moves again at once (a closed loop): that move joins the
    moves that waited meanwhile in the next batch, instead of waiting a statement more."""
    store = pg(service)
    a, b = [await started(service, channel=735 + n) for n in range(2)]
    store.moves._writers = 1  # one batch in flight at a time: the order is the test's

    async def a_twice() -> None:
        await store._commit_move(a_move(a))
        await store._commit_move(a_move(a, version=a.version + 1))

    batches = store.moves.batches
    playing = asyncio.create_task(a_twice())
    while not store.moves._in_flight:  # a's first move is on its way
        await asyncio.sleep(0)
    await store._commit_move(a_move(b))  # waits for that batch, then goes with a's second
    await playing
    assert store.moves.batches == batches + 2
    assert (await written(service, a.id))[0] == a.version + 2
    assert (await written(service, b.id))[0] == b.version + 1


async def test_a_session_s_moves_never_reorder_across_batches_in_flight(
    service: SessionService,
) -> None:
    """Eight sessions each ask three moves at once (versions v, v+1, v+2, in that order), two
    batches in flight at a time: each session's moves are written in the order asked, one per
    batch, none refused as stale (a move sent before the one it follows would be)."""
    store = pg(service)
    sessions = [await started(service, channel=800 + n) for n in range(8)]

    def nth(s: Session, n: int) -> MoveWrite:
        move = a_move(s, version=s.version + n)
        tagged = [
            replace(a, action=json.dumps({**json.loads(a.action), "nth": n})) for a in move.actions
        ]
        return replace(move, actions=tagged, timers=None, posts=[])

    batches = store.moves.batches
    await asyncio.gather(*(store._commit_move(nth(s, n)) for n in range(3) for s in sessions))
    assert store.moves.batches >= batches + 3  # a session's three moves: three batches
    for s in sessions:
        log = await store.actions(s.id)
        assert [json.loads(e.action)["nth"] for e in log] == [0, 0, 1, 1, 2, 2]
        assert (await written(service, s.id))[0] == s.version + 3


async def test_a_failed_batch_refuses_only_its_own_moves(service: SessionService) -> None:
    """Two batches in flight: the second fails (a bad move in it) while the first waits on a row
    lock; the first's move is written once the lock goes, the second's are not."""
    store = pg(service)
    a, b, c = [await started(service, channel=820 + n) for n in range(3)]
    before = [await written(service, s.id) for s in (b, c)]
    blocker = await asyncpg.connect(store._url)
    try:
        held = blocker.transaction()
        await held.start()
        await blocker.execute("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", a.id)
        first = asyncio.create_task(store._commit_move(a_move(a)))
        while a.id not in store.moves._in_flight:  # sent, waiting for a's row
            await asyncio.sleep(0.01)
        results = await asyncio.gather(
            store._commit_move(a_move(b, source="bogus")),  # the log's CHECK refuses it
            store._commit_move(a_move(c)),
            return_exceptions=True,
        )
        assert a.id in store.moves._in_flight and not first.done()
        await held.rollback()
    finally:
        await blocker.close()
    await first
    assert all(isinstance(r, asyncpg.CheckViolationError) for r in results), results
    assert [await written(service, s.id) for s in (b, c)] == before
    assert (await written(service, a.id))[0] == a.version + 1


async def test_a_batch_s_callers_are_told_in_two_halves(service: SessionService) -> None:
    """Four sessions in a closed loop (each moves again once its move is written): their first
    moves go as one batch; its callers are told in two halves, so the first half's next moves
    go as a batch of their own while the second half's callers are still at work."""
    store = pg(service)
    sessions = [await started(service, channel=840 + n) for n in range(4)]

    async def twice(s: Session) -> None:
        await store._commit_move(a_move(s))
        await store._commit_move(a_move(s, version=s.version + 1))

    batches = store.moves.batches
    await asyncio.gather(*(twice(s) for s in sessions))
    assert store.moves.batches == batches + 3
    # A batch's entries share its time: which moves went together.
    times = [[e.created_at for e in await store.actions(s.id)] for s in sessions]
    assert len({t[0] for t in times}) == 1  # the first moves: one batch
    seconds = [t[-1] for t in times]
    assert seconds[0] == seconds[1] != seconds[2] == seconds[3]


async def test_stamps_asked_together_are_each_the_stored_one(service: SessionService) -> None:
    store = pg(service)
    sessions = [await started(service, channel=740 + n) for n in range(4)]
    await store.set_table_message(sessions[1].id, 99)  # shown + 1
    stamps = await asyncio.gather(
        *(store.session_stamp(s.id) for s in sessions), store.session_stamp(10_000)
    )
    rows = [await store.get_session(s.id) for s in sessions]
    assert stamps == [(r.version, r.shown) for r in rows if r is not None] + [None]
    assert stamps[1] is not None and stamps[0] is not None and stamps[1][1] == stamps[0][1] + 1


async def test_a_process_holders_share_its_presentation_lock(pg_url: str) -> None:
    a, b = await open_store(pg_url), await open_store(pg_url)
    try:
        s = await started(SessionService(a), channel=750)
        # Two holders in one process at once (a click's answer and the table sync).
        first, second = await asyncio.gather(
            a.acquire_presentation(s.id), a.acquire_presentation(s.id)
        )
        assert first[0] and second[0]
        assert (await b.acquire_presentation(s.id))[0] is False
        await a.release_presentation(s.id)
        assert (await b.acquire_presentation(s.id))[0] is False  # the other holder still has it
        await a.release_presentation(s.id)
        assert await b.acquire_presentation(s.id) == (True, True)
        await b.release_presentation(s.id)
        # A release and a take asked together go in that order: held after both.
        assert (await a.acquire_presentation(s.id))[0]
        _, again = await asyncio.gather(a.release_presentation(s.id), a.acquire_presentation(s.id))
        assert again[0]
        assert (await b.acquire_presentation(s.id))[0] is False
        await a.release_presentation(s.id)
        assert (await b.acquire_presentation(s.id))[0] is True
    finally:
        await a.close()
        await b.close()


async def test_holders_coming_and_going_leave_no_lock_behind(pg_url: str) -> None:
    """Fifty holders in one process take and give back five sessions' presentation at random,
    with takes on their way as others give back: once all are done, another process can take
    each of them (no lock was taken twice and given back once)."""
    a, b = await open_store(pg_url), await open_store(pg_url)
    rng = random.Random(7)
    try:
        sessions = [(await started(SessionService(a), channel=760 + n)).id for n in range(5)]

        async def holder() -> None:
            for _ in range(200):
                session_id = rng.choice(sessions)
                held, _ = await a.acquire_presentation(session_id)
                assert held  # nobody else asks for them
                await asyncio.sleep(0)
                await asyncio.sleep(rng.random() / 1000)  # interleaved as it happens
                await a.release_presentation(session_id)

        await asyncio.gather(*(holder() for _ in range(50)))
        for session_id in sessions:
            assert (await b.acquire_presentation(session_id))[0] is True
    finally:
        await a.close()
        await b.close()


async def test_without_a_connection_each_waiting_move_and_stamp_fails(pg_url: str) -> None:
    """The pool closing (the bot stopping, the server gone) under moves and stamp reads that
    wait: each fails with the reason, none waits for an answer that never comes."""
    store = await open_store(pg_url)
    assert isinstance(store, PostgresStore)
    sessions = [await started(SessionService(store), channel=770 + n) for n in range(3)]
    await store._pool.close()
    results = await asyncio.wait_for(
        asyncio.gather(
            *(store._commit_move(a_move(s)) for s in sessions),
            *(store.session_stamp(s.id) for s in sessions),
            return_exceptions=True,
        ),
        timeout=60,  # a guard against a hang, not a measure: each fails at once
    )
    assert all(isinstance(r, asyncpg.InterfaceError) for r in results), results
    await store.close()


async def test_one_statement_writes_write_all_they_did(service: SessionService) -> None:
    """A DM noted, the table message set, a meta value: each one statement now, each as the
    transaction of several was (the player's DM and the session's ``shown`` together)."""
    store = pg(service)
    s = await started(service, channel=780)
    before = await store.session_stamp(s.id)
    assert before is not None
    shown = await store.set_dm(s.id, "1001", channel_id=5, message_id=6, stamp="st", digest="dg")
    assert shown == before[1] + 1
    player = next(p for p in await store.players(s.id) if p.user_id == "1001")
    assert (player.dm_channel_id, player.dm_message_id, player.dm_stamp, player.dm_digest) == (
        5,
        6,
        "st",
        "dg",
    )
    assert await store.set_table_message(s.id, 77) == before[1] + 2
    assert await store.session_stamp(s.id) == (before[0], before[1] + 2)
    await store.set_meta("k", "v")
    await store.set_meta("k", "w")
    assert await store.get_meta("k") == "w"
