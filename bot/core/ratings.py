"""Ratings: who plays whom, in what order they finished, and the new ratings (OpenSkill's
Plackett–Luce model, which rates 2–8 players and ties in one game).

Pure: the store calls :func:`rate_game` with the ratings it read in the transaction of the
move that ends the game, and the rebuild (``python -m bot rebuild-ratings``) calls it with
the same inputs in the same order, so both agree exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from bot.core.seats import is_robot

MODEL = PlackettLuce()
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3
ALL_TIME = 0  # the season id of the all-time ratings
ROBOT = "🤖 "  # a bot seat is rated by its level, as "🤖 <level>"


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def ordinal(self) -> float:
        """What the leaderboard ranks by: a cautious estimate (mu − 3σ)."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Placed:
    """One seat of a finished game, as the results row keeps it."""

    rated_as: str  # a user id, or "🤖 <level>"
    score: int
    won: bool


def rated_as(user_id: str, level: str | None = None) -> str:
    """Who a seat's result rates: the user, or a bot seat's level ("🤖 normal" when the seat
    has none), so every bot of one level shares one rating ("you vs hard bots")."""
    if is_robot(user_id):
        return f"{ROBOT}{level or 'normal'}"
    return user_id


def is_bot_rating(key: str) -> bool:
    return key.startswith(ROBOT)


def ranks(seats: Sequence[Placed]) -> list[int]:
    """Each seat's place (0 = first) as the game scored it: the winners first, then by score;
    seats equal on both tie."""
    keys = [(not s.won, -s.score) for s in seats]
    ordered = sorted(set(keys))
    return [ordered.index(k) for k in keys]


def rate_game(seats: Sequence[Placed], before: Mapping[str, Rating]) -> dict[str, Rating]:
    """The new rating of every key seated in the game. Seats of one key (two normal bots)
    are rated as separate players from that key's rating, then averaged."""
    if len(seats) < 2:
        return {}
    teams = [
        [MODEL.rating(mu=before[s.rated_as].mu, sigma=before[s.rated_as].sigma)] for s in seats
    ]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks(seats)])
    sums: dict[str, list[Rating]] = {}
    for seat, team in zip(seats, rated, strict=True):
        sums.setdefault(seat.rated_as, []).append(Rating(team[0].mu, team[0].sigma))
    return {
        key: Rating(sum(r.mu for r in got) / len(got), sum(r.sigma for r in got) / len(got))
        for key, got in sums.items()
    }
