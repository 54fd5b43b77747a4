"""The moves of Alien Café."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from games.alien_cafe.tiles import TileType


class LevelAction(BaseModel):
    """Levels phase: play this round at ``level`` (0–4) and be ready."""

    type: Literal["level"] = "level"
    level: int = Field(ge=0, le=4)


class HoldAction(BaseModel):
    """Pick up a tile of your hand or tray as the cursor (None: hold nothing)."""

    type: Literal["hold"] = "hold"
    tile: str | None = None


class PlaceAction(BaseModel):
    """Put a tile from your hand on an empty cell (0–15, row-major)."""

    type: Literal["place"] = "place"
    tile: str
    cell: int = Field(ge=0, le=15)


class MoveAction(BaseModel):
    """Move a tile of your tray to another cell; onto a tile, the two swap."""

    type: Literal["move"] = "move"
    tile: str
    cell: int = Field(ge=0, le=15)


class TakeBackAction(BaseModel):
    """Take a tile of your tray back to your hand."""

    type: Literal["take_back"] = "take_back"
    tile: str


class DrawAction(BaseModel):
    """Draw a tile from the red (aliens) or blue (orders) bag."""

    type: Literal["draw"] = "draw"
    bag: Literal["red", "blue"]


class GiveAction(BaseModel):
    """Give a (non-special) tile from your hand to another player who is not done."""

    type: Literal["give"] = "give"
    tile: str
    to: str


class DeclareAction(BaseModel):
    """Say what a Joker on your tray is ("auto": let the bot pick the best)."""

    type: Literal["declare"] = "declare"
    tile: str
    as_type: TileType | Literal["auto"]


class DoneAction(BaseModel):
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
    | DoneAction
)
ActionUnion = Annotated[Action, Field(discriminator="type")]
action_adapter: TypeAdapter[Action] = TypeAdapter(ActionUnion)
