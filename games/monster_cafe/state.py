"""State and actions of Monster Café (pydantic, JSON round-trips exactly)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from games.engine import GameState, PlayerId
from games.monster_cafe.cards import COLLECTABLE_KINDS, MONSTER_KIND, SEATS_PER_TABLE, SORBET
from games.monster_cafe.scoring import Breakdown, score

TIMEOUT_CHOICES: dict[str, int] = {
    "1 min": 60,
    "2 min": 120,
    "5 min": 300,
    "15 min": 900,
    "1 h": 3600,
    "6 h": 21600,
    "24 h": 86400,
    "48 h": 172800,
    "7 days": 604800,
}


class MonsterCafeOptions(BaseModel):
    turn_timeout: int = Field(
        default=86400,
        ge=60,
        le=604800,  # a week, like the other games: a turn a day over a week still works
        description="How long a player has for a turn before the bot plays it for them.",
        json_schema_extra={"choices": {label: secs for label, secs in TIMEOUT_CHOICES.items()}},
    )


# -- actions -------------------------------------------------------------------------------------
# ``auto`` marks a move the bot played for a player whose clock ran out (it is announced); it plays
# no part in legality.


class Draw(BaseModel):
    type: Literal["draw"] = "draw"
    auto: bool = False


class Seat(BaseModel):
    type: Literal["seat"] = "seat"
    table: str  # the table card id, e.g. "T05"
    auto: bool = False


class Clear(BaseModel):
    type: Literal["clear"] = "clear"
    table: str
    auto: bool = False


class Sorbet(BaseModel):
    type: Literal["sorbet"] = "sorbet"
    kind: str  # the monster kind to discard, e.g. "brain" or "anything"
    auto: bool = False


Action = Annotated[Draw | Seat | Clear | Sorbet, Field(discriminator="type")]
action_adapter: TypeAdapter[Action] = TypeAdapter(Action)


# -- state ---------------------------------------------------------------------------------------


class Table(BaseModel):
    slot: str  # "A".."D", stable for the round
    card: str  # table card id
    seats: list[str] = Field(default_factory=list)  # seated monster card ids

    @property
    def free(self) -> int:
        return SEATS_PER_TABLE - len(self.seats)


class Collection(BaseModel):
    monsters: list[str] = Field(default_factory=list)
    tables: list[str] = Field(default_factory=list)

    def kinds(self) -> list[str]:
        """The kinds in the collection, in catalogue order."""
        present = {MONSTER_KIND[c] for c in self.monsters}
        return [k for k in COLLECTABLE_KINDS if k in present]

    def breakdown(self) -> Breakdown:
        return score(self.monsters, self.tables)


class Taken(BaseModel):
    """A table cleared this round."""

    player: PlayerId
    slot: str
    table: str
    monsters: list[str]


class MonsterCafeState(GameState):
    turn_timeout: int = 86400
    deck: list[str]  # monster deck, top card first
    table_deck: list[str]  # table cards not dealt yet
    tables: list[Table] = Field(default_factory=list)  # the tables still in play this round
    collections: dict[PlayerId, Collection]
    discard: list[str] = Field(default_factory=list)  # sorbets and the monsters they scared off
    out_of_play: list[str] = Field(default_factory=list)  # 2-3 players: the removed kinds
    dummy_discard: list[str] = Field(default_factory=list)  # 2 players: leftover tables
    drawn: str | None = None  # a drawn card awaiting its seat (or the sorbet its victim kind)
    round: int = 1
    current: PlayerId | None = None
    turn: int = 0  # counts turns; the clock key
    taken: list[Taken] = Field(default_factory=list)  # this round's clears, in order
    over: bool = False
    log: list[str] = Field(default_factory=list)  # the latest public events, newest last

    # -- derived ---------------------------------------------------------------------------------
    @property
    def tables_per_round(self) -> int:
        return 4 if len(self.players) == 4 else 3

    @property
    def dummy(self) -> bool:
        """Two players: one table each round is a dummy, discarded when both have cleared."""
        return len(self.players) == 2

    def cleared(self) -> list[PlayerId]:
        return [t.player for t in self.taken]

    def remaining(self) -> list[PlayerId]:
        """Players still in this round, in seat order."""
        done = set(self.cleared())
        return [p for p in self.players if p not in done]

    def is_last(self, player: PlayerId) -> bool:
        return self.remaining() == [player]

    def table(self, card: str) -> Table | None:
        return next((t for t in self.tables if t.card == card), None)

    def seatable(self) -> list[Table]:
        return [t for t in self.tables if t.free > 0]

    def clearable(self) -> list[Table]:
        """Tables that may be cleared: with a monster, or any table once the deck is empty."""
        return [t for t in self.tables if t.seats or not self.deck]

    def can_draw(self) -> bool:
        return bool(self.deck) and bool(self.seatable())

    def drawn_is_sorbet(self) -> bool:
        return self.drawn is not None and MONSTER_KIND[self.drawn] == SORBET
