"""Options, actions and the state of Monster Café (pydantic; JSON round-trips exactly).

States are copy-on-write: a move builds a new state with :func:`games.kit.evolve` and shares every
container it does not change with the old one, so no list or model inside a state is ever
mutated in place once the state exists.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.engine import GameState, PlayerId
from games.kit import timer_field
from games.monster_cafe.catalogue import COLLECTABLE_KINDS, MONSTER_KIND, SEATS_PER_TABLE, SORBET

LOG_LENGTH = 3  # the latest events kept in the state: all of them are shown on the table


class MonsterCafeOptions(BaseModel):
    turn_timeout: int = timer_field(
        86400, "How long a player has for a turn before the bot plays it for them."
    )


# -- actions -------------------------------------------------------------------------------------
# Frozen, so legal_actions can hand out shared instances. ``auto`` marks a move the bot played for
# a player whose clock ran out (it is announced); it plays no part in legality.


class Draw(BaseModel):
    """Reveal the top monster (then seat it, or pick the sorbet's victims)."""

    model_config = ConfigDict(frozen=True)
    type: Literal["draw"] = "draw"
    auto: bool = False


class Seat(BaseModel):
    """Seat the drawn monster at a table with a free seat."""

    model_config = ConfigDict(frozen=True)
    type: Literal["seat"] = "seat"
    table: str  # the table card id, e.g. "T05"
    auto: bool = False


class Clear(BaseModel):
    """Ask to clear a table: the first of two taps, so a misclick cannot end your round."""

    model_config = ConfigDict(frozen=True)
    type: Literal["ask_clear"] = "ask_clear"
    table: str
    auto: bool = False


class ConfirmClear(BaseModel):
    """Take the table asked for: the only move that ends a player's round. Its wire name is
    "clear", the one-step clear logged before the two-tap confirm existed, which it still is
    when no clear was asked (so games logged before replay exactly; panels always ask first)."""

    model_config = ConfigDict(frozen=True)
    type: Literal["clear"] = "clear"
    table: str
    auto: bool = False


class CancelClear(BaseModel):
    """Take the request back; the turn goes on as before it."""

    model_config = ConfigDict(frozen=True)
    type: Literal["cancel_clear"] = "cancel_clear"
    auto: bool = False


class Sorbet(BaseModel):
    """The drawn Lemon Sorbet scares off every monster of this kind in your collection."""

    model_config = ConfigDict(frozen=True)
    type: Literal["sorbet"] = "sorbet"
    kind: str  # the monster kind to discard, e.g. "brain" or "anything"
    auto: bool = False


Move = Draw | Seat | Clear | ConfirmClear | CancelClear | Sorbet
Action = Annotated[Move, Field(discriminator="type")]
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
    log: list[str] = Field(default_factory=list)  # the latest LOG_LENGTH events, newest last
    # The table the current player asked to clear, awaiting their confirmation.
    clearing: str | None = None
    # Every player's score at the end of each round so far (the end-of-game chart).
    round_scores: list[dict[PlayerId, int]] = Field(default_factory=list)
    # What the bot played for the current player since their clock ran out, announced in one
    # message when their turn ends.
    auto_moves: list[str] = Field(default_factory=list)

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
        done = {t.player for t in self.taken}
        return [p for p in self.players if p not in done]

    def is_last(self, player: PlayerId) -> bool:
        return self.remaining() == [player]

    def table(self, card: str) -> Table | None:
        for table in self.tables:
            if table.card == card:
                return table
        return None

    def seatable(self) -> list[Table]:
        return [t for t in self.tables if len(t.seats) < SEATS_PER_TABLE]

    def clearable(self) -> list[Table]:
        """Tables that may be cleared: with a monster, or any table once the deck is empty."""
        if not self.deck:
            return list(self.tables)
        return [t for t in self.tables if t.seats]

    def can_draw(self) -> bool:
        return bool(self.deck) and any(len(t.seats) < SEATS_PER_TABLE for t in self.tables)

    def drawn_is_sorbet(self) -> bool:
        return self.drawn is not None and MONSTER_KIND[self.drawn] == SORBET
