"""What Cube Café tells the searching bot (``games/search.py``): simulate to the round's end only.

Within a round a restaurant is its own: nobody else's staff touches it, and the round is all
known (the dice are rolled, the plate bag lies open). So a simulated round needs no other
restaurant's moves (in a simulation the others close at once), and it can stop when the round
has been fed: the money it made is then exact, and what it leaves for the rounds after (hungry
customers seated and waiting, food on the counters, cars in the drive-thru) is valued by
:func:`worth`. A simulation costs one restaurant's round instead of a whole game's, so the
search can compare every move in a few hundred milliseconds.
"""

from __future__ import annotations

import math

from games.cube_cafe.actions import Action, Done
from games.cube_cafe.catalogue import GUEST, MAX_SATISFACTION, ROUNDS, VIPS, tip
from games.cube_cafe.state import Board, CubeCafeState
from games.engine import PlayerId, SearchHints
from games.kit import replace
from games.rng import Rng

# A waiting customer's tip is not yet money: they grow impatient, and serving them costs staff.
WAITING_SHARE = 0.5
ORDERED = 0.5  # their plate is drawn: one job less to do
FOOD_READY = 1.0  # a cube on the counters that a waiting order wants
CAR_SHARE = 0.5
SCALE = 4.0  # $ that move the search's reward from 0.5 to about 0.73


def worth(board: Board, rounds_left: int) -> float:
    """The restaurant's money, plus what its waiting customers and ready food promise for the
    ``rounds_left`` rounds to come (nothing once the game is over)."""
    value = float(board.money)
    if rounds_left <= 0:
        return value
    food = board.hot + board.cold + board.grill
    for table in board.tables:
        if table.guest is None or table.cube is not None:
            continue
        # Served next round, a customer gains a little back (a refill, hot food): their tip now
        # is a fair guess of what they will leave.
        value += WAITING_SHARE * tip(table.guest, min(MAX_SATISFACTION, table.satisfaction + 1))
        if table.plate is not None:
            value += ORDERED
            if table.plate in food:
                food.remove(table.plate)
                value += FOOD_READY
    for car in board.drive:
        if car is not None and car.cube is None:
            value += CAR_SHARE * tip(GUEST, car.satisfaction)
    return value


def round_value(start: CubeCafeState, state: CubeCafeState, player: PlayerId) -> float | None:
    """Stop a simulated game once the round the search began in is fed (or the game is over);
    the restaurant's worth then, against its money at the start, squashed into [0, 1]."""
    if not state.over and state.round == start.round:
        return None
    gain = worth(state.boards[player], ROUNDS - state.round + (0 if state.over else 1))
    gain -= start.boards[player].money
    return 1.0 / (1.0 + math.exp(-(gain - 2 * SCALE) / SCALE))


def close_at_once(state: CubeCafeState, player: PlayerId, rng: Rng) -> Action:
    """The other restaurants in a simulated round: nothing they do changes the searcher's."""
    return Done()


HINTS = SearchHints(value=round_value, others=close_at_once)


def determinize(seen: CubeCafeState, player: PlayerId, rng: Rng) -> CubeCafeState:
    """The VIP cards still face down (tokens in the seat's view) drawn from those not shown."""
    shown = [v for v in seen.vips if v in VIPS]
    pool = [v for v in VIPS if v not in shown]
    rng.shuffle(pool)
    vips = [v if v in VIPS else pool.pop() for v in seen.vips]
    return replace(seen, {"vips": vips})
