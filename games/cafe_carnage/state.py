"""Options, actions and state of Café Carnage (all pydantic, JSON round-trips exactly)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from games import kit
from games.cafe_carnage.catalogue import DISH_VALUE, ActionKind, Course
from games.engine import GameState, PlayerId


class CafeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    no_repeats: bool = Field(
        default=False,
        description="Advanced variant: no dish twice in a week. A dish you already ate may only "
        "be picked when all of that course on your menu were eaten (0 GP, still costs its price).",
    )
    turn_timeout: int = kit.timer_field(
        kit.DAY,
        "How long the table waits for each player's order; then the cheapest dishes and Each "
        "Pay Separately (else Split, else RUN!) are played for them.",
    )


# -- actions --------------------------------------------------------------------------------------


class Pick(BaseModel):
    """Keep this dish from your menu (its course is the card's); changeable until you confirm."""

    model_config = ConfigDict(frozen=True)
    type: Literal["pick"] = "pick"
    card: str


class Play(BaseModel):
    """Put this action card from your hand face down as your ballot (changeable until confirmed)."""

    model_config = ConfigDict(frozen=True)
    type: Literal["play"] = "play"
    card: str


class Confirm(BaseModel):
    """Lock in your three dishes and your action card."""

    model_config = ConfigDict(frozen=True)
    type: Literal["confirm"] = "confirm"


class AutoPlay(BaseModel):
    """The deadline passed: fill in what is missing with the default choices and confirm."""

    model_config = ConfigDict(frozen=True)
    type: Literal["auto"] = "auto"


CafeAction = Pick | Play | Confirm | AutoPlay
Action = Annotated[CafeAction, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[CafeAction] = TypeAdapter(Action)


# -- public records -------------------------------------------------------------------------------

Role = Literal["stayed", "escaped", "caught"]
Verdict = Literal["split", "separate", "tie", "nobody"]


class PlayerRound(BaseModel):
    """One player's round. What can be worked out from it is a property, not stored twice."""

    dishes: list[str]  # the names of the starter, main and dessert eaten (no card ids: they recur)
    gp_gained: int  # from the meal (a repeat under no_repeats gives 0)
    role: Role
    owed: int  # what this player had to pay this round
    iou_draws: int  # $5 IOUs taken this round (each −5 GP)
    budget_after: int
    gp_after: int

    @field_validator("dishes", mode="before")
    @classmethod
    def _dish_names(cls, dishes: Any) -> Any:
        """States stored before copy-on-write kept each dish as {course, name, value, gp}."""
        if isinstance(dishes, list):
            return [d["name"] if isinstance(d, dict) else d for d in dishes]
        return dishes

    @property
    def meal(self) -> int:
        """The meal's $ value."""
        return sum(DISH_VALUE[name] for name in self.dishes)


class RoundRecord(BaseModel):
    """What the table saw in one round. Ballots only as an anonymous tally."""

    round: int
    players: dict[PlayerId, PlayerRound]  # in seat order
    split_votes: int
    separate_votes: int
    auto_played: list[PlayerId]

    def _in(self, *roles: Role) -> list[PlayerRound]:
        return [pr for pr in self.players.values() if pr.role in roles]

    @property
    def runners_total(self) -> int:
        """The $ of all runners' meals."""
        return sum(pr.meal for pr in self._in("escaped", "caught"))

    @property
    def caught_share(self) -> int:
        """What each caught runner paid (0 when nobody was caught)."""
        return next((pr.owed for pr in self._in("caught")), 0)

    @property
    def verdict(self) -> Verdict:
        if not self._in("stayed"):
            return "nobody"
        if self.split_votes != self.separate_votes:
            return "split" if self.split_votes > self.separate_votes else "separate"
        return "tie"

    @property
    def split_share(self) -> int:
        """Each remaining player's share under a split, else 0."""
        return self._in("stayed")[0].owed if self.verdict == "split" else 0

    @property
    def unpaid(self) -> int:
        """The $ of meals the restaurant lost: escaped runners' when nobody was caught and the
        others did not split the bill."""
        if self._in("caught") or self.verdict == "split":
            return 0
        return sum(pr.meal for pr in self._in("escaped"))


class Standing(BaseModel):
    player: PlayerId
    rank: int
    gp_before_bonus: int
    bonus: int
    gp: int
    budget: int
    iou: bool


# -- state ----------------------------------------------------------------------------------------


class CafeState(GameState):
    options: CafeOptions
    round: int = 1  # 1..5; stays 5 once the game is over
    over: bool = False
    # Dish cards: every card is in exactly one place — a deck, an eaten pile or a menu.
    decks: dict[Course, list[str]]  # index 0 is the top
    eaten: dict[Course, list[str]]  # eaten in earlier rounds (shuffled back on a refill)
    menus: dict[PlayerId, dict[Course, list[str]]]  # this round's menus (secret)
    picks: dict[PlayerId, dict[Course, str]]  # chosen dishes (secret until the reveal)
    # Action cards: in a hand, counted in the ballot discard pile, or a discarded RUN!.
    hands: dict[PlayerId, list[str]]
    played: dict[PlayerId, str]  # the chosen card, still in hand until the reveal (secret)
    confirmed: list[PlayerId] = Field(default_factory=list)
    auto_played: list[PlayerId] = Field(default_factory=list)  # this round
    ballot_discard: dict[ActionKind, int] = Field(default_factory=dict)  # counts only, no owners
    run_discarded: list[PlayerId] = Field(default_factory=list)  # public: escaped once
    # Money and points (public).
    budget: dict[PlayerId, int]
    supply: int
    gp: dict[PlayerId, int]
    iou_draws: dict[PlayerId, int]  # > 0: holds an IOU for the rest of the game
    # Who ate what is in ``history`` (older states also stored it as ``eaten_by``: ignored).
    history: list[RoundRecord] = Field(default_factory=list)
    standings: list[Standing] = Field(default_factory=list)  # once over
