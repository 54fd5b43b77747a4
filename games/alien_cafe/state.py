"""Options and state of an Alien Café table."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from games.alien_cafe.tiles import TileType
from games.engine import GameState

CELLS = 16
SIDE = 4
MAX_ROUNDS = 5
TARGET = 10  # points every player needs for a successful service
WINS_NEEDED = 3
LOSSES_ALLOWED = 3
DEAL_ALIENS = 3
DEAL_ORDERS = 3

TIME_CHOICES: dict[str, JsonValue] = {
    "1 minute": 60,
    "2 minutes": 120,
    "3 minutes (the hourglass)": 180,
    "5 minutes": 300,
    "10 minutes": 600,
    "30 minutes": 1800,
    "1 hour": 3600,
    "24 hours": 86400,
    "7 days": 604800,
}

Phase = Literal["levels", "service", "over"]


class AlienCafeOptions(BaseModel):
    round_time: int = Field(
        180,
        ge=60,
        le=604800,
        description="How long each service lasts (the round timer).",
        json_schema_extra={"choices": TIME_CHOICES},
    )
    level_time: int = Field(
        86400,
        ge=60,
        le=604800,
        description="Time to pick a level before each round; then your previous level is kept.",
        json_schema_extra={"choices": TIME_CHOICES},
    )


def _empty_tray() -> list[str | None]:
    return [None] * CELLS


class Seat(BaseModel):
    """One player's corner of the restaurant."""

    level: int = 0  # the level chosen for this round (kept as the default for the next one)
    ready: bool = False  # level confirmed (levels phase)
    hand: list[str] = Field(default_factory=list)
    tray: list[str | None] = Field(default_factory=lambda: _empty_tray())  # row-major 4×4
    house: list[str] = Field(default_factory=list)  # House Rule tiles: never placed, never in hand
    held: str | None = None  # the UI cursor: a tile of this player's hand or tray
    declared: dict[str, TileType] = Field(default_factory=dict)  # explicit Joker declarations
    done: bool = False
    note: str = ""  # the last private event worth telling this player (no tile ids)


class RoundResult(BaseModel):
    round: int
    scores: dict[str, int]
    levels: dict[str, int]
    success: bool


class AlienCafeState(GameState):
    options: AlienCafeOptions
    phase: Phase = "levels"
    round: int = 1
    red: list[str]  # the red bag (alien tiles); drawn from the end
    blue: list[str]  # the blue bag (order tiles); drawn from the end
    piles: list[list[str]]  # face-down special tiles, piles[0] = level 1 … piles[3] = level 4
    seats: dict[str, Seat]
    results: list[RoundResult] = Field(default_factory=list)

    @property
    def successes(self) -> int:
        return sum(1 for r in self.results if r.success)

    @property
    def failures(self) -> int:
        return sum(1 for r in self.results if not r.success)
