"""The components of Cube Café as constants: colours, the wheel, dice, tracks, VIP cards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Colour = Literal["red", "yellow", "green", "blue", "white"]
Staff = Literal["red", "yellow", "green", "blue", "white", "wild"]
Job = Literal["seat", "order", "cook", "serve", "refill"]
Source = Literal["grill", "hot", "cold"]
Reward = Literal["any", "any_or_cash", "wild_or_cash", "copy", "wheel", "refill"]
Bonus = Literal["manager", "plate", "copy", "wheel", "refill"]

COLOURS: tuple[Colour, ...] = ("red", "yellow", "green", "blue", "white")
WILD: Literal["wild"] = "wild"
STAFF: tuple[Staff, ...] = (*COLOURS, WILD)  # also the canonical order of a hand of staff
_STAFF_RANK = {s: i for i, s in enumerate(STAFF)}.__getitem__


def in_staff_order(staff: list[Staff]) -> list[Staff]:
    """Sort ``staff``, a list of the caller's own, in place into the canonical order of a hand
    (:data:`STAFF`), and return it (most moves do this: no second list)."""
    staff.sort(key=_STAFF_RANK)
    return staff


LETTER: dict[str, str] = {
    "red": "R",
    "yellow": "Y",
    "green": "G",
    "blue": "B",
    "white": "W",
    "wild": "★",
}
EMOJI: dict[str, str] = {
    "red": "🟥",
    "yellow": "🟨",
    "green": "🟩",
    "blue": "🟦",
    "white": "⬜",
    "wild": "🌟",
}

ROUNDS = 8
TABLES = 3
QUEUE_SPOTS = 3
GRILL_ROOM = 2
CUBES_PER_COLOUR = 2  # on each player's menu card
PLATES_PER_COLOUR = 8  # 40 plates in the shared bag
CARS_PER_COLOUR = 3  # 15 cars in the shared bag
REFILL_TOKENS = 3
FIRST_CAR_ROUND = 4
DRIVE_SLOTS = (3, 2)  # the drive-thru's slots by their stars: a car arrives at 3★, then moves to 2★
CAR_LEAVES_BELOW = 2
GUEST_LEAVES_BELOW = 1
SEATED_AT = 3  # a regular customer's satisfaction when seated
MAX_SATISFACTION = 5
GUEST = "guest"  # a regular customer (the supply of them is endless)

# The wheel: five fixed slots, the job and the manager steps of each, and the ring of colours that
# turns against them. At rotation r the colour on slot s is RING[(s + r) % 5]; one step
# counter-clockwise is r + 1 (white moves to Seat, red to Take Order).
JOBS: tuple[Job, ...] = ("seat", "order", "cook", "serve", "refill")
JOB_NAME: dict[str, str] = {
    "seat": "Seat / Drive-thru",
    "order": "Take Order",
    "cook": "Cook",
    "serve": "Serve",
    "refill": "Refill",
}
RING: tuple[Colour, ...] = ("blue", "white", "red", "green", "yellow")

# Staff dice: dice 1–5 show the five colours plus a second face of one colour; die 6 a wild face.
DICE: tuple[tuple[Staff, ...], ...] = tuple([(*COLOURS, c) for c in COLOURS] + [(*COLOURS, WILD)])

SOURCE_BONUS: dict[str, int] = {"grill": -1, "hot": +1, "cold": 0}
SOURCE_NAME: dict[str, str] = {"grill": "Grill", "hot": "Hot counter", "cold": "Cold counter"}
SOURCES: tuple[Source, ...] = ("grill", "hot", "cold")

TIPS: dict[int, int] = {0: 0, 1: 1, 2: 2, 3: 3, 4: 5, 5: 8}

MANAGER_SPACES = 8
MANAGER_REWARDS: dict[int, Reward] = {3: "any", 5: "any_or_cash", 7: "wild_or_cash"}
CASH: dict[str, int] = {"any_or_cash": 1, "wild_or_cash": 2}
REWARD_NAME: dict[str, str] = {
    "any": "recruit a staff of any colour",
    "any_or_cash": "recruit a staff of any colour or take $1",
    "wild_or_cash": "recruit a wild staff or take $2",
    "copy": "recruit a copy of a colour you hold",
    "wheel": "turn the wheel to any position",
    "refill": "a free Refill",
}

DISHWASHER: tuple[Bonus, ...] = ("manager", "plate", "copy", "wheel", "refill", "manager")
BONUS_NAME: dict[str, str] = {
    "manager": "manager +3",
    "plate": "recruit the plate's colour",
    "copy": "copy a staff colour",
    "wheel": "turn the wheel",
    "refill": "free Refill",
}
MANAGER_BONUS_STEPS = 3


@dataclass(frozen=True)
class Vip:
    id: str
    name: str
    short: str  # for the picture
    emoji: str
    seated_at: int
    effect: str


VIPS: dict[str, Vip] = {
    v.id: v
    for v in (
        Vip("vip_critic", "Food Critic", "Critic", "🧐", 3, "its tip is doubled"),
        Vip(
            "vip_regular", "The Regular", "Regular", "🙋", 4, "its plate is drawn when it is seated"
        ),
        Vip("vip_birthday", "Birthday Party", "Birthday", "🎂", 3, "every customer served gets +1"),
        Vip("vip_baby", "Crying Baby", "Baby", "👶", 2, "the others seated lose 1 extra a round"),
        Vip("vip_tycoon", "Tycoon", "Tycoon", "🎩", 5, "loses 2 a round; tips $12 at 5"),
    )
}
VIP_ROUNDS = (5, 7)  # the first drawn VIP arrives in round 5, the second in round 7
CRITIC, REGULAR, BIRTHDAY, BABY, TYCOON = VIPS
TYCOON_TOP_TIP = 12


def tip(guest: str, satisfaction: int) -> int:
    """The money a customer (or a car: ``GUEST``) leaves at ``satisfaction``."""
    if guest == TYCOON and satisfaction == MAX_SATISFACTION:
        return TYCOON_TOP_TIP
    money = TIPS[max(0, min(MAX_SATISFACTION, satisfaction))]
    return 2 * money if guest == CRITIC else money


def seated_at(guest: str) -> int:
    return VIPS[guest].seated_at if guest in VIPS else SEATED_AT


def slot_colour(rotation: int, slot: int) -> Colour:
    return RING[(slot + rotation) % len(RING)]


def rotation_with_seat(colour: Colour) -> int:
    """The rotation that puts ``colour`` on the Seat slot."""
    return RING.index(colour)


# A colour in text, with its letter for colour-blind players: "🟥R" (worded once: move labels use
# it on every move).
TAG: dict[str, str] = {s: f"{EMOJI[s]}{LETTER[s]}" for s in EMOJI}


def tag(staff: str) -> str:
    """A colour in text, with its letter for colour-blind players: "🟥R"."""
    return TAG[staff]
