"""Options and state of an Alien Café table (copy-on-write: see :func:`games.kit.evolve`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from games.alien_cafe.catalogue import TileType
from games.engine import GameState
from games.kit import MINUTE, timer_field

CELLS = 16
SIDE = 4
MAX_ROUNDS = 5
TARGET = 10  # points every player needs for a successful service
WINS_NEEDED = 3
LOSSES_ALLOWED = 3
DEAL_ALIENS = 3
DEAL_ORDERS = 3

Phase = Literal["levels", "service", "over"]


class AlienCafeOptions(BaseModel):
    round_time: int = timer_field(3 * MINUTE, "How long each service lasts (the round timer).")
    level_time: int = timer_field(
        2 * MINUTE,
        "Time to pick a level before each round; then your previous level is kept.",
    )


def _empty_tray() -> list[str | None]:
    return [None] * CELLS


class Seat(BaseModel):
    """One player's corner of the restaurant."""

    level: int = 0  # the level chosen for this round (kept as the default for the next one)
    ready: bool = False  # level confirmed (levels phase)
    hand: list[str] = Field(default_factory=list)
    tray: list[str | None] = Field(default_factory=_empty_tray)  # row-major 4×4
    house: list[str] = Field(default_factory=list)  # House Rule tiles: never placed, never in hand
    held: str | None = None  # the UI cursor: a tile of this player's hand or tray
    declared: dict[str, TileType] = Field(default_factory=dict)  # explicit Joker declarations
    done: bool = False
    note: str = ""  # the last private event worth telling this player (no tile ids)
    request: TileType | None = None  # "need 🟢👽", shown on the table until met or withdrawn
    offer: str | None = None  # a hand tile offered to the others (the table shows its type only)


class RoundResult(BaseModel):
    round: int
    scores: dict[str, int]
    levels: dict[str, int]
    success: bool


class TrayRecord(BaseModel):
    """One player's tray as the last service ended (for the results picture; not in views, since
    the tiles went back to the bags)."""

    tray: list[str | None]
    jokers: dict[str, TileType] = Field(default_factory=dict)  # every placed Joker's final type
    house: list[str] = Field(default_factory=list)
    in_hand: int = 0


class AlienCafeState(GameState):
    options: AlienCafeOptions
    phase: Phase = "levels"
    round: int = 1
    red: list[str]  # the red bag (alien tiles); drawn from the end
    blue: list[str]  # the blue bag (order tiles); drawn from the end
    piles: list[list[str]]  # face-down special tiles, piles[0] = level 1 … piles[3] = level 4
    seats: dict[str, Seat]
    results: list[RoundResult] = Field(default_factory=list)
    last_trays: dict[str, TrayRecord] = Field(default_factory=dict)  # the last service's trays

    @property
    def successes(self) -> int:
        return sum(1 for r in self.results if r.success)

    @property
    def failures(self) -> int:
        return sum(1 for r in self.results if not r.success)
