"""Options, actions and state of Café Carnage (all pydantic, JSON round-trips exactly)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.cafe_carnage.cards import ActionKind, Course
from games.engine import GameState, PlayerId

DAY = 86400

TIMEOUT_CHOICES: dict[str, int] = {
    "2 min": 120,
    "5 min": 300,
    "15 min": 900,
    "1 h": 3600,
    "6 h": 6 * 3600,
    "24 h": DAY,
    "48 h": 2 * DAY,
}


class CafeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    no_repeats: bool = Field(
        default=False,
        description="Advanced variant: a dish you already ate in an earlier round gives 0 GP "
        "(it still costs its price). Menus mark such dishes.",
    )
    turn_timeout: int = Field(
        default=DAY,
        ge=60,
        le=7 * DAY,
        description="How long the table waits for each player's order; then the cheapest dishes "
        "and Each Pay Separately (else Split, else RUN!) are played for them.",
        json_schema_extra={"choices": TIMEOUT_CHOICES},  # type: ignore[dict-item]
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


Action = Annotated[Pick | Play | Confirm | AutoPlay, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[Pick | Play | Confirm | AutoPlay] = TypeAdapter(Action)


# -- public records -------------------------------------------------------------------------------

Role = Literal["stayed", "escaped", "caught"]
Verdict = Literal["split", "separate", "tie", "nobody"]


class DishRecord(BaseModel):
    """A dish eaten (public after the reveal). No card id: eaten cards may be dealt again."""

    course: Course
    name: str
    value: int
    gp: int  # 0 under no_repeats when already eaten before


class PlayerRound(BaseModel):
    dishes: list[DishRecord]
    meal: int  # $ value of the meal
    gp_gained: int  # from the meal
    role: Role
    owed: int  # what this player had to pay this round
    iou_draws: int  # $5 IOUs taken this round (each −5 GP)
    budget_after: int
    gp_after: int


class RoundRecord(BaseModel):
    """What the table saw in one round. Ballots only as an anonymous tally."""

    round: int
    players: dict[PlayerId, PlayerRound]
    runners_total: int  # the $ of all runners' meals
    caught_share: int  # what each caught runner paid (0 when nobody was caught)
    split_votes: int
    separate_votes: int
    verdict: Verdict
    split_share: int  # each remaining player's share under a split, else 0
    unpaid: int  # $ of meals the restaurant lost
    auto_played: list[PlayerId]


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
    eaten_by: dict[PlayerId, list[str]]  # dish names each player has eaten (public)
    history: list[RoundRecord] = Field(default_factory=list)
    standings: list[Standing] = Field(default_factory=list)  # once over
