"""The ratings' SQL: a finished game's results rated in the transaction that writes them, and
the same step replayed over every result by the rebuild (one code path, so both agree exactly).

A game is rated from its ``results`` rows as stored (ordered by user id), against the ratings
the transaction reads, for all time (season 0) and for the season the results name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bot.core.ratings import ALL_TIME, Placed, Rating, rate_game, rated_as

Record = dict[str, Any]
# Each result's columns the rating reads, ordered within a game by user id.
RESULT_COLUMNS = (
    "session_id, user_id, rated_as, guild_id, game_id, season_id, score, won, cooperative, "
    "finished_at"
)


class Tx(Protocol):
    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int: ...

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]: ...


Changes = dict[str, tuple[Rating, Rating]]  # seat (user id) → all-time (before, after)


async def rate_session(tx: Tx, session_id: int, for_update: str) -> Changes:
    """Rate a game whose results were just written (the move that ends it)."""
    rows = await tx.fetch(
        f"SELECT {RESULT_COLUMNS} FROM results WHERE session_id = ? ORDER BY user_id",
        (session_id,),
    )
    return await _rate_rows(tx, rows, for_update)


async def _rate_rows(tx: Tx, rows: list[Record], for_update: str) -> Changes:
    """Rate one game from its results rows (all of one session)."""
    rated = [r for r in rows if r["rated_as"] is not None and not r["cooperative"]]
    if len(rated) < 2 or rated[0]["guild_id"] is None:
        return {}
    first = rated[0]
    guild_id, game_id, session_id = (
        int(first["guild_id"]),
        str(first["game_id"]),
        first["session_id"],
    )
    finished_at = float(first["finished_at"])
    seats = [Placed(str(r["rated_as"]), int(r["score"]), bool(r["won"])) for r in rated]
    keys = sorted({s.rated_as for s in seats})
    seasons = [ALL_TIME] + ([int(first["season_id"])] if first["season_id"] is not None else [])
    changes: Changes = {}
    for season in seasons:
        where = (guild_id, season, game_id)
        for key in keys:  # a first game's row, so the read below may lock every row it needs
            await tx.execute(
                "INSERT INTO ratings (guild_id, season_id, game_id, player, mu, sigma, ordinal, "
                "games) VALUES (?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT DO NOTHING",
                (*where, key, Rating().mu, Rating().sigma, Rating().ordinal),
            )
        marks = ",".join("?" for _ in keys)
        found = await tx.fetch(
            "SELECT player, mu, sigma FROM ratings WHERE guild_id = ? AND season_id = ? "
            f"AND game_id = ? AND player IN ({marks}) ORDER BY player{for_update}",
            (*where, *keys),
        )
        before = {str(r["player"]): Rating(float(r["mu"]), float(r["sigma"])) for r in found}
        after = rate_game(seats, before)
        for key in keys:
            new = after[key]
            await tx.execute(
                "UPDATE ratings SET mu = ?, sigma = ?, ordinal = ?, games = games + 1 "
                "WHERE guild_id = ? AND season_id = ? AND game_id = ? AND player = ?",
                (new.mu, new.sigma, new.ordinal, *where, key),
            )
            old = before[key]
            await tx.execute(
                "INSERT INTO rating_changes (session_id, season_id, player, guild_id, game_id, "
                "mu_before, sigma_before, mu, sigma, finished_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    season,
                    key,
                    guild_id,
                    game_id,
                    old.mu,
                    old.sigma,
                    new.mu,
                    new.sigma,
                    finished_at,
                ),
            )
        if season == ALL_TIME:
            changes = {
                str(r["user_id"]): (before[seat.rated_as], after[seat.rated_as])
                for r, seat in zip(rated, seats, strict=True)
            }
    return changes


async def rebuild(tx: Tx, for_update: str) -> int:
    """Every rating again from the results, in the order the games finished; returns how
    many games were rated."""
    await tx.execute("DELETE FROM rating_changes")
    await tx.execute("DELETE FROM ratings")
    rows = await tx.fetch(
        f"SELECT {RESULT_COLUMNS} FROM results WHERE rated_as IS NOT NULL AND cooperative = 0 "
        "AND guild_id IS NOT NULL ORDER BY finished_at, session_id, user_id"
    )
    rated = 0
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end]["session_id"] == rows[start]["session_id"]:
            end += 1
        if await _rate_rows(tx, rows[start:end], for_update):
            rated += 1
        start = end
    return rated


async def backfill(tx: Tx) -> None:
    """Migration 9: the results stored before it rate their user (a bot seat: its level as
    "normal"), and every rating is built from them."""
    users = await tx.fetch("SELECT DISTINCT user_id FROM results")
    for row in users:
        user_id = str(row["user_id"])
        await tx.execute(
            "UPDATE results SET rated_as = ? WHERE user_id = ?", (rated_as(user_id), user_id)
        )
    await rebuild(tx, "")


async def season_table(tx: Tx, guild_id: int, season_id: int, limit: int = 5) -> dict[str, Any]:
    """A season's final table, as its post carries it: per game, the best rated players
    (player, ordinal, games), or a cooperative game's highest levels (player, level, games);
    and the players' names as of their latest game."""
    games: dict[str, list[list[Any]]] = {}
    rated = await tx.fetch(
        "SELECT game_id, player, ordinal, games FROM ratings WHERE guild_id = ? "
        "AND season_id = ? AND games > 0 ORDER BY game_id, ordinal DESC, player",
        (guild_id, season_id),
    )
    for r in rated:
        lines = games.setdefault(str(r["game_id"]), [])
        if len(lines) < limit:
            lines.append([str(r["player"]), float(r["ordinal"]), int(r["games"])])
    levels: dict[str, list[list[Any]]] = {}
    cleared = await tx.fetch(
        "SELECT game_id, user_id, MAX(level) AS level, COUNT(*) AS games FROM results "
        "WHERE guild_id = ? AND season_id = ? AND level IS NOT NULL GROUP BY game_id, user_id "
        "ORDER BY game_id, MAX(level) DESC, COUNT(*) DESC, user_id",
        (guild_id, season_id),
    )
    for r in cleared:
        lines = levels.setdefault(str(r["game_id"]), [])
        if len(lines) < limit:
            lines.append([str(r["user_id"]), int(r["level"]), int(r["games"])])
    names: dict[str, str] = {}
    for player in {p[0] for lines in [*games.values(), *levels.values()] for p in lines}:
        found = await tx.fetch(
            "SELECT name FROM players WHERE user_id = ? ORDER BY session_id DESC LIMIT 1",
            (player,),
        )
        names[player] = str(found[0]["name"]) if found else player
    return {"ratings": games, "levels": levels, "names": names}
