"""The win leaderboard read from the totals kept with the results (on both backends): the same
board as aggregating the server's results, after random finished games, after a rebuild, and
in a database migrated from before the totals."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.core.sessions import SessionService
from bot.core.store import Store, open_store
from bot.core.store.rows import StatRow
from games.rng import Rng
from tests.test_store import play_random

GAMES = ("cafe-carnage", "monster-cafe", "alien-cafe")  # alien-cafe: cooperative
BOARD = 100  # more lines than players: the whole board is compared


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(database_url)
    yield SessionService(store)
    await store.close()


async def finish_random_games(service: SessionService, count: int, seed: int) -> None:
    """``count`` games of random players (from a pool of 7) played to their end, in servers 1
    and 2 (and one in no server, which is on no board)."""
    rng = Rng(seed=seed)
    pool = [str(100 + n) for n in range(7)]
    for n in range(count):
        game = GAMES[n % len(GAMES)]
        players = rng.sample(pool, 3)
        guild = None if n == count - 1 else 1 + n % 2
        s = await service.create(
            game_id=game,
            channel_id=seed * 1000 + n,
            guild_id=guild,
            host_id=players[0],
            host_name="H",
            seed=seed + n,
        )
        for pid in players[1:]:
            await service.join(s.id, pid, f"P{pid}")
        s = await play_random(service, await service.start(s.id, players[0]), seed=seed + n)
        assert s.status == "finished"


async def board_from_results(store: Store, guild_id: int, game_id: str | None) -> list[StatRow]:
    """The board as aggregating the stored results gives it (computed here, in Python)."""
    rows = await store._fetch("SELECT * FROM results")
    totals: dict[str, list[Any]] = {}
    for r in rows:
        if r["guild_id"] != guild_id or (game_id is not None and r["game_id"] != game_id):
            continue
        t = totals.setdefault(str(r["user_id"]), [0, 0, None, 0, 0])
        t[0] += 1
        t[1] += int(r["won"])
        t[2] = int(r["score"]) if t[2] is None else max(t[2], int(r["score"]))
        t[3] += int(r["score"])
        t[4] = max(t[4], int(r["cooperative"]))
    lines = [
        StatRow(key=k, games=g, wins=w, best=b, average=s / g, cooperative=bool(c))
        for k, (g, w, b, s, c) in totals.items()
    ]
    lines.sort(key=lambda x: (-x.wins, -x.wins / x.games, -x.games, x.key))
    return lines[:BOARD]


async def board_by_sql(store: Store, guild_id: int) -> list[tuple[Any, ...]]:
    """The all-games board as the SQL aggregate over the results ranks it (before the totals)."""
    rows = await store._fetch(
        "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, MAX(score) AS best "
        "FROM results WHERE guild_id = ? GROUP BY user_id "
        "ORDER BY SUM(won) DESC, 1.0 * SUM(won) / COUNT(*) DESC, COUNT(*) DESC, user_id",
        (guild_id,),
    )
    return [(str(r["user_id"]), int(r["games"]), int(r["wins"]), int(r["best"])) for r in rows]


async def assert_boards_match_results(store: Store) -> None:
    for guild in (1, 2):
        for game in (None, *GAMES):
            board = await store.leaderboard(guild, game, limit=BOARD)
            assert board == await board_from_results(store, guild, game), (guild, game)
        board = await store.leaderboard(guild, limit=BOARD)
        assert [(x.key, x.games, x.wins, x.best) for x in board] == await board_by_sql(store, guild)


@pytest.mark.heavy
async def test_the_board_from_the_totals_is_the_aggregate_of_the_results(
    service: SessionService,
) -> None:
    store = service.store
    await finish_random_games(service, count=7, seed=3)
    board = await store.leaderboard(1, limit=BOARD)
    assert len(board) > 3 and sum(x.games for x in board) == 3 * 3, "three games of 3 in server 1"
    assert any(x.cooperative for x in board) and any(x.wins for x in board)
    await assert_boards_match_results(store)
    totals_sql = "SELECT * FROM result_totals ORDER BY guild_id, game_id, user_id"
    kept = await store._fetch(totals_sql)
    assert all(r["guild_id"] in (1, 2) for r in kept), "a game in no server is on no board"
    # rebuild-ratings fills the totals again from the results: the same rows.
    await store.raw_execute("UPDATE result_totals SET wins = wins + 5")
    await store.rebuild_ratings()
    assert await store._fetch(totals_sql) == kept


@pytest.mark.heavy
async def test_a_migrated_database_gets_its_totals(database_url: str) -> None:
    """A database from before the totals (schema 9) gets them from its results when it is
    opened; a game that ends afterwards is added to them."""
    store = await open_store(database_url)
    try:
        await finish_random_games(SessionService(store), count=4, seed=5)
        written = await store.leaderboard(1, limit=BOARD)
        await store.raw_execute("DROP TABLE result_totals")
        # and with the history index migration 11 drops
        await store.raw_execute(
            "CREATE INDEX sessions_guild_ended ON sessions(guild_id, updated_at)"
        )
        await store.raw_execute("UPDATE schema_version SET version = 9")
    finally:
        await store.close()
    assert written

    store = await open_store(database_url)
    try:
        assert await store.leaderboard(1, limit=BOARD) == written
        await assert_boards_match_results(store)
        await finish_random_games(SessionService(store), count=3, seed=9)
        assert sum(x.games for x in await store.leaderboard(1, limit=BOARD)) > sum(
            x.games for x in written
        )
        await assert_boards_match_results(store)
    finally:
        await store.close()
