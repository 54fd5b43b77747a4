"""Phase 3, assign jobs: which moves are legal (with the reason when not) and what they do."""

from __future__ import annotations

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
    Staff,
    rotation_with_seat,
    seated_at,
)
from games.cube_cafe.state import Board, CubeCafeState, Table
from games.engine import PlayerId

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


def apply_move(state: CubeCafeState, pid: PlayerId, action: Action) -> None:
    """Apply a legal phase-3 move (not Done) to ``pid``'s board."""
    board = state.boards[pid]
    if isinstance(action, REWARD_MOVES):
        _take_reward(board, action)
        return
    if isinstance(action, Bus):
        _bus(board, action)
        return
    if isinstance(action, Done):
        raise AssertionError("Done ends a player's phase: the game applies it")
    board.hand.remove(action.staff)
    board.spent = sorted([*board.spent, action.staff], key=STAFF.index)
    if isinstance(action, Rotate):
        board.rotation = (board.rotation + (1 if action.direction == "ccw" else -1)) % len(RING)
    elif isinstance(action, Manager):
        advance_manager(board, action.slot)
    elif isinstance(action, Seat):
        _seat(state, board, board.tables[action.table - 1])
    elif isinstance(action, Drive):
        car = board.drive[DRIVE_SLOTS.index(action.stars)]
        assert car is not None
        board.menu[car.colour] -= 1
        car.cube = car.colour
        if board.seated(BIRTHDAY):
            car.satisfaction = min(MAX_SATISFACTION, car.satisfaction + 1)
    elif isinstance(action, Order):
        board.tables[action.table - 1].plate = state.plate_bag.pop()
    elif isinstance(action, Cook):
        colour = board.colour_at(2)
        board.menu[colour] -= 1
        board.grill.append(colour)
    elif isinstance(action, Serve):
        serve(board, action.source, action.cube, board.tables[action.table - 1])
    else:
        refill(board.tables[action.table - 1])


def _seat(state: CubeCafeState, board: Board, table: Table) -> None:
    guest = board.queue.pop(0)
    table.guest, table.satisfaction = guest, seated_at(guest)
    if guest == REGULAR and state.plate_bag:  # The Regular knows its order
        table.plate = state.plate_bag.pop()


def serve(board: Board, source: str, cube: Colour, table: Table) -> int:
    """Put ``cube`` from ``source`` on ``table``'s plate; returns the satisfaction change."""
    board.track(source).remove(cube)
    table.cube = cube
    change = SOURCE_BONUS[source] - (1 if cube != table.plate else 0)
    if board.seated(BIRTHDAY):
        change += 1
    table.satisfaction = max(0, min(MAX_SATISFACTION, table.satisfaction + change))
    return change


def refill(table: Table) -> None:
    table.refill = True
    table.satisfaction = min(MAX_SATISFACTION, table.satisfaction + 1)


def advance_manager(board: Board, steps: int) -> None:
    """Move the manager; every reward space reached or passed gives its reward, in order, once a
    round."""
    for _ in range(steps):
        board.manager = (board.manager + 1) % MANAGER_SPACES
        if board.manager in MANAGER_REWARDS and board.manager not in board.paid:
            board.pending = [*board.pending, MANAGER_REWARDS[board.manager]]
            board.paid = [*board.paid, board.manager]


def _bus(board: Board, action: Bus) -> None:
    table = board.tables[action.table - 1]
    plate = table.plate
    assert plate is not None
    table.plate, table.dirty = None, False
    board.dishwasher[action.space - 1] = plate
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
        refill(board.tables[action.table - 1])


def finish(board: Board, timed_out: bool) -> None:
    """Done: the staff left in hand are lost; at the clock, so are pending rewards."""
    board.forfeited = sorted([*board.forfeited, *board.hand], key=STAFF.index)
    board.hand = []
    board.done = True
    if timed_out:
        board.timed_out = True
        board.pending = []
