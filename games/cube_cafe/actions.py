"""The moves of Cube Café. Staff moves name the staff meeple spent (a colour or "wild")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from games.cube_cafe.catalogue import Colour, Source, Staff


class Seat(BaseModel):
    """Seat the front customer of the queue at an empty table (slot 0)."""

    type: Literal["seat"] = "seat"
    staff: Staff
    table: int


class Drive(BaseModel):
    """Hand a cube of the car's colour to the car in the 3★ or 2★ slot (slot 0)."""

    type: Literal["drive"] = "drive"
    staff: Staff
    stars: int


class Order(BaseModel):
    """Draw a plate (the order) for a seated customer without one (slot 1)."""

    type: Literal["order"] = "order"
    staff: Staff
    table: int


class Cook(BaseModel):
    """A cube of the Cook slot's colour from the menu to the Grill (slot 2)."""

    type: Literal["cook"] = "cook"
    staff: Staff


class Serve(BaseModel):
    """A cube from the prep track onto a customer's empty plate (slot 3)."""

    type: Literal["serve"] = "serve"
    staff: Staff
    source: Source
    cube: Colour
    table: int


class Refill(BaseModel):
    """A refill token on a seated customer's table: +1 (slot 4)."""

    type: Literal["refill"] = "refill"
    staff: Staff
    table: int


class Manager(BaseModel):
    """Instead of a slot's job, move the manager by the slot's number (1–4)."""

    type: Literal["manager"] = "manager"
    staff: Staff
    slot: int


class Rotate(BaseModel):
    """Any staff turns the wheel one step: ccw moves every colour to the previous slot."""

    type: Literal["rotate"] = "rotate"
    staff: Staff
    direction: Literal["ccw", "cw"]


class Bus(BaseModel):
    """Free: a dirty plate to an empty dishwasher space (1–6), taking its bonus."""

    type: Literal["bus"] = "bus"
    table: int
    space: int


class Recruit(BaseModel):
    """Take a pending reward as a staff meeple."""

    type: Literal["recruit"] = "recruit"
    staff: Staff


class Cash(BaseModel):
    """Take a pending reward as money ($1 at manager space 5, $2 at space 7)."""

    type: Literal["cash"] = "cash"


class Wheel(BaseModel):
    """The dishwasher's bonus: turn the wheel so ``seat`` faces the Seat slot."""

    type: Literal["wheel"] = "wheel"
    seat: Colour


class FreeRefill(BaseModel):
    """The dishwasher's bonus: a Refill without spending staff."""

    type: Literal["free_refill"] = "free_refill"
    table: int


class Done(BaseModel):
    """Finished for this round; the remaining staff are lost. ``timed_out``: the phase clock ran
    out (played by the bot; any pending reward is lost too)."""

    type: Literal["done"] = "done"
    timed_out: bool = False


StaffMove = Seat | Drive | Order | Cook | Serve | Refill | Manager | Rotate
Action = StaffMove | Bus | Recruit | Cash | Wheel | FreeRefill | Done
ActionUnion = Annotated[Action, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(ActionUnion)
SLOT_OF: dict[type[BaseModel], int] = {
    Seat: 0,
    Drive: 0,
    Order: 1,
    Cook: 2,
    Serve: 3,
    Refill: 4,
}
