"""Phase 3, assign jobs: which moves are legal (with the reason when not) and what they do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

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
    Staff,
    in_staff_order,
    rotation_with_seat,
    seated_at,
)
from games.cube_cafe.state import Board, CubeCafeState, Table
from games.cube_cafe.words import label
from games.engine import PlayerId
from games.kit import replace

T = TypeVar("T")


# -- legality ------------------------------------------------------------------------------------


def problem(state: CubeCafeState, pid: PlayerId, action: Action) -> str | None:
    """Why ``action`` is not allowed for ``pid`` now (None when it is)."""
    board = state.boards[pid]
    if state.over:
        return "The game is over."
    if board.done:
        return "You've said done for this round — wait for the others."
    # By the kind of move (asked before every move): one look-up, not a chain of isinstance
    # tests (on pydantic models, each test that fails costs a call).
    if board.pending:
        return _PENDING_PROBLEMS[type(action)](state, board, action)
    return _PROBLEMS[type(action)](state, board, action)


def _done_problem(state: CubeCafeState, board: Board, action: Done) -> str | None:
    if board.pending and not action.timed_out:
        return f"First choose your reward: {_reward_words(board)}."
    return None


def _no_reward_problem(state: CubeCafeState, board: Board, action: Action) -> str | None:
    return "You have no reward to choose right now."


def _not_a_reward_problem(state: CubeCafeState, board: Board, action: Action) -> str | None:
    return f"First choose your reward: {_reward_words(board)}."


def _reward_words(board: Board) -> str:
    return REWARD_NAME[board.pending[0]]


def _reward_problem(
    state: CubeCafeState, board: Board, action: Recruit | Cash | Wheel | FreeRefill
) -> str | None:
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


def _bus_problem(state: CubeCafeState, board: Board, action: Bus) -> str | None:
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


_Problem = Callable[[CubeCafeState, Board, Any], str | None]


def _in_hand_problem(board: Board, staff: Staff) -> str | None:
    if staff not in board.hand:
        return f"You have no {staff} staff left this round."
    return None


def _job_problem(board: Board, staff: Staff, slot: int) -> str | None:
    """Whether ``staff`` is in hand and may work ``slot`` (its colour or a wild)."""
    in_hand = _in_hand_problem(board, staff)
    if in_hand is not None:
        return in_hand
    colour = board.colour_at(slot)
    if staff not in (colour, WILD):
        job = JOB_NAME[JOBS[slot]]
        return (
            f"{job} takes a {colour} staff now (the colour facing it) or a wild — "
            "turn the wheel first."
        )
    return None


def _rotate_problem(state: CubeCafeState, board: Board, action: Rotate) -> str | None:
    return _in_hand_problem(board, action.staff)


def _manager_problem(state: CubeCafeState, board: Board, action: Manager) -> str | None:
    if action.staff in board.hand and not 1 <= action.slot <= len(JOBS) - 1:
        return "The manager moves by a slot's number: pick a slot numbered 1–4."
    return _job_problem(board, action.staff, action.slot)


def _seat_problem(state: CubeCafeState, board: Board, action: Seat) -> str | None:
    table = _table(board, action.table)
    if table is None:
        return f"There are only {TABLES} tables."
    if not board.queue:
        return "Nobody is waiting in your queue."
    if not table.free:
        return "That table isn't empty — bus its dirty plate first, or pick another."
    return None


def _order_problem(state: CubeCafeState, board: Board, action: Order) -> str | None:
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


def _cook_problem(state: CubeCafeState, board: Board, action: Cook) -> str | None:
    if len(board.grill) >= GRILL_ROOM:
        return f"The Grill holds {GRILL_ROOM} cubes — serve or wait for it to clear."
    colour = board.colour_at(SLOT_OF[Cook])
    if board.menu[colour] == 0:
        return f"Your menu has no {colour} cube left."
    return None


def _refill_table_problem(state: CubeCafeState, board: Board, action: Refill) -> str | None:
    return _refill_problem(board, action.table)


def _job_first(check: _Problem) -> _Problem:
    """A move of a staff to a job: the staff must be in hand and fit the job's slot before
    ``check`` asks about the rest."""

    def staff_move_problem(state: CubeCafeState, board: Board, action: Any) -> str | None:
        return _job_problem(board, action.staff, SLOT_OF[type(action)]) or check(
            state, board, action
        )

    return staff_move_problem


def _drive_problem(state: CubeCafeState, board: Board, action: Drive) -> str | None:
    if action.stars not in DRIVE_SLOTS:
        return "The drive-thru has a 3★ and a 2★ slot."
    car = board.drive[DRIVE_SLOTS.index(action.stars)]
    if car is None:
        return f"There's no car in the {action.stars}★ slot."
    if car.cube is not None:
        return "That car has its food already."
    colour = board.colour_at(SLOT_OF[Drive])
    if car.colour != colour:
        return f"The car is {car.colour}: the Drive-thru slot must show {car.colour} first."
    if board.menu[car.colour] == 0:
        return f"Your menu has no {car.colour} cube left."
    return None


def _serve_problem(state: CubeCafeState, board: Board, action: Serve) -> str | None:
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


# Why a move is not allowed, by its kind: with no reward pending, and with one.
_PROBLEMS: dict[type[BaseModel], _Problem] = {
    Seat: _job_first(_seat_problem),
    Drive: _job_first(_drive_problem),
    Order: _job_first(_order_problem),
    Cook: _job_first(_cook_problem),
    Serve: _job_first(_serve_problem),
    Refill: _job_first(_refill_table_problem),
    Manager: _manager_problem,
    Rotate: _rotate_problem,
    Bus: _bus_problem,
    Recruit: _no_reward_problem,
    Cash: _no_reward_problem,
    Wheel: _no_reward_problem,
    FreeRefill: _no_reward_problem,
    Done: _done_problem,
}
_PENDING_PROBLEMS: dict[type[BaseModel], _Problem] = {
    **dict.fromkeys(_PROBLEMS, _not_a_reward_problem),
    Recruit: _reward_problem,
    Cash: _reward_problem,
    Wheel: _reward_problem,
    FreeRefill: _reward_problem,
    Done: _done_problem,
}


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
# Copy-on-write: a move collects the fields of its player's board that it replaces (``changes``)
# and builds the new board from them in one step; the lists, dicts, tables and cars of the board
# before the move are shared with it, so a change replaces them, never changes one in place.
# Building the board once is cheaper than assigning its fields one by one (pydantic's
# ``__setattr__``). A move reads the board before the move: no move reads a field it replaced.

Changes = dict[str, Any]


def apply_move(state: CubeCafeState, pid: PlayerId, action: Action) -> CubeCafeState:
    """The state after ``pid``'s legal phase-3 move (not Done); ``state`` is left as it is."""
    board = state.boards[pid]
    # The move's note is worded from the board before the move (its own notes come after it).
    notes = board.notes[-3:]  # a new list: the last four notes are kept
    notes.append(label(board, action))
    changes: Changes = {"notes": notes}
    plate_bag = _MOVES[type(action)](state, board, action, changes)
    boards = {**state.boards, pid: replace(board, changes)}
    if plate_bag is None:
        return replace(state, {"boards": boards})
    return replace(state, {"boards": boards, "plate_bag": plate_bag})


def without_one(items: list[T], item: T) -> list[T]:
    """A copy of ``items`` without the first ``item``."""
    items = items.copy()
    items.remove(item)
    return items


def with_table(tables: list[Table], number: int, **changes: Any) -> list[Table]:
    """A copy of ``tables`` with table ``number`` (1–4) replaced by a copy with ``changes``."""
    tables = list(tables)
    tables[number - 1] = replace(tables[number - 1], changes)
    return tables


def _note(changes: Changes, text: str) -> None:
    changes["notes"] = [*changes["notes"][-3:], text]


def _spend(board: Board, staff: Staff, changes: Changes) -> None:
    changes["hand"] = without_one(board.hand, staff)
    changes["spent"] = in_staff_order([*board.spent, staff])


def _recruit(board: Board, staff: Staff, changes: Changes) -> None:
    # Only moves that spend no staff recruit: the hand is the board's.
    changes["hand"] = in_staff_order([*board.hand, staff])
    changes["recruited"] = in_staff_order([*board.recruited, staff])


def _draw_plate(state: CubeCafeState) -> tuple[Colour, list[Colour]]:
    """The plate drawn from the end of the bag, and the bag without it."""
    bag = state.plate_bag
    return bag[-1], bag[:-1]


def _rotate(state: CubeCafeState, board: Board, action: Rotate, changes: Changes) -> None:
    _spend(board, action.staff, changes)
    step = 1 if action.direction == "ccw" else -1
    changes["rotation"] = (board.rotation + step) % len(RING)


def _manager(state: CubeCafeState, board: Board, action: Manager, changes: Changes) -> None:
    _spend(board, action.staff, changes)
    advance_manager(board, action.slot, changes)


def _seat(
    state: CubeCafeState, board: Board, action: Seat, changes: Changes
) -> list[Colour] | None:
    _spend(board, action.staff, changes)
    guest = board.queue[0]
    changes["queue"] = board.queue[1:]
    plate, plate_bag = None, None  # the table is free: no plate on it
    if guest == REGULAR and state.plate_bag:  # The Regular knows its order
        plate, plate_bag = _draw_plate(state)
    changes["tables"] = with_table(
        board.tables, action.table, guest=guest, satisfaction=seated_at(guest), plate=plate
    )
    return plate_bag


def _drive(state: CubeCafeState, board: Board, action: Drive, changes: Changes) -> None:
    _spend(board, action.staff, changes)
    index = DRIVE_SLOTS.index(action.stars)
    car = board.drive[index]
    assert car is not None
    changes["menu"] = {**board.menu, car.colour: board.menu[car.colour] - 1}
    satisfaction = car.satisfaction
    if board.seated(BIRTHDAY):
        satisfaction = min(MAX_SATISFACTION, satisfaction + 1)
    drive = list(board.drive)
    drive[index] = replace(car, {"cube": car.colour, "satisfaction": satisfaction})
    changes["drive"] = drive


def _order(state: CubeCafeState, board: Board, action: Order, changes: Changes) -> list[Colour]:
    _spend(board, action.staff, changes)
    plate, plate_bag = _draw_plate(state)
    changes["tables"] = with_table(board.tables, action.table, plate=plate)
    return plate_bag


def _cook(state: CubeCafeState, board: Board, action: Cook, changes: Changes) -> None:
    _spend(board, action.staff, changes)
    colour = board.colour_at(2)
    changes["menu"] = {**board.menu, colour: board.menu[colour] - 1}
    changes["grill"] = [*board.grill, colour]


def _serve(state: CubeCafeState, board: Board, action: Serve, changes: Changes) -> None:
    """Put the cube from its prep track on the table's plate."""
    _spend(board, action.staff, changes)
    changes[action.source] = without_one(board.track(action.source), action.cube)
    table = board.tables[action.table - 1]
    change = SOURCE_BONUS[action.source] - (1 if action.cube != table.plate else 0)
    if board.seated(BIRTHDAY):
        change += 1
    satisfaction = max(0, min(MAX_SATISFACTION, table.satisfaction + change))
    changes["tables"] = with_table(
        board.tables, action.table, cube=action.cube, satisfaction=satisfaction
    )


def _refill(state: CubeCafeState, board: Board, action: Refill, changes: Changes) -> None:
    _spend(board, action.staff, changes)
    refill(board, action.table, changes)


def refill(board: Board, number: int, changes: Changes) -> None:
    satisfaction = min(MAX_SATISFACTION, board.tables[number - 1].satisfaction + 1)
    changes["tables"] = with_table(board.tables, number, refill=True, satisfaction=satisfaction)


def advance_manager(board: Board, steps: int, changes: Changes) -> None:
    """Move the manager; every reward space reached or passed gives its reward, in order, once a
    round."""
    manager, pending, paid = board.manager, board.pending, board.paid
    for _ in range(steps):
        manager = (manager + 1) % MANAGER_SPACES
        if manager in MANAGER_REWARDS and manager not in paid:
            pending = [*pending, MANAGER_REWARDS[manager]]
            paid = [*paid, manager]
    changes["manager"] = manager
    changes["pending"] = pending
    changes["paid"] = paid


def _bus(state: CubeCafeState, board: Board, action: Bus, changes: Changes) -> None:
    plate = board.tables[action.table - 1].plate
    assert plate is not None
    changes["tables"] = with_table(board.tables, action.table, plate=None, dirty=False)
    dishwasher = list(board.dishwasher)
    dishwasher[action.space - 1] = plate
    changes["dishwasher"] = dishwasher
    bonus = DISHWASHER[action.space - 1]
    if bonus == "manager":
        advance_manager(board, MANAGER_BONUS_STEPS, changes)
    elif bonus == "plate":
        _recruit(board, plate, changes)
    elif bonus == "copy":
        if any(s != WILD for s in board.hand):
            changes["pending"] = [*board.pending, "copy"]
        else:
            _note(changes, "No coloured staff to copy: the bonus is lost.")
    elif bonus == "wheel":
        changes["pending"] = [*board.pending, "wheel"]
    # (the bused table has no customer: who may have a refill is as before the move)
    elif any(_refill_problem(board, n) is None for n in range(1, TABLES + 1)):
        changes["pending"] = [*board.pending, "refill"]
    else:
        _note(changes, "Nobody to refill: the bonus is lost.")


def _take_reward(board: Board, changes: Changes) -> str:
    """The reward chosen now (the first pending), off the list."""
    changes["pending"] = board.pending[1:]
    return board.pending[0]


def _recruit_reward(state: CubeCafeState, board: Board, action: Recruit, changes: Changes) -> None:
    _take_reward(board, changes)
    _recruit(board, action.staff, changes)


def _cash_reward(state: CubeCafeState, board: Board, action: Cash, changes: Changes) -> None:
    changes["money"] = board.money + CASH[_take_reward(board, changes)]


def _wheel_reward(state: CubeCafeState, board: Board, action: Wheel, changes: Changes) -> None:
    _take_reward(board, changes)
    changes["rotation"] = rotation_with_seat(action.seat)


def _free_refill_reward(
    state: CubeCafeState, board: Board, action: FreeRefill, changes: Changes
) -> None:
    _take_reward(board, changes)
    refill(board, action.table, changes)


# What each kind of phase-3 move does to the board (``changes``); the plate bag after the move
# when it drew a plate, else None.
_MOVES: dict[type[BaseModel], Callable[[CubeCafeState, Board, Any, Changes], list[Colour] | None]]
_MOVES = {
    Seat: _seat,
    Drive: _drive,
    Order: _order,
    Cook: _cook,
    Serve: _serve,
    Refill: _refill,
    Manager: _manager,
    Rotate: _rotate,
    Bus: _bus,
    Recruit: _recruit_reward,
    Cash: _cash_reward,
    Wheel: _wheel_reward,
    FreeRefill: _free_refill_reward,
}


def finish(board: Board, timed_out: bool) -> Board:
    """Done: the staff left in hand are lost; at the clock, so are pending rewards."""
    changes: Changes = {
        "forfeited": in_staff_order([*board.forfeited, *board.hand]),
        "hand": [],
        "done": True,
    }
    if timed_out:
        changes["timed_out"] = True
        changes["pending"] = []
    return replace(board, changes)
