"""A greedy restaurateur for the simulator, deciding from its own (open) board only.

Each legal move gets a value: serving well and feeding cars first, then taking orders, seating,
cooking what a customer wants, refilling, busing plates for bonuses; a wheel turn is worth what
it unlocks for the staff still in hand; the manager soaks up spare staff. It says Done when no
move is worth anything.
"""

from __future__ import annotations

from games.cube_cafe.actions import (
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
    COLOURS,
    DISHWASHER,
    MANAGER_REWARDS,
    MANAGER_SPACES,
    MAX_SATISFACTION,
    ROUNDS,
    WILD,
    Colour,
    rotation_with_seat,
)
from games.cube_cafe.rules import apply_move, legal_actions
from games.cube_cafe.state import Board, CubeCafeState
from games.cube_cafe.words import serve_change
from games.engine import PlayerId, Strategy
from games.rng import Rng

BONUS_VALUE = {"plate": 3.0, "manager": 2.5, "copy": 2.0, "refill": 1.5, "wheel": 1.0}


def greedy(state: CubeCafeState, pid: PlayerId, rng: Rng) -> Action:
    board = state.boards[pid]
    moves = legal_actions(state, pid)
    if board.pending:
        return max(moves, key=lambda m: _reward_value(state, pid, m))
    best: tuple[float, int] = (0.0, -1)
    for index, move in enumerate(moves):
        value = _value(state, pid, move, look_ahead=True)
        if value > best[0]:
            best = (value, index)
    return moves[best[1]] if best[1] >= 0 else Done()


def _value(state: CubeCafeState, pid: PlayerId, move: Action, look_ahead: bool) -> float:
    board = state.boards[pid]
    if isinstance(move, Serve):
        table = board.tables[move.table - 1]
        change = serve_change(board, move.source, move.cube, table)
        last = state.round == ROUNDS
        if change < -1 and not last:
            return 0.0
        if move.source == "grill" and not last and table.satisfaction >= 3:
            return 0.0  # it will be hot (+1) next round, and the customer can wait
        return 20.0 + 3 * change + table.satisfaction
    if isinstance(move, Drive):
        return 19.0
    if isinstance(move, Order):
        return 15.0
    if isinstance(move, Seat):
        return 14.0 if state.round < ROUNDS else 0.0
    if isinstance(move, Cook):
        return 13.0 if board.colour_at(2) in _wanted(board) else 0.0
    if isinstance(move, Refill):
        table = board.tables[move.table - 1]
        if table.satisfaction >= MAX_SATISFACTION or table.plate is None:
            return 0.0
        return 10.0 if table.cube is not None else 7.0
    if isinstance(move, Bus):
        return 11.0 + _bus_bonus(board, DISHWASHER[move.space - 1])
    if isinstance(move, Manager):
        return 2.0 + move.slot / 4 + (3.0 if _passes_reward(board, move.slot) else 0.0)
    if isinstance(move, Rotate) and look_ahead:
        return _after_turn(state, pid, move) - 4.0
    return 0.0


def _wanted(board: Board) -> list[Colour]:
    """Orders waiting for food that the prep track cannot cover yet."""
    on_track = board.grill + board.hot + board.cold
    wanted: list[Colour] = []
    for table in board.tables:
        if table.guest is not None and table.plate is not None and table.cube is None:
            if table.plate in on_track:
                on_track.remove(table.plate)
            else:
                wanted.append(table.plate)
    return wanted


def _bus_bonus(board: Board, bonus: str) -> float:
    if bonus == "copy" and not any(s != WILD for s in board.hand):
        return 0.0
    return BONUS_VALUE[bonus]


def _passes_reward(board: Board, steps: int) -> bool:
    spaces = {(board.manager + s) % MANAGER_SPACES for s in range(1, steps + 1)}
    return bool(spaces & (set(MANAGER_REWARDS) - set(board.paid)))


def _after_turn(state: CubeCafeState, pid: PlayerId, move: Rotate) -> float:
    """The best job the remaining staff could do once the wheel has turned."""
    trial = apply_move(state, pid, move)
    values = [
        _value(trial, pid, m, look_ahead=False)
        for m in legal_actions(trial, pid)
        if not isinstance(m, Rotate | Manager | Bus | Done)
    ]
    return max(values, default=0.0)


def _reward_value(state: CubeCafeState, pid: PlayerId, move: Action) -> float:
    """Recruit the colour whose job is worth most now; money when no staff would help."""
    board = state.boards[pid]
    if isinstance(move, Cash):
        return 1.5
    if isinstance(move, Recruit):
        if move.staff == WILD:
            return 3.0 if state.round < ROUNDS else 1.0
        slots = [s for s in range(5) if board.colour_at(s) == move.staff]
        return 2.0 + (1.0 if slots and slots[0] in (0, 1, 3) else 0.0)
    if isinstance(move, Wheel):
        return _wheel_value(state, pid, move.seat)
    if isinstance(move, FreeRefill):
        table = board.tables[move.table - 1]
        return float(MAX_SATISFACTION - table.satisfaction) + (2 if table.cube else 0)
    return 0.0


def _wheel_value(state: CubeCafeState, pid: PlayerId, seat: Colour) -> float:
    board = state.boards[pid].model_copy(deep=True)
    board.rotation = rotation_with_seat(seat)
    board.pending = []
    trial = state.model_copy(update={"boards": {**state.boards, pid: board}})
    values = [
        _value(trial, pid, m, look_ahead=False)
        for m in legal_actions(trial, pid)
        if not isinstance(m, Rotate | Manager | Bus | Done)
    ]
    return max(values, default=0.0) + COLOURS.index(seat) * 0.001


STRATEGIES: dict[str, Strategy] = {"greedy": greedy}
