"""The ratings' SQL: a finished game's results rated in the transaction that writes them, and
every result rated again by the rebuild, through the same steps (so both agree exactly: a
rating is stored as the double it was computed as, and read back as the same double).

A game is rated from its ``results`` rows as stored (ordered by user id), against the ratings
before it, for all time (season 0) and for the season the results name. A cooperative game's
results keep each player's highest level cleared instead (``levels``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from bot.core.ratings import ALL_TIME, Placed, Rating, rate_game, rated_as

Record = dict[str, Any]
# Each result's columns the rating reads, ordered within a game by user id.
RESULT_COLUMNS = (
    "session_id, user_id, rated_as, guild_id, game_id, season_id, score, won, cooperative, "
    "level, finished_at"
)
BATCH = 200  # rows per INSERT when the rebuild writes every rating back


class Tx(Protocol):
    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int: ...

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Record]: ...


Changes = dict[str, tuple[Rating, Rating]]  # seat (user id) → all-time (before, after)


@dataclass(frozen=True)
class _Game:
    """One finished game, as its results rows say."""

    session_id: int
    guild_id: int
    game_id: str
    finished_at: float
    seasons: list[int]  # all time, and the season it counted for
    users: list[str]
    seats: list[Placed]
    cooperative: bool
    levels: dict[str, int]  # a cooperative game's: user → highest level cleared

    @property
    def keys(self) -> list[str]:
        return sorted({s.rated_as for s in self.seats})


def _game(rows: list[Record]) -> _Game | None:
    """The game of these rows (one session's), if it counts: a server's, each seat rated."""
    if not rows or rows[0]["guild_id"] is None:
        return None
    first = rows[0]
    season = first["season_id"]
    cooperative = any(bool(r["cooperative"]) for r in rows)
    rated = [] if cooperative else [r for r in rows if r["rated_as"] is not None]
    return _Game(
        int(first["session_id"]),
        int(first["guild_id"]),
        str(first["game_id"]),
        float(first["finished_at"]),
        [ALL_TIME] + ([int(season)] if season is not None else []),
        [str(r["user_id"]) for r in rated],
        [Placed(str(r["rated_as"]), int(r["score"]), bool(r["won"])) for r in rated],
        cooperative,
        {str(r["user_id"]): int(r["level"]) for r in rows if r["level"] is not None},
    )


def _change_row(g: _Game, season: int, key: str, old: Rating, new: Rating) -> tuple[Any, ...]:
    return (
        g.session_id,
        season,
        key,
        g.guild_id,
        g.game_id,
        old.mu,
        old.sigma,
        new.mu,
        new.sigma,
        g.finished_at,
    )


CHANGE_COLUMNS = (
    "session_id, season_id, player, guild_id, game_id, mu_before, sigma_before, mu, sigma, "
    "finished_at"
)


async def rate_session(tx: Tx, session_id: int, for_update: str) -> Changes:
    """Rate a game whose results were just written (the move that ends it)."""
    rows = await tx.fetch(
        f"SELECT {RESULT_COLUMNS} FROM results WHERE session_id = ? ORDER BY user_id",
        (session_id,),
    )
    g = _game(rows)
    if g is None:
        return {}
    if g.cooperative:
        for season in g.seasons:
            for user, level in g.levels.items():
                await tx.execute(
                    "INSERT INTO levels (guild_id, season_id, game_id, player, level, games) "
                    "VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (guild_id, season_id, game_id, player) "
                    "DO UPDATE SET games = levels.games + 1, level = CASE WHEN excluded.level > "
                    "levels.level THEN excluded.level ELSE levels.level END",
                    (g.guild_id, season, g.game_id, user, level),
                )
        return {}
    if len(g.seats) < 2:
        return {}
    changes: Changes = {}
    keys = g.keys
    for season in g.seasons:
        where = (g.guild_id, season, g.game_id)
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
        if season == ALL_TIME:
            g = await _after_the_last(tx, g, marks)
        after = rate_game(g.seats, before)
        for key in keys:
            new = after[key]
            await tx.execute(
                "UPDATE ratings SET mu = ?, sigma = ?, ordinal = ?, games = games + 1 "
                "WHERE guild_id = ? AND season_id = ? AND game_id = ? AND player = ?",
                (new.mu, new.sigma, new.ordinal, *where, key),
            )
            await tx.execute(
                f"INSERT INTO rating_changes ({CHANGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _change_row(g, season, key, before[key], new),
            )
        if season == ALL_TIME:
            changes = {
                user: (before[seat.rated_as], after[seat.rated_as])
                for user, seat in zip(g.users, g.seats, strict=True)
            }
    return changes


async def _after_the_last(tx: Tx, g: _Game, marks: str) -> _Game:
    """The game, finishing after the last game rated of any of its players (its rows locked).
    Two games ending at once rate in the order they took the lock, which may not be the order
    of their clocks (several processes, a clock set back): the later one then finishes just
    after the other, so the rebuild, which rates in finishing order, rates them in this order
    too."""
    rows = await tx.fetch(
        "SELECT MAX(finished_at) AS at FROM rating_changes WHERE guild_id = ? AND game_id = ? "
        f"AND season_id = ? AND player IN ({marks})",
        (g.guild_id, g.game_id, ALL_TIME, *g.keys),
    )
    last = rows[0]["at"] if rows else None
    if last is None or float(last) < g.finished_at:
        return g
    at = math.nextafter(float(last), math.inf)
    await tx.execute("UPDATE results SET finished_at = ? WHERE session_id = ?", (at, g.session_id))
    return replace(g, finished_at=at)


async def rebuild(tx: Tx) -> int:
    """Every rating (and highest level) again from the results, in the order the games
    finished, in memory with the same steps as :func:`rate_session`, then written back in
    batches; returns how many games were rated."""
    for table in ("rating_changes", "ratings", "levels"):
        await tx.execute(f"DELETE FROM {table}")
    rows = await tx.fetch(
        f"SELECT {RESULT_COLUMNS} FROM results WHERE guild_id IS NOT NULL "
        "ORDER BY finished_at, session_id, user_id"
    )
    ratings: dict[tuple[int, int, str, str], tuple[Rating, int]] = {}
    levels: dict[tuple[int, int, str, str], tuple[int, int]] = {}
    changes: list[tuple[Any, ...]] = []
    rated = start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end]["session_id"] == rows[start]["session_id"]:
            end += 1
        g = _game(rows[start:end])
        start = end
        if g is None:
            continue
        if g.cooperative:
            for season in g.seasons:
                for user, level in g.levels.items():
                    best, games = levels.get((g.guild_id, season, g.game_id, user), (level, 0))
                    levels[(g.guild_id, season, g.game_id, user)] = (max(best, level), games + 1)
            continue
        if len(g.seats) < 2:
            continue
        rated += 1
        for season in g.seasons:
            where = (g.guild_id, season, g.game_id)
            before = {k: ratings.get((*where, k), (Rating(), 0))[0] for k in g.keys}
            after = rate_game(g.seats, before)
            for key in g.keys:
                ratings[(*where, key)] = (
                    after[key],
                    ratings.get((*where, key), (Rating(), 0))[1] + 1,
                )
                changes.append(_change_row(g, season, key, before[key], after[key]))
    await _insert_many(
        tx,
        "ratings (guild_id, season_id, game_id, player, mu, sigma, ordinal, games)",
        [(*k, r.mu, r.sigma, r.ordinal, n) for k, (r, n) in ratings.items()],
    )
    await _insert_many(
        tx,
        "levels (guild_id, season_id, game_id, player, level, games)",
        [(*k, level, n) for k, (level, n) in levels.items()],
    )
    await _insert_many(tx, f"rating_changes ({CHANGE_COLUMNS})", changes)
    return rated


async def _insert_many(tx: Tx, into: str, rows: list[tuple[Any, ...]]) -> None:
    for first in range(0, len(rows), BATCH):
        batch = rows[first : first + BATCH]
        marks = ", ".join("(" + ", ".join("?" for _ in row) + ")" for row in batch)
        await tx.execute(f"INSERT INTO {into} VALUES {marks}", [v for row in batch for v in row])


async def backfill(tx: Tx) -> None:
    """Migration 9: the results stored before it rate their user (a bot seat: its level as
    "normal"), and every rating is built from them."""
    users = await tx.fetch("SELECT DISTINCT user_id FROM results")
    for row in users:
        user_id = str(row["user_id"])
        await tx.execute(
            "UPDATE results SET rated_as = ? WHERE user_id = ?", (rated_as(user_id), user_id)
        )
    await rebuild(tx)


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
        "SELECT game_id, player, level, games FROM levels WHERE guild_id = ? AND season_id = ? "
        "ORDER BY game_id, level DESC, games DESC, player",
        (guild_id, season_id),
    )
    for r in cleared:
        lines = levels.setdefault(str(r["game_id"]), [])
        if len(lines) < limit:
            lines.append([str(r["player"]), int(r["level"]), int(r["games"])])
    names: dict[str, str] = {}
    for player in {p[0] for lines in [*games.values(), *levels.values()] for p in lines}:
        found = await tx.fetch(
            "SELECT name FROM players WHERE user_id = ? ORDER BY session_id DESC LIMIT 1",
            (player,),
        )
        names[player] = str(found[0]["name"]) if found else player
    return {"ratings": games, "levels": levels, "names": names}
