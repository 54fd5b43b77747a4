"""Phase 3, assign jobs: which moves are legal (with the reason when not) and what they do."""

from __future__ import annotations

from typing import Any, TypeVar

from games.cube_cafe.actions import (
    SLOT_OF,
    Action,
    Bus,
    Cash,
    Cook,
    Done,
    Drive,
    FreeRefill,
    Manager,
    Order,
    Recruit,
    Refill,
    Rotate,
    Seat,
    Serve,
    StaffMove,
    Wheel,
)
from games.cube_cafe.catalogue import (
    BIRTHDAY,
    CASH,
    COLOURS,
    DISHWASHER,
    DRIVE_SLOTS,
    GRILL_ROOM,
    JOB_NAME,
    JOBS,
    MANAGER_BONUS_STEPS,
    MANAGER_REWARDS,
    MANAGER_SPACES,
    MAX_SATISFACTION,
    REGULAR,
    REWARD_NAME,
    RING,
    SOURCE_BONUS,
    SOURCE_NAME,
    SOURCES,
    STAFF,
    TABLES,
    WILD,
    Colour,
    Source,
    Staff,
    rotation_with_seat,
    seated_at,
)
from games.cube_cafe.state import Board, CubeCafeState, Table
from games.engine import PlayerId
from games.kit import evolve

T = TypeVar("T")

REWARD_MOVES = (Recruit, Cash, Wheel, FreeRefill)


# -- legality ------------------------------------------------------------------------------------


def problem(state: CubeCafeState, pid: PlayerId, action: Action) -> str | None:
    """Why ``action`` is not allowed for ``pid`` now (None when it is)."""
    board = state.boards[pid]
    if state.over:
        return "The game is over."
    if board.done:
        return "You've said done for this round — wait for the others."
    if isinstance(action, Done):
        if board.pending and not action.timed_out:
            return f"First choose your reward: {_reward_words(board)}."
        return None
    if board.pending:
        if not isinstance(action, REWARD_MOVES):
            return f"First choose your reward: {_reward_words(board)}."
        return _reward_problem(board, action)
    if isinstance(action, REWARD_MOVES):
        return "You have no reward to choose right now."
    if isinstance(action, Bus):
        return _bus_problem(board, action)
    return _staff_problem(state, board, action)


def _reward_words(board: Board) -> str:
    return REWARD_NAME[board.pending[0]]


def _reward_problem(board: Board, action: Recruit | Cash | Wheel | FreeRefill) -> str | None:
    reward = board.pending[0]
    wrong = f"Choose your reward: {_reward_words(board)}."
    if isinstance(action, Cash):
        return None if reward in CASH else "This reward can't be taken as money."
    if isinstance(action, Recruit):
        if reward in ("any", "any_or_cash"):
            return None if action.staff != WILD else "This reward recruits a colour, not a wild."
        if reward == "wild_or_cash":
            return None if action.staff == WILD else "This reward recruits a wild staff."
        if reward == "copy":
            if action.staff == WILD or action.staff not in board.hand:
                return "Copy a colour of a staff meeple you hold."
            return None
        return wrong
    if isinstance(action, Wheel):
        return None if reward == "wheel" else wrong
    if reward != "refill":
        return wrong
    return _refill_problem(board, action.table)


def _bus_problem(board: Board, action: Bus) -> str | None:
    table = _table(board, action.table)
    if table is None:
        return f"There are only {TABLES} tables."
    if table.plate is None or not table.dirty:
        return f"There's no dirty plate on table {action.table}."
    if not 1 <= action.space <= len(DISHWASHER):
        return f"The dishwasher has spaces 1–{len(DISHWASHER)}."
    if board.dishwasher[action.space - 1] is not None:
        return "That dishwasher space is taken — pick an empty one."
    return None


def _staff_problem(state: CubeCafeState, board: Board, action: StaffMove) -> str | None:
    if action.staff not in board.hand:
        return f"You have no {action.staff} staff left this round."
    if isinstance(action, Rotate):
        return None
    slot = action.slot if isinstance(action, Manager) else SLOT_OF[type(action)]
    if isinstance(action, Manager) and not 1 <= slot <= len(JOBS) - 1:
        return "The manager moves by a slot's number: pick a slot numbered 1–4."
    colour = board.colour_at(slot)
    if action.staff not in (colour, WILD):
        job = JOB_NAME[JOBS[slot]]
        return (
            f"{job} takes a {colour} staff now (the colour facing it) or a wild — "
            "turn the wheel first."
        )
    if isinstance(action, Manager):
        return None
    if isinstance(action, Seat):
        table = _table(board, action.table)
        if table is None:
            return f"There are only {TABLES} tables."
        if not board.queue:
            return "Nobody is waiting in your queue."
        if not table.free:
            return "That table isn't empty — bus its dirty plate first, or pick another."
        return None
    if isinstance(action, Drive):
        return _drive_problem(board, action, colour)
    if isinstance(action, Order):
        table = _table(board, action.table)
        if table is None:
            return f"There are only {TABLES} tables."
        if table.guest is None:
            return f"Nobody is seated at table {action.table}."
        if table.plate is not None:
            return "That customer has ordered already."
        if not state.plate_bag:
            return "The plate bag is empty: no order can be taken right now."
        return None
    if isinstance(action, Cook):
        if len(board.grill) >= GRILL_ROOM:
            return f"The Grill holds {GRILL_ROOM} cubes — serve or wait for it to clear."
        if board.menu[colour] == 0:
            return f"Your menu has no {colour} cube left."
        return None
    if isinstance(action, Serve):
        return _serve_problem(board, action)
    return _refill_problem(board, action.table)


def _drive_problem(board: Board, action: Drive, colour: Colour) -> str | None:
    if action.stars not in DRIVE_SLOTS:
        return "The drive-thru has a 3★ and a 2★ slot."
    car = board.drive[DRIVE_SLOTS.index(action.stars)]
    if car is None:
        return f"There's no car in the {action.stars}★ slot."
    if car.cube is not None:
        return "That car has its food already."
    if car.colour != colour:
        return f"The car is {car.colour}: the Drive-thru slot must show {car.colour} first."
    if board.menu[car.colour] == 0:
        return f"Your menu has no {car.colour} cube left."
    return None


def _serve_problem(board: Board, action: Serve) -> str | None:
    if action.cube not in board.track(action.source):
        return f"There's no {action.cube} cube on the {SOURCE_NAME[action.source]}."
    table = _table(board, action.table)
    if table is None:
        return f"There are only {TABLES} tables."
    if table.guest is None:
        return f"Nobody is seated at table {action.table}."
    if table.plate is None:
        return "Take that customer's order first."
    if table.cube is not None:
        return "That customer has been served already."
    return None


def _refill_problem(board: Board, number: int) -> str | None:
    table = _table(board, number)
    if table is None:
        return f"There are only {TABLES} tables."
    if table.guest is None:
        return f"Nobody is seated at table {number}."
    if table.refill:
        return "That customer has had this round's refill (one per customer per round)."
    return None


def _table(board: Board, number: int) -> Table | None:
    return board.tables[number - 1] if 1 <= number <= TABLES else None


# -- legal moves ---------------------------------------------------------------------------------


def legal_actions(state: CubeCafeState, pid: PlayerId) -> list[Action]:
    """Every legal move of ``pid`` now, in a fixed order (a Done last)."""
    board = state.boards[pid]
    if state.over or board.done:
        return []
    candidates = _reward_candidates(board) if board.pending else _candidates(board)
    moves = [a for a in candidates if problem(state, pid, a) is None]
    return [*moves, Done()] if not board.pending else moves


def usable_staff(board: Board, slot: int) -> list[Staff]:
    """The staff in hand that may work ``slot``: its colour, then a wild."""
    colour = board.colour_at(slot)
    return [s for s in (colour, WILD) if s in board.hand]


def _reward_candidates(board: Board) -> list[Action]:
    reward = board.pending[0]
    if reward == "wheel":
        return [Wheel(seat=c) for c in RING]
    if reward == "refill":
        return [FreeRefill(table=n) for n in range(1, TABLES + 1)]
    moves: list[Action] = [Recruit(staff=s) for s in STAFF]
    return [*moves, Cash()]


def _candidates(board: Board) -> list[Action]:
    tables = range(1, TABLES + 1)
    moves: list[Action] = []
    for staff in usable_staff(board, 0):
        moves += [Seat(staff=staff, table=t) for t in tables]
        moves += [Drive(staff=staff, stars=s) for s in DRIVE_SLOTS]
    for staff in usable_staff(board, 1):
        moves += [Order(staff=staff, table=t) for t in tables]
    moves += [Cook(staff=staff) for staff in usable_staff(board, 2)]
    cubes = [(src, c) for src in SOURCES for c in sorted(set(board.track(src)), key=COLOURS.index)]
    for staff in usable_staff(board, 3):
        moves += [Serve(staff=staff, source=s, cube=c, table=t) for s, c in cubes for t in tables]
    for staff in usable_staff(board, 4):
        moves += [Refill(staff=staff, table=t) for t in tables]
    for slot in range(1, len(JOBS)):
        moves += [Manager(staff=staff, slot=slot) for staff in usable_staff(board, slot)]
    for staff in sorted(set(board.hand), key=STAFF.index):
        moves += [Rotate(staff=staff, direction=d) for d in ("ccw", "cw")]
    for number, table in enumerate(board.tables, start=1):
        if table.dirty:
            moves += [Bus(table=number, space=s) for s in range(1, len(DISHWASHER) + 1)]
    return moves


# -- applying a move -----------------------------------------------------------------------------
# Copy-on-write: the state and ``pid``'s board these functions get are the move's own (see
# ``CubeCafe.apply_action``), but their lists, dicts, tables and cars are shared with the state
# before the move: a change replaces them (``board.grill = [*board.grill, colour]``), never
# changes one in place.


def apply_move(state: CubeCafeState, pid: PlayerId, action: Action) -> None:
    """Apply a legal phase-3 move (not Done) to ``pid``'s board, which must be a board of
    ``state``'s own (not one an earlier state holds too)."""
    board = state.boards[pid]
    if isinstance(action, REWARD_MOVES):
        _take_reward(board, action)
        return
    if isinstance(action, Bus):
        _bus(board, action)
        return
    if isinstance(action, Done):
        raise AssertionError("Done ends a player's phase: the game applies it")
    board.hand = without_one(board.hand, action.staff)
    board.spent = sorted([*board.spent, action.staff], key=STAFF.index)
    if isinstance(action, Rotate):
        board.rotation = (board.rotation + (1 if action.direction == "ccw" else -1)) % len(RING)
    elif isinstance(action, Manager):
        advance_manager(board, action.slot)
    elif isinstance(action, Seat):
        _seat(state, board, action.table)
    elif isinstance(action, Drive):
        index = DRIVE_SLOTS.index(action.stars)
        car = board.drive[index]
        assert car is not None
        board.menu = {**board.menu, car.colour: board.menu[car.colour] - 1}
        satisfaction = car.satisfaction
        if board.seated(BIRTHDAY):
            satisfaction = min(MAX_SATISFACTION, satisfaction + 1)
        drive = list(board.drive)
        drive[index] = evolve(car, cube=car.colour, satisfaction=satisfaction)
        board.drive = drive
    elif isinstance(action, Order):
        plate, state.plate_bag = state.plate_bag[-1], state.plate_bag[:-1]
        change_table(board, action.table, plate=plate)
    elif isinstance(action, Cook):
        colour = board.colour_at(2)
        board.menu = {**board.menu, colour: board.menu[colour] - 1}
        board.grill = [*board.grill, colour]
    elif isinstance(action, Serve):
        serve(board, action.source, action.cube, action.table)
    else:
        refill(board, action.table)


def without_one(items: list[T], item: T) -> list[T]:
    """A copy of ``items`` without the first ``item`` (as ``list.remove``)."""
    index = items.index(item)
    return [*items[:index], *items[index + 1 :]]


def change_table(board: Board, number: int, **changes: Any) -> None:
    """Replace table ``number`` (1–4) by a copy with ``changes``."""
    tables = list(board.tables)
    tables[number - 1] = evolve(tables[number - 1], **changes)
    board.tables = tables


def _seat(state: CubeCafeState, board: Board, number: int) -> None:
    guest, board.queue = board.queue[0], board.queue[1:]
    plate = None  # the table is free: no plate on it
    if guest == REGULAR and state.plate_bag:  # The Regular knows its order
        plate, state.plate_bag = state.plate_bag[-1], state.plate_bag[:-1]
    change_table(board, number, guest=guest, satisfaction=seated_at(guest), plate=plate)


def serve(board: Board, source: Source, cube: Colour, number: int) -> None:
    """Put ``cube`` from ``source`` on table ``number``'s plate."""
    setattr(board, source, without_one(board.track(source), cube))
    table = board.tables[number - 1]
    change = SOURCE_BONUS[source] - (1 if cube != table.plate else 0)
    if board.seated(BIRTHDAY):
        change += 1
    satisfaction = max(0, min(MAX_SATISFACTION, table.satisfaction + change))
    change_table(board, number, cube=cube, satisfaction=satisfaction)


def refill(board: Board, number: int) -> None:
    satisfaction = min(MAX_SATISFACTION, board.tables[number - 1].satisfaction + 1)
    change_table(board, number, refill=True, satisfaction=satisfaction)


def advance_manager(board: Board, steps: int) -> None:
    """Move the manager; every reward space reached or passed gives its reward, in order, once a
    round."""
    for _ in range(steps):
        board.manager = (board.manager + 1) % MANAGER_SPACES
        if board.manager in MANAGER_REWARDS and board.manager not in board.paid:
            board.pending = [*board.pending, MANAGER_REWARDS[board.manager]]
            board.paid = [*board.paid, board.manager]


def _bus(board: Board, action: Bus) -> None:
    plate = board.tables[action.table - 1].plate
    assert plate is not None
    change_table(board, action.table, plate=None, dirty=False)
    dishwasher = list(board.dishwasher)
    dishwasher[action.space - 1] = plate
    board.dishwasher = dishwasher
    bonus = DISHWASHER[action.space - 1]
    if bonus == "manager":
        advance_manager(board, MANAGER_BONUS_STEPS)
    elif bonus == "plate":
        board.add_staff(plate)
    elif bonus == "copy":
        if any(s != WILD for s in board.hand):
            board.pending = [*board.pending, "copy"]
        else:
            board.note("No coloured staff to copy: the bonus is lost.")
    elif bonus == "wheel":
        board.pending = [*board.pending, "wheel"]
    elif any(_refill_problem(board, n) is None for n in range(1, TABLES + 1)):
        board.pending = [*board.pending, "refill"]
    else:
        board.note("Nobody to refill: the bonus is lost.")


def _take_reward(board: Board, action: Recruit | Cash | Wheel | FreeRefill) -> None:
    reward = board.pending[0]
    board.pending = board.pending[1:]
    if isinstance(action, Recruit):
        board.add_staff(action.staff)
    elif isinstance(action, Cash):
        board.money += CASH[reward]
    elif isinstance(action, Wheel):
        board.rotation = rotation_with_seat(action.seat)
    else:
        refill(board, action.table)


def finish(board: Board, timed_out: bool) -> None:
    """Done: the staff left in hand are lost; at the clock, so are pending rewards."""
    board.forfeited = sorted([*board.forfeited, *board.hand], key=STAFF.index)
    board.hand = []
    board.done = True
    if timed_out:
        board.timed_out = True
        board.pending = []
