"""Standings: a game's ratings (all time and the server's season), a player's rating history,
a cooperative game's highest levels, and the server's seasons."""

from __future__ import annotations

from bot.core.errors import NotAllowed, NotFound, UserError
from bot.core.ratings import ALL_TIME, is_bot_rating
from bot.core.service.loading import Loading
from bot.core.service.model import RatingBoard, RatingHistory
from bot.core.store import SeasonRow
from games import REGISTRY

SEASON_NAME_MAX = 40


class Standings(Loading):
    """Ratings, levels and seasons, for /game stats and /game season."""

    async def rating_board(self, guild_id: int, game_id: str, limit: int = 10) -> RatingBoard:
        game = REGISTRY.get(game_id)
        if game is None:
            raise NotFound(f"There is no game called {game_id!r}.")
        season = await self.store.open_season(guild_id)
        cooperative = game.cooperative
        board = self.store.level_board if cooperative else self.store.rating_board
        season_lines = await board(guild_id, game_id, season.id, limit) if season else []
        all_time = await board(guild_id, game_id, ALL_TIME, limit)
        keys = {line.player for line in [*season_lines, *all_time]}
        names = await self.store.latest_names(sorted(k for k in keys if not is_bot_rating(k)))
        names.update({k: k for k in keys if is_bot_rating(k)})
        return RatingBoard(game_id, cooperative, season, season_lines, all_time, names)

    async def rating_history(
        self, guild_id: int, game_id: str, user_id: str, limit: int = 10
    ) -> RatingHistory:
        if game_id not in REGISTRY:
            raise NotFound(f"There is no game called {game_id!r}.")
        lines = await self.store.rating_history(guild_id, game_id, user_id, ALL_TIME, limit)
        now = await self.store.rating_of(guild_id, game_id, user_id, ALL_TIME)
        return RatingHistory(game_id, lines, now.games if now else 0, now)

    async def rebuild_ratings(self) -> int:
        """Every rating again from the stored results (``python -m bot rebuild-ratings``)."""
        return await self.store.rebuild_ratings()

    async def open_season(self, guild_id: int) -> SeasonRow | None:
        return await self.store.open_season(guild_id)

    async def start_season(self, guild_id: int, name: str | None, user_id: str) -> SeasonRow:
        name = " ".join((name or "").split())
        if len(name) > SEASON_NAME_MAX:
            raise UserError(f"A season's name has at most {SEASON_NAME_MAX} characters.")
        if not name:
            name = _next_name(await self.store.last_season(guild_id))
        return await self.store.start_season(guild_id, name, user_id)

    async def end_season(self, guild_id: int, channel_id: int) -> SeasonRow:
        """End the server's season; its final table is posted once in ``channel_id``."""
        ended = await self.store.end_season(guild_id, channel_id)
        if ended is None:
            raise NotAllowed("No season is running here: `/game season start` begins one.")
        season, carrier = ended
        if carrier is not None:
            # Post it now; the change awaits no bot seat.
            self._changed(carrier, frozenset(), timers=False, awaited_robots=frozenset())
        return season


def _next_name(last: SeasonRow | None) -> str:
    return "Season 1" if last is None else f"Season {_number(last.name) + 1}"


def _number(name: str) -> int:
    tail = name.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 1
