"""Standings: the win board (from the totals kept with the results), a player's record, the
ratings, levels and seasons; and the steps a game's last move takes to record its results.
"""

from __future__ import annotations

import time
from typing import Any

from bot.core.errors import NotAllowed
from bot.core.store import rating_sql
from bot.core.store.core import Record, StoreCore, Tx
from bot.core.store.rows import (
    LevelLine,
    NewPost,
    NewResult,
    RatingChange,
    RatingLine,
    SeasonRow,
    StatRow,
    row_of,
)


class Standings(StoreCore):
    """Boards, records, ratings and seasons."""

    async def leaderboard(
        self, guild_id: int, game_id: str | None = None, limit: int = 10
    ) -> list[StatRow]:
        """The server's best players (of one game, or of all): most wins, then the best win
        rate, then the most games. Read from the totals kept with the results, in the order of
        their index: what aggregating the server's results would give, without reading them."""
        rows = await self._read(
            "SELECT user_id AS stat_key, games, wins, best, score_sum, cooperative "
            "FROM result_totals WHERE guild_id = ? AND game_id = ? "
            f"ORDER BY {TOTALS_ORDER} LIMIT ?",
            (guild_id, ALL_GAMES if game_id is None else game_id, limit),
        )
        return [_totals_row(r) for r in rows]

    async def player_record(
        self, guild_id: int, user_id: str, game_id: str | None = None
    ) -> list[StatRow]:
        """One player's results in the server, per game (most played first), aggregated over
        the results' covering index (a player's rows are few)."""
        game = "AND game_id = ? " if game_id is not None else ""
        args: tuple[Any, ...] = (guild_id, user_id) + ((game_id,) if game_id is not None else ())
        rows = await self._read(
            f"SELECT game_id AS stat_key, {_AGGREGATES} FROM results "
            f"WHERE guild_id = ? AND user_id = ? {game}"
            "GROUP BY game_id ORDER BY COUNT(*) DESC, game_id",
            args,
        )
        return [_stat_row(r) for r in rows]

    # -- ratings and seasons ---------------------------------------------------------------------
    async def rating_board(
        self, guild_id: int, game_id: str, season_id: int, limit: int = 10
    ) -> list[RatingLine]:
        """A game's best rated players of the server (in a season, or 0: all time), by
        ordinal (one read of the ratings_board index)."""
        rows = await self._read(
            "SELECT player, mu, sigma, ordinal, games FROM ratings WHERE guild_id = ? "
            "AND season_id = ? AND game_id = ? AND games > 0 "
            "ORDER BY ordinal DESC, player LIMIT ?",
            (guild_id, season_id, game_id, limit),
        )
        return [row_of(RatingLine, r) for r in rows]

    async def rating_history(
        self, guild_id: int, game_id: str, player: str, season_id: int, limit: int = 10
    ) -> list[RatingChange]:
        """A player's latest rating changes in a game, newest first."""
        rows = await self._read(
            "SELECT session_id, mu_before, sigma_before, mu, sigma, finished_at "
            "FROM rating_changes WHERE guild_id = ? AND game_id = ? AND player = ? "
            "AND season_id = ? ORDER BY finished_at DESC, session_id DESC LIMIT ?",
            (guild_id, game_id, player, season_id, limit),
        )
        return [row_of(RatingChange, r) for r in rows]

    async def rating_of(
        self, guild_id: int, game_id: str, player: str, season_id: int
    ) -> RatingLine | None:
        row = await self._one(
            "SELECT player, mu, sigma, ordinal, games FROM ratings WHERE guild_id = ? "
            "AND season_id = ? AND game_id = ? AND player = ?",
            (guild_id, season_id, game_id, player),
        )
        return row_of(RatingLine, row) if row else None

    async def level_board(
        self, guild_id: int, game_id: str, season_id: int, limit: int = 10
    ) -> list[LevelLine]:
        """A cooperative game's board: the highest level each player cleared (in a season, or
        0: all time)."""
        rows = await self._read(
            "SELECT player, level, games FROM levels WHERE guild_id = ? AND season_id = ? "
            "AND game_id = ? ORDER BY level DESC, games DESC, player LIMIT ?",
            (guild_id, season_id, game_id, limit),
        )
        return [row_of(LevelLine, r) for r in rows]

    async def rebuild_ratings(self) -> int:
        """Every rating, and the win totals, again from the results; returns how many games
        were rated."""
        async with self._transaction() as tx:
            await _refill_totals(tx)
            return await rating_sql.rebuild(tx)

    async def open_season(self, guild_id: int) -> SeasonRow | None:
        row = await self._one(
            "SELECT * FROM seasons WHERE guild_id = ? AND ended_at IS NULL", (guild_id,)
        )
        return row_of(SeasonRow, row) if row else None

    async def last_season(self, guild_id: int) -> SeasonRow | None:
        row = await self._one(
            "SELECT * FROM seasons WHERE guild_id = ? ORDER BY id DESC LIMIT 1", (guild_id,)
        )
        return row_of(SeasonRow, row) if row else None

    async def start_season(self, guild_id: int, name: str, started_by: str) -> SeasonRow:
        """A new season (refused while one is open in the server)."""
        try:
            async with self._transaction() as tx:
                rows = await tx.fetch(
                    "INSERT INTO seasons (guild_id, name, started_by, started_at) "
                    "VALUES (?, ?, ?, ?) RETURNING *",
                    (guild_id, name, started_by, time.time()),
                )
        except self._conflicts:
            raise NotAllowed(
                "A season is already running here: `/game season end` ends it first."
            ) from None
        return row_of(SeasonRow, rows[0])

    async def end_season(
        self, guild_id: int, channel_id: int
    ) -> tuple[SeasonRow, int | None] | None:
        """End the server's open season (None: there was none) and, in the same transaction,
        put its final table in the outbox, to be posted in ``channel_id`` once (a crash before
        it is sent sends it after the restart). The outbox is per session: the post goes with
        the server's latest game (of that channel if any); returned with the season (None: the
        server never played, there is nothing to post)."""
        async with self._transaction() as tx:
            rows = await tx.fetch(
                "UPDATE seasons SET ended_at = ? WHERE guild_id = ? AND ended_at IS NULL "
                "RETURNING *",
                (time.time(), guild_id),
            )
            if not rows:
                return None
            season = row_of(SeasonRow, rows[0])
            anchor = await tx.fetch(
                "SELECT id FROM sessions WHERE guild_id = ? "
                "ORDER BY (channel_id = ?) DESC, id DESC LIMIT 1",
                (guild_id, channel_id),
            )
            if not anchor:
                return season, None
            session_id = int(anchor[0]["id"])
            final = await rating_sql.season_table(tx, guild_id, season.id)
            final["name"] = season.name
            await self._insert_posts(
                tx, session_id, [NewPost({"season": final}, target=f"channel:{channel_id}")]
            )
        return season, session_id

    async def games_finished(self, guild_id: int) -> dict[str, int]:
        """How many games of each kind the server finished."""
        rows = await self._read(
            "SELECT game_id, COUNT(*) AS n FROM sessions WHERE guild_id = ? AND status = 'finished' "
            "GROUP BY game_id",
            (guild_id,),
        )
        return {str(r["game_id"]): int(r["n"]) for r in rows}

    async def latest_names(self, user_ids: list[str]) -> dict[str, str]:
        """Each user's name as of their latest game."""
        names: dict[str, str] = {}
        for user_id in user_ids:
            rows = await self._read(
                "SELECT name FROM players WHERE user_id = ? ORDER BY session_id DESC LIMIT 1",
                (user_id,),
            )
            if rows:
                names[user_id] = str(rows[0]["name"])
        return names


_AGGREGATES = (
    "COUNT(*) AS games, SUM(won) AS wins, MAX(score) AS best, AVG(score) AS average, "
    "MAX(cooperative) AS cooperative"
)


# The win board's order (wins, win rate, games, user), as the result_totals_board index has it
# (the same expression, so the index serves the ORDER BY and the LIMIT stops the scan).
TOTALS_ORDER = "wins DESC, 1.0 * wins / games DESC, games DESC, user_id"


ALL_GAMES = "*"  # result_totals' game_id of a player's totals over every game


_TOTALS_COLUMNS = "guild_id, game_id, user_id, games, wins, best, score_sum, cooperative"


# A game's results added to its players' totals: each (server, game, player) and
# (server, '*', player) row created or added to, in user order (PostgreSQL: games ending at
# once lock their players' rows in the same order). A game without a server is on no board.
_ADD_TO_TOTALS = (
    f"INSERT INTO result_totals ({_TOTALS_COLUMNS}) "
    "SELECT guild_id, {game}, user_id, 1, won, score, score, cooperative FROM results "
    "WHERE session_id = ? AND guild_id IS NOT NULL ORDER BY user_id "
    "ON CONFLICT (guild_id, game_id, user_id) DO UPDATE SET "
    "games = result_totals.games + 1, wins = result_totals.wins + excluded.wins, "
    "best = CASE WHEN excluded.best > result_totals.best THEN excluded.best "
    "ELSE result_totals.best END, "
    "score_sum = result_totals.score_sum + excluded.score_sum, "
    "cooperative = CASE WHEN excluded.cooperative > result_totals.cooperative "
    "THEN excluded.cooperative ELSE result_totals.cooperative END"
)


# Every total from the results (migration 10 fills the table with the same statements).
_FILL_TOTALS = (
    f"INSERT INTO result_totals ({_TOTALS_COLUMNS}) "
    "SELECT guild_id, {game}, user_id, COUNT(*), SUM(won), MAX(score), SUM(score), "
    "MAX(cooperative) FROM results WHERE guild_id IS NOT NULL GROUP BY guild_id, {group}user_id"
)


async def add_to_totals(tx: Tx, session_id: int) -> None:
    """The game's results rows (just written) counted in its players' totals."""
    for game in ("game_id", f"'{ALL_GAMES}'"):
        await tx.execute(_ADD_TO_TOTALS.format(game=game), (session_id,))


async def _refill_totals(tx: Tx) -> None:
    """The totals again from the results (rebuild-ratings): they must agree with them."""
    await tx.execute("DELETE FROM result_totals")
    await tx.execute(_FILL_TOTALS.format(game="game_id", group="game_id, "))
    await tx.execute(_FILL_TOTALS.format(game=f"'{ALL_GAMES}'", group=""))


def _totals_row(row: Record) -> StatRow:
    """A leaderboard line from a totals row; the average is the exact quotient, as AVG gives."""
    games = int(row["games"])
    return StatRow(
        key=str(row["stat_key"]),
        games=games,
        wins=int(row["wins"]),
        best=int(row["best"]),
        average=int(row["score_sum"]) / games,
        cooperative=bool(row["cooperative"]),
    )


def _stat_row(row: Record) -> StatRow:
    return StatRow(
        key=str(row["stat_key"]),
        games=int(row["games"]),
        wins=int(row["wins"]),
        best=int(row["best"]),
        average=float(row["average"]),
        cooperative=bool(row["cooperative"]),
    )


async def insert_result(tx: Tx, session_id: int, r: NewResult, finished_at: float) -> None:
    """One player's result, in the season open in the session's server (if any)."""
    await tx.execute(
        "INSERT INTO results (session_id, user_id, guild_id, game_id, score, won, cooperative, "
        "finished_at, rated_as, level, season_id) SELECT id, ?, guild_id, game_id, ?, ?, ?, ?, "
        "?, ?, (SELECT s.id FROM seasons s WHERE s.guild_id = sessions.guild_id "
        "AND s.ended_at IS NULL) FROM sessions WHERE id = ?",
        (
            r.user_id,
            r.score,
            int(r.won),
            int(r.cooperative),
            finished_at,
            r.rated_as,
            r.level,
            session_id,
        ),
    )


def with_ratings(posts: list[NewPost], rated: rating_sql.Changes) -> list[NewPost]:
    """The final post, with each rated player's rating before and after (as ordinals)."""
    if not rated:
        return posts
    changes = {key: [old.ordinal, new.ordinal] for key, (old, new) in rated.items()}
    return [
        NewPost({**p.payload, "result": {**p.payload["result"], "ratings": changes}}, p.target)
        if "result" in p.payload
        else p
        for p in posts
    ]
