"""The automatic phases: setup, customers arrive (1), shift change (2), feed your people (4)."""

from __future__ import annotations

from dataclasses import dataclass
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
from games.cube_cafe.state import Board, Car, CubeCafeOptions, CubeCafeState, assign
from games.engine import PlayerId
from games.kit import replace
from games.rng import Rng


@dataclass
class Arrivals:
    """Phases 1 and 2 of a round, for the announcement."""

    round: int
    dice: list[Staff]
    cars: dict[PlayerId, Colour | None]  # None: the bag was empty
    vip: str | None


@dataclass
class Feeding:
    """Phase 4 of one restaurant, for the announcement."""

    money: int  # the tips of the meals
    meals: list[str]  # in words, as the announcement shows them: "table 2 ★4 $5"
    left: list[str]  # who left unfed, in words
    thrown: list[Colour]  # cubes off the Cold counter
    forfeited: int  # staff lost by the phase clock
    timed_out: bool


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
    round_no = state.round
    cars: dict[PlayerId, Colour | None] = {}
    car_bag = state.car_bag
    if round_no >= FIRST_CAR_ROUND:
        for pid in state.players:
            colour = None
            if car_bag and state.boards[pid].drive[0] is None:
                colour, car_bag = car_bag[-1], car_bag[:-1]
            cars[pid] = colour
    vip = state.vips[VIP_ROUNDS.index(round_no)] if round_no in VIP_ROUNDS else None
    dice = [state.rng.choice(die) for die in DICE]
    assign(state, {"car_bag": car_bag, "dice": dice})
    staff = in_staff_order(list(dice))
    for pid, board in state.boards.items():
        # Every hand is empty between rounds (phase 4 empties it; setup deals none): the staff
        # held and recruited this round are the dice.
        changes: dict[str, Any] = {"hand": list(staff), "recruited": list(staff)}
        colour = cars.get(pid)
        if colour is not None:
            changes["drive"] = [Car(colour=colour, satisfaction=3), *board.drive[1:]]
        if vip is not None:
            queue = [vip, *board.queue]
            if len(queue) > QUEUE_SPOTS:  # the last regular customer in line goes home
                last = max(i for i, g in enumerate(queue) if g == GUEST)
                del queue[last]
            changes["queue"] = queue
        assign(board, changes)
    # (state.dice is never changed in place: the announcement may share it)
    return Arrivals(round=round_no, dice=dice, cars=cars, vip=vip)


def feed(state: CubeCafeState, board: Board) -> tuple[Board, Feeding]:
    """Phase 4 for one restaurant: eat and tip, impatience, food advances, tidy up. The board
    after it, and what happened; cars and plates go back to the state's bags (its own lists)."""
    meals: list[str] = []
    left: list[str] = []
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
            meals.append(f"table {index + 1} ★{table.satisfaction} ${tip_money}")
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
                left.append(f"table {index + 1}" + _vip_words(guest))
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
            meals.append(f"{3 - index}★ car ★{car.satisfaction} ${tip_money}")
            money += tip_money
            menu[car.cube] += 1
            state.car_bag.append(car.colour)
            drive[index] = None
    cars: list[Car] = []
    for car in drive:
        if car is None:
            continue
        if car.satisfaction - 1 < CAR_LEAVES_BELOW:
            left.append(f"the {car.colour} car")
            state.car_bag.append(car.colour)
        else:
            cars.append(replace(car, {"satisfaction": car.satisfaction - 1}))
    # Food advances; what sat on the Cold counter is thrown out, back to the menu.
    for cube in board.cold:
        menu[cube] += 1
    for plate in board.dishwasher:
        if plate is not None:
            returned_plates.append(plate)
    state.plate_bag.extend(returned_plates)
    report = Feeding(
        money=money - board.money,
        meals=meals,
        left=left,
        thrown=board.cold,  # (a list that is never changed in place: shared, not copied)
        forfeited=len(board.forfeited) if board.timed_out else 0,
        timed_out=board.timed_out,
    )
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
    money: dict[PlayerId, int] = {}  # the progress chart's new row
    for pid in state.players:
        board, reports[pid] = feed(state, state.boards[pid])
        boards[pid] = board
        money[pid] = board.money
    # Returned plates and cars are mixed into their bags.
    state.rng.shuffle(plate_bag)
    state.rng.shuffle(car_bag)
    changes: dict[str, Any] = {
        "boards": boards,
        "progress": [*state.progress, money],
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
