"""The automatic phases: setup, customers arrive (1), shift change (2), feed your people (4)."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    tip,
)
from games.cube_cafe.state import Board, Car, CubeCafeOptions, CubeCafeState
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
        return sum(m.money for m in self.meals)


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


def start_round(state: CubeCafeState) -> Arrivals:
    """Phases 1 and 2: cars (round 4 on) and the round's VIP arrive; the dice are rolled."""
    arrivals = Arrivals(round=state.round, dice=[])
    for pid in state.players:
        board = state.boards[pid]
        if state.round >= FIRST_CAR_ROUND:
            colour = state.car_bag.pop() if state.car_bag and board.drive[0] is None else None
            if colour is not None:
                board.drive[0] = Car(colour=colour, satisfaction=3)
            arrivals.cars[pid] = colour
    if state.round in VIP_ROUNDS:
        vip = state.vips[VIP_ROUNDS.index(state.round)]
        arrivals.vip = vip
        for board in state.boards.values():
            queue = [vip, *board.queue]
            if len(queue) > QUEUE_SPOTS:  # the last regular customer in line goes home
                last = max(i for i, g in enumerate(queue) if g == GUEST)
                del queue[last]
            board.queue = queue
    state.dice = [state.rng.choice(die) for die in DICE]
    arrivals.dice = list(state.dice)
    for board in state.boards.values():
        for staff in state.dice:
            board.add_staff(staff)
    return arrivals


def feed(state: CubeCafeState, board: Board) -> Feeding:
    """Phase 4 for one restaurant: eat and tip, impatience, food advances, tidy up."""
    report = Feeding(forfeited=len(board.forfeited) if board.timed_out else 0)
    report.timed_out = board.timed_out
    returned_plates: list[Colour] = []
    # Customers with food eat, tip and leave; the plate stays, dirty.
    for number, table in enumerate(board.tables, start=1):
        if table.guest is not None and table.cube is not None:
            money = tip(table.guest, table.satisfaction)
            report.meals.append(Meal(f"table {number}", table.guest, table.satisfaction, money))
            board.money += money
            board.menu[table.cube] += 1
            table.cube, table.guest, table.satisfaction, table.dirty = None, None, 0, True
    for index, car in enumerate(board.drive):
        if car is not None and car.cube is not None:
            money = tip(GUEST, car.satisfaction)
            where = f"{3 - index}★ car"
            report.meals.append(Meal(where, GUEST, car.satisfaction, money))
            board.money += money
            board.menu[car.cube] += 1
            state.car_bag.append(car.colour)
            board.drive[index] = None
    # Everyone still waiting grows impatient.
    baby = board.seated(BABY)
    for number, table in enumerate(board.tables, start=1):
        if table.guest is None:
            continue
        loss = 2 if table.guest == TYCOON else 1
        if baby and table.guest != BABY:
            loss += 1
        table.satisfaction -= loss
        if table.satisfaction < GUEST_LEAVES_BELOW:
            report.left.append(f"table {number}" + _vip_words(table.guest))
            if table.plate is not None:
                returned_plates.append(table.plate)
            table.guest, table.plate, table.satisfaction = None, None, 0
    cars: list[Car] = []
    for car in board.drive:
        if car is None:
            continue
        car.satisfaction -= 1
        if car.satisfaction < CAR_LEAVES_BELOW:
            report.left.append(f"the {car.colour} car")
            state.car_bag.append(car.colour)
        else:
            cars.append(car)
    # Waiting cars move one slot on, towards the exit (3★ → 2★).
    # (an unserved car is always at 3 in the 3★ slot and at 2 in the 2★ slot, so only the 3★
    # car can stay)
    board.drive = [None, None, *cars][-2:]
    # Food advances; what sat on the Cold counter is thrown out, back to the menu.
    report.thrown = list(board.cold)
    for cube in board.cold:
        board.menu[cube] += 1
    board.cold, board.hot, board.grill = board.hot, board.grill, []
    for table in board.tables:
        table.refill = False
    board.queue = board.queue + [GUEST] * (QUEUE_SPOTS - len(board.queue))
    returned_plates += [p for p in board.dishwasher if p is not None]
    board.dishwasher = [None] * len(DISHWASHER)
    state.plate_bag += returned_plates
    board.hand, board.recruited, board.spent, board.forfeited, board.pending = [], [], [], [], []
    board.paid = []
    board.done = board.timed_out = False
    board.notes = []
    return report


def end_round(state: CubeCafeState) -> dict[PlayerId, Feeding]:
    """Phase 4 for everyone, the progress chart, then the next round or the end."""
    reports = {pid: feed(state, state.boards[pid]) for pid in state.players}
    # Returned plates and cars are mixed into their bags.
    state.rng.shuffle(state.plate_bag)
    state.rng.shuffle(state.car_bag)
    state.progress.append({pid: state.boards[pid].money for pid in state.players})
    state.dice = []
    if state.round >= ROUNDS:
        state.over = True
    else:
        state.round += 1
    return reports


def _vip_words(guest: str) -> str:
    return f" ({VIPS[guest].name})" if guest in VIPS else ""
