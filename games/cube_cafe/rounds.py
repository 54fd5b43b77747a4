"""The automatic phases: setup, customers arrive (1), shift change (2), feed your people (4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.cube_cafe.catalogue import (
    BABY,
    CAR_LEAVES_BELOW,
    CARS_PER_COLOUR,
    COLOURS,
    DICE,
    DISHWASHER,
    FIRST_CAR_ROUND,
    GUEST,
    GUEST_LEAVES_BELOW,
    PLATES_PER_COLOUR,
    QUEUE_SPOTS,
    ROUNDS,
    TYCOON,
    VIP_ROUNDS,
    VIPS,
    Colour,
    Staff,
    in_staff_order,
    tip,
)
from games.cube_cafe.state import Board, Car, CubeCafeOptions, CubeCafeState, assign, replace
from games.engine import PlayerId
from games.rng import Rng


@dataclass
class Arrivals:
    """Phases 1 and 2 of a round, for the announcement."""

    round: int
    dice: list[Staff]
    cars: dict[PlayerId, Colour | None] = field(default_factory=dict)  # None: the bag was empty
    vip: str | None = None


@dataclass
class Meal:
    where: str  # "table 2" or "3★ car"
    guest: str
    satisfaction: int
    money: int


@dataclass
class Feeding:
    """Phase 4 of one restaurant, for the announcement."""

    meals: list[Meal] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # who left unfed, in words
    thrown: list[Colour] = field(default_factory=list)  # cubes off the Cold counter
    forfeited: int = 0  # staff lost by the phase clock
    timed_out: bool = False

    @property
    def money(self) -> int:
        return sum([m.money for m in self.meals])


def new_state(players: list[PlayerId], options: CubeCafeOptions, seed: int) -> CubeCafeState:
    rng = Rng(seed=seed)
    vips = rng.sample(list(VIPS), len(VIP_ROUNDS))
    plate_bag: list[Colour] = [c for c in COLOURS for _ in range(PLATES_PER_COLOUR)]
    car_bag: list[Colour] = [c for c in COLOURS for _ in range(CARS_PER_COLOUR)]
    rng.shuffle(plate_bag)
    rng.shuffle(car_bag)
    return CubeCafeState(
        players=list(players),
        rng=rng,
        options=options,
        vips=vips,
        plate_bag=plate_bag,
        car_bag=car_bag,
        boards={p: Board() for p in players},
    )


# Copy-on-write: the state these functions get is the move's own (see
# ``CubeCafe.apply_action``), generator included, but its lists, dicts and boards are shared with
# the state before the move: they replace them, never change one in place.


def start_round(state: CubeCafeState) -> Arrivals:
    """Phases 1 and 2: cars (round 4 on) and the round's VIP arrive; the dice are rolled. The
    state and its boards are the caller's own (new at setup, or just made by :func:`end_round`):
    their fields are set, not copied."""
    arrivals = Arrivals(round=state.round, dice=[])
    car_bag = state.car_bag
    if state.round >= FIRST_CAR_ROUND:
        for pid in state.players:
            colour = None
            if car_bag and state.boards[pid].drive[0] is None:
                colour, car_bag = car_bag[-1], car_bag[:-1]
            arrivals.cars[pid] = colour
    if state.round in VIP_ROUNDS:
        arrivals.vip = state.vips[VIP_ROUNDS.index(state.round)]
    dice = [state.rng.choice(die) for die in DICE]
    arrivals.dice = list(dice)
    assign(state, {"car_bag": car_bag, "dice": dice})
    staff = in_staff_order(list(dice))
    for pid, board in state.boards.items():
        changes: dict[str, Any] = {
            "hand": _with_staff(board.hand, staff),
            "recruited": _with_staff(board.recruited, staff),
        }
        colour = arrivals.cars.get(pid)
        if colour is not None:
            changes["drive"] = [Car(colour=colour, satisfaction=3), *board.drive[1:]]
        if arrivals.vip is not None:
            queue = [arrivals.vip, *board.queue]
            if len(queue) > QUEUE_SPOTS:  # the last regular customer in line goes home
                last = max(i for i, g in enumerate(queue) if g == GUEST)
                del queue[last]
            changes["queue"] = queue
        assign(board, changes)
    return arrivals


def _with_staff(held: list[Staff], staff: list[Staff]) -> list[Staff]:
    """``held`` and ``staff`` (in order already) together, in order: a list of its own."""
    return in_staff_order([*held, *staff]) if held else list(staff)  # nobody holds staff yet


def feed(state: CubeCafeState, board: Board) -> tuple[Board, Feeding]:
    """Phase 4 for one restaurant: eat and tip, impatience, food advances, tidy up. The board
    after it, and what happened; cars and plates go back to the state's bags (its own lists)."""
    report = Feeding(forfeited=len(board.forfeited) if board.timed_out else 0)
    report.timed_out = board.timed_out
    returned_plates: list[Colour] = []
    money = board.money
    menu = dict(board.menu)
    tables = list(board.tables)
    drive = list(board.drive)
    # Customers with food eat, tip and leave; the plate stays, dirty. Everyone still waiting grows
    # impatient. Every table's refill token comes back. (One pass over the tables: each table
    # is replaced at most once.)
    baby = False  # a crying baby still waiting (one that ate has left)
    for table in tables:
        if table.guest == BABY and table.cube is None:
            baby = True
    for index, table in enumerate(tables):
        guest = table.guest
        if guest is None:
            if table.refill:
                tables[index] = replace(table, {"refill": False})
        elif table.cube is not None:
            tip_money = tip(guest, table.satisfaction)
            meal = Meal(f"table {index + 1}", guest, table.satisfaction, tip_money)
            report.meals.append(meal)
            money += tip_money
            menu[table.cube] += 1
            tables[index] = replace(
                table,
                {"cube": None, "guest": None, "satisfaction": 0, "dirty": True, "refill": False},
            )
        else:
            loss = 2 if guest == TYCOON else 1
            if baby and guest != BABY:
                loss += 1
            satisfaction = table.satisfaction - loss
            if satisfaction < GUEST_LEAVES_BELOW:
                report.left.append(f"table {index + 1}" + _vip_words(guest))
                if table.plate is not None:
                    returned_plates.append(table.plate)
                tables[index] = replace(
                    table, {"guest": None, "plate": None, "satisfaction": 0, "refill": False}
                )
            else:
                tables[index] = replace(table, {"satisfaction": satisfaction, "refill": False})
    for index, car in enumerate(drive):
        if car is not None and car.cube is not None:
            tip_money = tip(GUEST, car.satisfaction)
            where = f"{3 - index}★ car"
            report.meals.append(Meal(where, GUEST, car.satisfaction, tip_money))
            money += tip_money
            menu[car.cube] += 1
            state.car_bag.append(car.colour)
            drive[index] = None
    cars: list[Car] = []
    for car in drive:
        if car is None:
            continue
        if car.satisfaction - 1 < CAR_LEAVES_BELOW:
            report.left.append(f"the {car.colour} car")
            state.car_bag.append(car.colour)
        else:
            cars.append(replace(car, {"satisfaction": car.satisfaction - 1}))
    # Food advances; what sat on the Cold counter is thrown out, back to the menu.
    report.thrown = list(board.cold)
    for cube in board.cold:
        menu[cube] += 1
    for plate in board.dishwasher:
        if plate is not None:
            returned_plates.append(plate)
    state.plate_bag.extend(returned_plates)
    board = replace(
        board,
        {
            "money": money,
            "menu": menu,
            "tables": tables,
            # Waiting cars move one slot on, towards the exit (3★ → 2★).
            # (an unserved car is always at 3 in the 3★ slot and at 2 in the 2★ slot, so only the
            # 3★ car can stay)
            "drive": [None, None, *cars][-2:],
            "cold": board.hot,
            "hot": board.grill,
            "grill": [],
            "queue": board.queue + [GUEST] * (QUEUE_SPOTS - len(board.queue)),
            "dishwasher": [None] * len(DISHWASHER),
            "hand": [],
            "recruited": [],
            "spent": [],
            "forfeited": [],
            "pending": [],
            "paid": [],
            "done": False,
            "timed_out": False,
            "notes": [],
        },
    )
    return board, report


def end_round(state: CubeCafeState) -> dict[PlayerId, Feeding]:
    """Phase 4 for everyone, the progress chart, then the next round or the end. The state is
    the caller's own (its fields are set), but not its lists, dicts and boards."""
    plate_bag, car_bag = list(state.plate_bag), list(state.car_bag)
    assign(state, {"plate_bag": plate_bag, "car_bag": car_bag})  # feed returns plates and cars
    boards: dict[PlayerId, Board] = {}
    reports: dict[PlayerId, Feeding] = {}
    for pid in state.players:
        boards[pid], reports[pid] = feed(state, state.boards[pid])
    # Returned plates and cars are mixed into their bags.
    state.rng.shuffle(plate_bag)
    state.rng.shuffle(car_bag)
    changes: dict[str, Any] = {
        "boards": boards,
        "progress": [*state.progress, {pid: boards[pid].money for pid in state.players}],
        "dice": [],
    }
    if state.round >= ROUNDS:
        changes["over"] = True
    else:
        changes["round"] = state.round + 1
    assign(state, changes)
    return reports


def _vip_words(guest: str) -> str:
    return f" ({VIPS[guest].name})" if guest in VIPS else ""
