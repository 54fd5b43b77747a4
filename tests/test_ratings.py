"""Ratings: written with the move that ends a game, rebuilt from the results exactly as they
were (on both backends), per season and all time; bot seats rated by level."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.core.errors import NotAllowed
from bot.core.ratings import Placed, Rating, ranks, rate_game, rated_as
from bot.core.sessions import SessionService
from bot.core.store import open_store
from tests.test_store import play_random

GAME = "cafe-carnage"


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(database_url)
    yield SessionService(store)
    await store.close()


async def finished(
    service: SessionService, players: list[str], channel: int, seed: int, game: str = GAME
) -> int:
    s = await service.create(
        game_id=game, channel_id=channel, guild_id=1, host_id=players[0], host_name="H", seed=seed
    )
    for pid in players[1:]:
        await service.join(s.id, pid, f"P{pid}")
    s = await play_random(service, await service.start(s.id, players[0]), seed=seed)
    assert s.status == "finished"
    return s.id


async def table(service: SessionService, sql: str) -> list[dict[str, Any]]:
    return await service.store._fetch(sql)


def test_ties_share_a_place_and_winners_come_first() -> None:
    seats = [Placed("a", 10, False), Placed("b", 12, True), Placed("c", 10, False)]
    assert ranks(seats) == [1, 0, 1]
    after = rate_game(seats, {k: Rating() for k in "abc"})
    assert after["b"].mu > after["a"].mu == after["c"].mu
    assert rated_as("bot-3") == "🤖 normal" and rated_as("bot-3", "hard") == "🤖 hard"
    assert rated_as("1234") == "1234"


@pytest.mark.heavy
async def test_incremental_ratings_equal_the_rebuilt_ones(service: SessionService) -> None:
    tables = [
        ["1", "2", "3"],
        ["2", "3", "4", "5"],
        ["1", "bot-1", "bot-2"],  # two bots of one level: one rating, "🤖 normal"
        ["1", "2", "6"],
    ]
    ids = []
    for n, players in enumerate(tables):
        if n == 2:
            await service.start_season(1, None, "1")
        ids.append(await finished(service, players, channel=100 + n, seed=n + 1))
    for n in range(2):  # cooperative: the highest level each player cleared, not a rating
        await finished(service, ["1", "7"], channel=200 + n, seed=n + 1, game="alien-cafe")
    ratings_sql = "SELECT * FROM ratings ORDER BY guild_id, season_id, game_id, player"
    changes_sql = "SELECT * FROM rating_changes ORDER BY session_id, season_id, player"
    levels_sql = "SELECT * FROM levels ORDER BY guild_id, season_id, game_id, player"
    incremental = (
        await table(service, ratings_sql),
        await table(service, changes_sql),
        await table(service, levels_sql),
    )
    assert len(incremental[2]) == 4, "two players, all time and the season"
    results = await table(service, "SELECT * FROM results WHERE game_id = 'alien-cafe'")
    for line in incremental[2]:
        mine = [r["level"] for r in results if r["user_id"] == line["player"]]
        assert (line["level"], line["games"]) == (max(mine), len(mine))
    season = await service.open_season(1)
    assert season is not None and season.name == "Season 1"
    board = await service.rating_board(1, GAME)
    assert {line.player for line in board.all_time} == {"1", "2", "3", "4", "5", "6", "🤖 normal"}
    assert {line.player for line in board.season_lines} == {"1", "2", "6", "🤖 normal"}
    assert [line.ordinal for line in board.all_time] == sorted(
        (line.ordinal for line in board.all_time), reverse=True
    )
    assert next(x for x in board.all_time if x.player == "1").games == 3
    history = await service.rating_history(1, GAME, "1")
    assert [h.session_id for h in history.lines] == [ids[3], ids[2], ids[0]]
    # The final post names each player's rating before and after.
    posts = [json.loads(p.payload) for p in await service.store.posts(ids[3])]
    result = next(p["result"] for p in posts if "result" in p)
    assert set(result["ratings"]) == {"1", "2", "6"}
    before, after = result["ratings"]["1"]
    assert after == pytest.approx(history.lines[0].mu - 3 * history.lines[0].sigma)
    assert before == pytest.approx(history.lines[1].mu - 3 * history.lines[1].sigma)

    assert await service.rebuild_ratings() == len(tables)
    assert (
        await table(service, ratings_sql),
        await table(service, changes_sql),
        await table(service, levels_sql),
    ) == incremental


async def test_a_season_is_started_and_ended_once(service: SessionService) -> None:
    first = await service.start_season(1, "  Winter   cup ", "1")
    assert first.name == "Winter cup"
    with pytest.raises(NotAllowed, match="already running"):
        await service.start_season(1, None, "1")
    assert (await service.end_season(1, 100)).id == first.id
    with pytest.raises(NotAllowed, match="No season"):
        await service.end_season(1, 100)
    assert (await service.start_season(1, None, "1")).name == "Season 2"


def test_rebuild_ratings_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cafebot.sqlite3"
    url = f"sqlite:///{path}"

    async def play() -> list[dict[str, Any]]:
        store = await open_store(url)
        try:
            service = SessionService(store)
            await finished(service, ["1", "2", "3"], channel=1, seed=5)
            await store.raw_execute("UPDATE ratings SET mu = 0")  # damaged: the rebuild repairs
            return await table(service, "SELECT * FROM ratings ORDER BY player, season_id")
        finally:
            await store.close()

    damaged = asyncio.run(play())
    assert main(["rebuild-ratings", "--database", url]) == 0
    assert "1 game(s) rated again" in capsys.readouterr().out

    async def read() -> list[dict[str, Any]]:
        store = await open_store(url)
        try:
            return await table(SessionService(store), "SELECT * FROM ratings ORDER BY player")
        finally:
            await store.close()

    repaired = asyncio.run(read())
    assert [r["player"] for r in repaired] == [r["player"] for r in damaged]
    assert all(r["mu"] != 0 and r["games"] == 1 for r in repaired)
    assert main(["rebuild-ratings", "--database", f"sqlite:///{tmp_path / 'none'}"]) == 2
    assert "there is no database" in capsys.readouterr().err
    assert main(["rebuild-ratings", "--database", "mysql://x"]) == 2


async def test_a_game_rated_after_a_later_stamped_one_is_rebuilt_in_that_order(
    service: SessionService,
) -> None:
    """Two games ending at once may take the ratings' lock in the other order than their
    clocks say (several processes, a clock set back): the second rated finishes just after
    the first, so the rebuild rates them in the same order."""
    first = await finished(service, ["1", "2", "3"], channel=1, seed=1)
    ahead = 4102444800.0  # its clock ran ahead: stamped after the next game's
    for table_name in ("results", "rating_changes"):
        await service.store.raw_execute(
            f"UPDATE {table_name} SET finished_at = ? WHERE session_id = ?", (ahead, first)
        )
    second = await finished(service, ["2", "3", "4"], channel=2, seed=2)
    stamped = await table(service, "SELECT session_id, finished_at FROM results ORDER BY 2, 1")
    assert [r["session_id"] for r in stamped] == [first] * 3 + [second] * 3
    ratings_sql = "SELECT * FROM ratings ORDER BY guild_id, season_id, game_id, player"
    incremental = await table(service, ratings_sql)
    await service.rebuild_ratings()
    assert await table(service, ratings_sql) == incremental


async def test_a_bot_seat_is_rated_under_its_level(service: SessionService) -> None:
    """ "You vs hard bots": a hard bot's result rates "🤖 hard", a normal one's "🤖 normal"."""
    s = await service.create(
        game_id=GAME, channel_id=300, guild_id=1, host_id="1", host_name="H", seed=5
    )
    await service.join(s.id, "2", "P2")
    await service.add_robot(s.id, "1", "hard")
    await service.add_robot(s.id, "1", "normal")
    s = await play_random(service, await service.start(s.id, "1"), seed=5)
    assert s.status == "finished"
    rated = await table(service, f"SELECT user_id, rated_as FROM results WHERE session_id = {s.id}")
    by_seat = {r["user_id"]: r["rated_as"] for r in rated}
    assert by_seat == {"1": "1", "2": "2", "bot-1": "🤖 hard", "bot-2": "🤖 normal"}
    board = await service.rating_board(1, GAME)
    assert {line.player for line in board.all_time} == {"1", "2", "🤖 hard", "🤖 normal"}
