"""Options and state of Cube Café (pydantic, JSON round-trips exactly)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from games import kit
from games.cube_cafe.catalogue import (
    COLOURS,
    CUBES_PER_COLOUR,
    DISHWASHER,
    GUEST,
    QUEUE_SPOTS,
    TABLES,
    VIP_ROUNDS,
    Colour,
    Reward,
    Staff,
    slot_colour,
)
from games.engine import GameState, PlayerId


class CubeCafeOptions(BaseModel):
    phase_timeout: int = kit.timer_field(
        kit.DAY,
        "How long everyone has to assign their staff each round; an absent player's remaining "
        "staff are then forfeited.",
    )


class Table(BaseModel):
    guest: str | None = None  # GUEST or a VIP card id
    satisfaction: int = 0
    plate: Colour | None = None  # the order (clean) or a dirty plate left after a meal
    dirty: bool = False
    cube: Colour | None = None  # served food, eaten in phase 4
    refill: bool = False  # this round's refill token (one per customer per round)

    @property
    def free(self) -> bool:
        return self.guest is None and self.plate is None

    @property
    def waiting(self) -> bool:
        """Seated and not served yet (impatience applies)."""
        return self.guest is not None and self.cube is None


class Car(BaseModel):
    colour: Colour
    satisfaction: int = 3
    cube: Colour | None = None


def _empty_drive() -> list[Car | None]:
    return [None, None]  # the 3★ and 2★ slots


def _empty_dishwasher() -> list[Colour | None]:
    return [None] * len(DISHWASHER)


class Board(BaseModel):
    """One player's restaurant."""

    money: int = 0
    queue: list[str] = Field(default_factory=lambda: [GUEST] * QUEUE_SPOTS)  # front first
    tables: list[Table] = Field(default_factory=lambda: [Table() for _ in range(TABLES)])
    drive: list[Car | None] = Field(default_factory=_empty_drive)  # the 3★ and 2★ slots
    menu: dict[Colour, int] = Field(
        default_factory=lambda: dict.fromkeys(COLOURS, CUBES_PER_COLOUR)
    )
    grill: list[Colour] = Field(default_factory=list)
    hot: list[Colour] = Field(default_factory=list)
    cold: list[Colour] = Field(default_factory=list)
    rotation: int = 0
    manager: int = 0
    dishwasher: list[Colour | None] = Field(default_factory=_empty_dishwasher)
    # Staff of this round: recruited = spent + hand + forfeited (as multisets).
    hand: list[Staff] = Field(default_factory=list)
    recruited: list[Staff] = Field(default_factory=list)
    spent: list[Staff] = Field(default_factory=list)
    forfeited: list[Staff] = Field(default_factory=list)
    pending: list[Reward] = Field(default_factory=list)  # rewards to choose, first first
    # Manager reward spaces that paid this round: each pays once a round, or a loop of 8 spaces
    # moved 4 at a time would pay more staff than it costs, without end.
    paid: list[int] = Field(default_factory=list)
    done: bool = False
    timed_out: bool = False
    notes: list[str] = Field(default_factory=list)  # this round's moves, newest last

    def colour_at(self, slot: int) -> Colour:
        return slot_colour(self.rotation, slot)

    def track(self, source: str) -> list[Colour]:
        return {"grill": self.grill, "hot": self.hot, "cold": self.cold}[source]

    def seated(self, guest: str) -> bool:
        return any(t.guest == guest for t in self.tables)

    def cubes(self) -> dict[Colour, int]:
        """Where each colour's cubes are, counted: menu, prep track, plates, cars."""
        count = dict(self.menu)
        for cube in self.grill + self.hot + self.cold:
            count[cube] += 1
        for table in self.tables:
            if table.cube is not None:
                count[table.cube] += 1
        for car in self.drive:
            if car is not None and car.cube is not None:
                count[car.cube] += 1
        return count

    def customers(self) -> int:
        """Customers still in the restaurant: at tables and in cars (the tie-break)."""
        # Counted in plain loops: the ranking asks for every player at every round's end.
        count = 0
        for table in self.tables:
            if table.guest is not None:
                count += 1
        for car in self.drive:
            if car is not None:
                count += 1
        return count


class CubeCafeState(GameState):
    options: CubeCafeOptions = Field(default_factory=CubeCafeOptions)
    round: int = 1
    over: bool = False
    vips: list[str]  # the two VIP cards drawn at setup, for rounds 5 and 7 (face down till then)
    dice: list[Staff] = Field(default_factory=list)  # this round's roll
    plate_bag: list[Colour]  # shuffled; drawn from the end
    car_bag: list[Colour]
    boards: dict[PlayerId, Board]
    progress: list[dict[str, int]] = Field(default_factory=list)  # money after each round

    def revealed_vips(self) -> list[str]:
        return [v for v, r in zip(self.vips, VIP_ROUNDS, strict=True) if self.round >= r]


def assign(model: BaseModel, changes: dict[str, Any]) -> None:
    """Set fields of a model that nothing else holds yet (one a move has just made), as plain
    assignments would (unvalidated, like :func:`games.kit.replace`), without pydantic's cost per
    assignment."""
    model.__dict__.update(changes)
