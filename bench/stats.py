"""/game stats over a big server: milliseconds per query with 100,000 finished sessions and
10,000 players.

Builds a database through the real migrations, fills it in bulk (finished sessions with their
outcome, players and results rows, as the bot writes them; a second server alongside), then
computes every rating and the leaderboard's totals from the results as `python -m bot
rebuild-ratings` does (timed; a season holds the last tenth of the games), then times each query of /game stats through the
store, the whole command's reads through the session service, and, for scale, aggregating the
same leaderboard in Python from every stored outcome (what the results table avoids). Run by
hand:
    .venv/bin/python bench/stats.py [--sessions 100000] [--players 10000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.sessions import SessionService
from bot.core.store import Store
from bot.core.store.sqlite import SqliteStore
from bot.core.store.standings import ALL_GAMES, TOTALS_ORDER
from games import REGISTRY
from games.rng import Rng

GUILD, OTHER_GUILD = 1, 2


def fill(path: Path, sessions: int, pool: int, seed: int) -> None:
    """``sessions`` finished games in GUILD (and a fifth as many in OTHER_GUILD)."""
    rng = Rng(seed=seed)
    games = list(REGISTRY.values())
    users = [str(10**17 + n) for n in range(pool)]
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    session_rows: list[tuple[Any, ...]] = []
    player_rows: list[tuple[Any, ...]] = []
    result_rows: list[tuple[Any, ...]] = []
    now = time.time()
    for sid in range(1, sessions + sessions // 5 + 1):
        guild = GUILD if sid <= sessions else OTHER_GUILD
        game = games[sid % len(games)]
        count = rng.randint(max(2, game.min_players), min(5, game.max_players))
        seated = rng.sample(users, count)
        scores = {p: rng.randint(0, 60) for p in seated}
        cooperative = game.id == "alien-cafe"
        if cooperative:
            winners = seated if rng.randint(0, 1) else []
        else:
            top = max(scores.values())
            winners = [p for p in seated if scores[p] == top]
        outcome = {"scores": scores, "winners": winners, "cooperative": cooperative}
        season = 1 if guild == GUILD and sid > sessions - sessions // 10 else None
        at = now - (sessions - sid) * 60
        session_rows.append(
            (
                sid,
                guild,
                sid,
                game.id,
                "finished",
                seated[0],
                "{}",
                sid,
                "{}",
                json.dumps(outcome),
                at,
                at,
            )
        )
        for seat, p in enumerate(seated):
            player_rows.append((sid, p, seat, f"Player {p[-3:]}"))
            level = rng.randint(0, 4) if cooperative else None
            won = int(p in winners)
            row = (sid, p, guild, game.id, scores[p], won, int(cooperative), at, p, season, level)
            result_rows.append(row)
    with conn:
        conn.executemany(
            "INSERT INTO sessions (id, guild_id, channel_id, game_id, status, host_id, options, "
            "seed, state, outcome, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            session_rows,
        )
        conn.executemany(
            "INSERT INTO players (session_id, user_id, seat, name) VALUES (?,?,?,?)", player_rows
        )
        conn.executemany(
            "INSERT INTO results (session_id, user_id, guild_id, game_id, score, won, "
            "cooperative, finished_at, rated_as, season_id, level) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            result_rows,
        )
        season_start = now - (sessions // 10) * 60
        conn.execute(
            "INSERT INTO seasons (id, guild_id, name, started_by, started_at) "
            "VALUES (1, ?, 'Season 1', ?, ?)",
            (GUILD, users[0], season_start),
        )
    conn.execute("ANALYZE")
    conn.close()
    print(
        f"{len(session_rows):,} finished sessions ({sessions:,} in the server measured), "
        f"{len(result_rows):,} results, {pool} players"
    )


async def timed(repeat: int, work: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """Median and worst milliseconds of ``repeat`` runs (after one warm-up)."""
    await work()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times)


def query_plans(path: Path, user: str) -> list[str]:
    conn = sqlite3.connect(path)
    plans = []
    for label, sql, args in (
        (
            "board",
            "SELECT user_id, games, wins, best, score_sum, cooperative FROM result_totals "
            f"WHERE guild_id = ? AND game_id = ? ORDER BY {TOTALS_ORDER} LIMIT 10",
            (GUILD, ALL_GAMES),
        ),
        (
            "record",
            "SELECT game_id, COUNT(*), SUM(won), MAX(score), AVG(score), MAX(cooperative) "
            "FROM results WHERE guild_id = ? AND user_id = ? GROUP BY game_id",
            (GUILD, user),
        ),
    ):
        rows = conn.execute(f"EXPLAIN QUERY PLAN {sql}", args).fetchall()
        plans.append(f"{label}: " + " | ".join(str(r[-1]) for r in rows))
    conn.close()
    return plans


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cafebot-stats-") as tmp:
        path = Path(tmp) / "stats.sqlite3"
        await (await SqliteStore.open(path)).close()  # the schema, by the real migrations
        started = time.perf_counter()
        fill(path, args.sessions, args.players, args.seed)
        print(f"filled in {time.perf_counter() - started:.1f} s")
        store = await SqliteStore.open(path, "OFF")
        started = time.perf_counter()
        rated = await store.rebuild_ratings()
        await store.raw_execute("ANALYZE")
        print(f"{rated:,} games rated (rebuild-ratings) in {time.perf_counter() - started:.1f} s\n")
        service = SessionService(store)
        user = str(10**17 + 7)
        try:
            cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
                ("leaderboard, all games", lambda: store.leaderboard(GUILD)),
                ("leaderboard, one game", lambda: store.leaderboard(GUILD, "cafe-carnage")),
                ("one player's record", lambda: store.player_record(GUILD, user)),
                ("games finished per game", lambda: store.games_finished(GUILD)),
                ("names of the top 10", lambda: store.latest_names([user] * 10)),
                ("/game stats game:… (service)", lambda: service.leaderboard(GUILD, "cube-cafe")),
                ("/game stats player:… (service)", lambda: service.player_record(GUILD, user)),
                ("rating board, all time", lambda: store.rating_board(GUILD, "cafe-carnage", 0)),
                ("rating board, the season", lambda: store.rating_board(GUILD, "cafe-carnage", 1)),
                ("levels cleared, all time", lambda: store.level_board(GUILD, "alien-cafe", 0)),
                ("levels cleared, the season", lambda: store.level_board(GUILD, "alien-cafe", 1)),
                (
                    "one player's rating history",
                    lambda: store.rating_history(GUILD, "cafe-carnage", user, 0),
                ),
                (
                    "/game stats game:… (ratings)",
                    lambda: service.rating_board(GUILD, "cafe-carnage"),
                ),
                (
                    "/game stats game:alien-cafe",
                    lambda: service.rating_board(GUILD, "alien-cafe"),
                ),
                (
                    "… player:… (rating history)",
                    lambda: service.rating_history(GUILD, "cafe-carnage", user),
                ),
            ]
            print(f"{'query':<34}{'median ms':>10}{'max ms':>9}")
            for label, work in cases:
                median, worst = await timed(args.repeat, work)
                print(f"{label:<34}{median:>10.2f}{worst:>9.2f}")
            writes = await writes_during(store, lambda: store.leaderboard(GUILD))
            print(
                f"{'a write during the board (reader)':<34}{statistics.median(writes):>10.2f}"
                f"{max(writes):>9.2f}"
            )
            python_ms, _ = await timed(3, lambda: in_python(store))
            print(f"{'(the same board in Python)':<34}{python_ms:>10.1f}")
            print()
            for plan in query_plans(path, user):
                print(plan)
        finally:
            await store.close()


async def writes_during(store: Store, read: Callable[[], Awaitable[Any]]) -> list[float]:
    """Milliseconds of each small write committed while ``read`` runs (moves keep going while
    a big server's stats are read: the reads have their own connection)."""
    reading = asyncio.ensure_future(read())
    times: list[float] = []
    while not reading.done():
        started = time.perf_counter()
        await store.set_meta("bench", str(started))
        times.append((time.perf_counter() - started) * 1000)
    await reading
    return times or [0.0]


async def in_python(store: Store) -> dict[str, list[int]]:
    """The leaderboard the slow way: every finished session's outcome loaded and summed."""
    totals: dict[str, list[int]] = {}
    for row in await store.sessions_with_status("finished"):
        if row.guild_id != GUILD:
            continue
        outcome = json.loads(row.outcome or "{}")
        for player, score in outcome["scores"].items():
            t = totals.setdefault(player, [0, 0, 0])
            t[0] += 1
            t[1] += player in outcome["winners"]
            t[2] = max(t[2], score)
    return totals


if __name__ == "__main__":
    asyncio.run(main())
