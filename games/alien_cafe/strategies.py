"""A simple greedy waiter for the simulator: "greedy" plays level 0, "greedy-L1".."greedy-L4"
play that level every round.

Service: place the hand tile on the cell that raises the tray's score most; else move a failing
tile where it scores; else give a tile it cannot use to a player who can; else draw (from the bag
its tray needs most) while short of points; then done.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from games.alien_cafe.actions import (
    Action,
    DoneAction,
    DrawAction,
    GiveAction,
    LevelAction,
    MoveAction,
    PlaceAction,
    TakeBackAction,
)
from games.alien_cafe.catalogue import COLOURS, TILES
from games.alien_cafe.scoring import NEIGHBOURS, score
from games.alien_cafe.state import CELLS, TARGET, AlienCafeState, Seat
from games.engine import Strategy
from games.rng import Rng

GOAL = TARGET + 2  # keep a margin above the 10 points needed
HOPE = 0.5  # what a failing tile that a future neighbour could still fix is worth
MAX_STUCK = 1  # draw only while at most this many tiles wait in hand


def _value(seat: Seat, tray: Sequence[str | None], in_hand: int) -> float:
    """The score, plus a little hope for failing tiles that an empty neighbour could fix."""
    ev = score(tray, seat.house, in_hand, seat.declared)
    value: float = ev.total
    for cell, tid in enumerate(tray):
        if tid is None or ev.marks[cell] != -1:
            continue
        cond = TILES[tid].cond
        empty = sum(1 for n in NEIGHBOURS[cell] if tray[n] is None)
        if cond.kind == "next_to" and empty:
            value += HOPE
        elif cond.kind == "at_least":
            have = sum(
                1 for n in NEIGHBOURS[cell] if (t := tray[n]) and TILES[t].kind == cond.target
            )
            if have + empty >= cond.n:
                value += HOPE
    return value


def _best_place(seat: Seat, tile_id: str, base: float) -> tuple[float, int]:
    """(gain, cell) of the best empty cell for ``tile_id`` (gain −99 when the tray is full)."""
    best: tuple[float, int, int] = (-99.0, 0, 1)
    tray = list(seat.tray)
    in_hand = len(seat.hand) - (1 if tile_id in seat.hand else 0)
    for cell in range(CELLS):
        if tray[cell] is not None:
            continue
        tray[cell] = tile_id
        gain = _value(seat, tray, in_hand) - base
        tray[cell] = None
        touching = sum(1 for n in NEIGHBOURS[cell] if tray[n] is not None)
        key = (gain, touching, -cell)
        if key > best:
            best = key
    return best[0], -best[2]


def _needs(seat: Seat) -> tuple[int, int]:
    """How many failing tiles next to an empty cell want an alien / an order."""
    ev = score(seat.tray, seat.house, len(seat.hand), seat.declared)
    alien = order = 0
    for cell, tid in enumerate(seat.tray):
        if tid is None or (ev.marks[cell] or 0) >= 0:
            continue
        if not any(seat.tray[n] is None for n in NEIGHBOURS[cell]):
            continue
        cond = TILES[tid].cond
        target = cond.target
        if cond.kind == "next_to":
            target = "alien" if target in COLOURS else "order"
        if cond.kind in ("next_to", "at_least"):
            if target == "alien":
                alien += 1
            else:
                order += 1
    return alien, order


def greedy_action(state: AlienCafeState, pid: str, level: int) -> Action:
    if state.phase == "levels":
        return LevelAction(level=level)
    seat = state.seats[pid]
    base = _value(seat, seat.tray, len(seat.hand))
    faces = _faces(seat)
    # 1. The best placement of a hand tile.
    stuck: set[str] = set()
    best: tuple[float, str, int] | None = None
    for face, tid in faces.items():
        gain, cell = _best_place(seat, tid, base)
        if gain > 0 and (best is None or gain > best[0]):
            best = (gain, tid, cell)
        if gain <= 0:
            stuck.add(face)
    if best is not None:
        return PlaceAction(tile=best[1], cell=best[2])
    # 2.–3. Move or replace a failing tile.
    mended = mend(seat, base)
    if mended is not None:
        return mended
    # 4. Give a stuck tile to someone who can place it well.
    gift = give_away(state, pid, stuck)
    if gift is not None:
        return gift
    # 5. Draw while short of points, with room on the tray and few tiles waiting in hand.
    ev = score(seat.tray, seat.house, len(seat.hand), seat.declared)
    if ev.total < GOAL and may_draw(seat, MAX_STUCK):
        alien, order = _needs(seat)
        if alien == order:
            aliens_held = sum(1 for t in seat.hand if TILES[t].kind == "alien")
            alien, order = (0, 1) if aliens_held > len(seat.hand) - aliens_held else (1, 0)
        first, second = ("red", "blue") if alien > order else ("blue", "red")
        for bag in (first, second):
            if state.red if bag == "red" else state.blue:
                return DrawAction(bag="red" if bag == "red" else "blue")
    return DoneAction()


def _faces(seat: Seat) -> dict[str, str]:
    """One tile of the hand per face (tiles with one label play alike)."""
    faces: dict[str, str] = {}
    for tid in seat.hand:
        faces.setdefault(TILES[tid].label, tid)
    return faces


def _failing(seat: Seat) -> list[int]:
    ev = score(seat.tray, seat.house, len(seat.hand), seat.declared)
    return [c for c, t in enumerate(seat.tray) if t is not None and ev.marks[c] == -1]


def mend(seat: Seat, base: float) -> Action | None:
    """Move a failing tile where it does better; else take one back that a hand tile would
    replace with a gain (the placement follows)."""
    failing = _failing(seat)
    tray = list(seat.tray)
    for cell in failing:
        placed = tray[cell]
        for target in range(CELLS):
            if target == cell:
                continue
            tray[cell], tray[target] = tray[target], placed
            gain = _value(seat, tray, len(seat.hand)) - base
            tray[target], tray[cell] = tray[cell], placed
            if gain > 0 and placed is not None:
                return MoveAction(tile=placed, cell=target)
    for cell in failing:
        placed = tray[cell]
        for tid in _faces(seat).values():
            tray[cell] = tid
            gain = _value(seat, tray, len(seat.hand)) - base
            tray[cell] = placed
            if gain > 0 and placed is not None:
                return TakeBackAction(tile=placed)
    return None


def give_away(state: AlienCafeState, pid: str, stuck: set[str]) -> GiveAction | None:
    """A stuck hand tile (by face) for the player who places it best, if anyone gains."""
    seat = state.seats[pid]
    for tid in seat.hand:
        if TILES[tid].special or TILES[tid].label not in stuck:
            continue
        offers = []
        for other in state.players:
            o = state.seats[other]
            if other == pid or o.done:
                continue
            # Their house is secret (a bot sees tokens there): judge their tray without it.
            o = o.model_copy(update={"house": [h for h in o.house if h in TILES]})
            o_base = score(o.tray, o.house, len(o.hand), o.declared).total
            o_gain, _ = _best_place(o, tid, o_base)  # better off even with the tile
            if o_gain > 0:
                offers.append((o_gain, other))
        if offers:
            return GiveAction(tile=tid, to=max(offers)[1])
    return None


def may_draw(seat: Seat, max_stuck: int) -> bool:
    """Room on the tray (empty or failing cells) for more than the hand, and at most
    ``max_stuck`` tiles waiting in it."""
    room = sum(1 for t in seat.tray if t is None) + len(_failing(seat))
    return room > len(seat.hand) and len(seat.hand) <= max_stuck


def _make(level: int) -> Callable[[AlienCafeState, str, Rng], Action]:
    def play(state: AlienCafeState, pid: str, rng: Rng) -> Action:
        return greedy_action(state, pid, level)

    return play


def strategies() -> dict[str, Strategy]:
    out: dict[str, Strategy] = {"greedy": _make(0)}
    for level in range(1, 5):
        out[f"greedy-L{level}"] = _make(level)
    return out
