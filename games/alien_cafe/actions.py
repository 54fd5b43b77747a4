"""The moves of Alien Café, and ready-made instances of them for the legal-move lists.

Actions are frozen, so one instance can be shared by every list that offers it: listing a few
hundred legal moves is then a matter of looking them up instead of validating new models.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.alien_cafe.catalogue import TILES, TYPES, TileType


class _Move(BaseModel):
    model_config = ConfigDict(frozen=True)


class LevelAction(_Move):
    """Levels phase: play this round at ``level`` (0–4) and be ready."""

    type: Literal["level"] = "level"
    level: int = Field(ge=0, le=4)


class HoldAction(_Move):
    """Pick up a tile of your hand or tray as the cursor (None: hold nothing)."""

    type: Literal["hold"] = "hold"
    tile: str | None = None


class PlaceAction(_Move):
    """Put a tile from your hand on an empty cell (0–15, row-major)."""

    type: Literal["place"] = "place"
    tile: str
    cell: int = Field(ge=0, le=15)


class MoveAction(_Move):
    """Move a tile of your tray to another cell; onto a tile, the two swap."""

    type: Literal["move"] = "move"
    tile: str
    cell: int = Field(ge=0, le=15)


class TakeBackAction(_Move):
    """Take a tile of your tray back to your hand."""

    type: Literal["take_back"] = "take_back"
    tile: str


class DrawAction(_Move):
    """Draw a tile from the red (aliens) or blue (orders) bag."""

    type: Literal["draw"] = "draw"
    bag: Literal["red", "blue"]


class GiveAction(_Move):
    """Give a (non-special) tile from your hand to another player who is not done."""

    type: Literal["give"] = "give"
    tile: str
    to: str


class DeclareAction(_Move):
    """Say what a Joker on your tray is ("auto": let the bot pick the best)."""

    type: Literal["declare"] = "declare"
    tile: str
    as_type: TileType | Literal["auto"]


class RequestAction(_Move):
    """Ask the table for a tile type ("need 🟢👽"); it replaces your open request."""

    type: Literal["request"] = "request"
    want: TileType


class OfferAction(_Move):
    """Offer a (non-special) tile of your hand to the others; it replaces your open offer. The
    table shows its type only."""

    type: Literal["offer"] = "offer"
    tile: str


class WithdrawAction(_Move):
    """Withdraw your open request or offer."""

    type: Literal["withdraw"] = "withdraw"
    what: Literal["request", "offer"]


class DoneAction(_Move):
    """Stop for this round: your tray is locked until the scoring."""

    type: Literal["done"] = "done"


Action = (
    LevelAction
    | HoldAction
    | PlaceAction
    | MoveAction
    | TakeBackAction
    | DrawAction
    | GiveAction
    | DeclareAction
    | RequestAction
    | OfferAction
    | WithdrawAction
    | DoneAction
)
ActionUnion = Annotated[Action, Field(discriminator="type")]
action_adapter: TypeAdapter[Action] = TypeAdapter(ActionUnion)

# -- shared instances ------------------------------------------------------------------------------
_PLAYABLE = [t for t in TILES if TILES[t].kind != "house"]
LEVELS: tuple[LevelAction, ...] = tuple(LevelAction(level=n) for n in range(5))
HOLD_NOTHING = HoldAction(tile=None)
HOLD: dict[str, HoldAction] = {t: HoldAction(tile=t) for t in _PLAYABLE}
PLACE: dict[str, tuple[PlaceAction, ...]] = {
    t: tuple(PlaceAction(tile=t, cell=c) for c in range(16)) for t in _PLAYABLE
}
MOVE: dict[str, tuple[MoveAction, ...]] = {
    t: tuple(MoveAction(tile=t, cell=c) for c in range(16)) for t in _PLAYABLE
}
# MOVES_FROM[tile][cell]: every move of ``tile`` standing on ``cell`` (to the 15 other cells).
MOVES_FROM: dict[str, tuple[tuple[MoveAction, ...], ...]] = {
    t: tuple(moves[:c] + moves[c + 1 :] for c in range(16)) for t, moves in MOVE.items()
}
TAKE_BACK: dict[str, TakeBackAction] = {t: TakeBackAction(tile=t) for t in _PLAYABLE}
DECLARE: dict[tuple[str, str], DeclareAction] = {
    (t, ty): DeclareAction(tile=t, as_type=ty)
    for t in _PLAYABLE
    if TILES[t].joker
    for ty in (*TYPES, "auto")
}
DRAW_RED, DRAW_BLUE = DrawAction(bag="red"), DrawAction(bag="blue")
REQUEST: dict[TileType, RequestAction] = {t: RequestAction(want=t) for t in TYPES}
OFFER: dict[str, OfferAction] = {t: OfferAction(tile=t) for t in _PLAYABLE if not TILES[t].special}
WITHDRAW_REQUEST, WITHDRAW_OFFER = WithdrawAction(what="request"), WithdrawAction(what="offer")
DONE = DoneAction()
GIVEABLE: frozenset[str] = frozenset(OFFER)  # the tiles that may change hands
_gives: dict[str, dict[str, GiveAction]] = {}


def gives_to(receiver: str) -> dict[str, GiveAction]:
    """The shared GiveActions to ``receiver``, by tile (player ids are only known at play time,
    so these are made on first use)."""
    table = _gives.get(receiver)
    if table is None:
        if len(_gives) > 1000:  # many tables over a long uptime: start afresh
            _gives.clear()
        table = _gives[receiver] = {t: GiveAction(tile=t, to=receiver) for t in GIVEABLE}
    return table


def give(tile: str, to: str) -> GiveAction:
    return gives_to(to)[tile]
