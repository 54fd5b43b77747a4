"""Alien Café's hard player: a per-seat search over the tray, from the seat's own view.

The table succeeds when every tray scores at least 10, so a seat plays for exactly that:

- *where a tile goes*: every placement (and move of a failing tile) that raises the tray's value
  (the greedy player's: its score, plus a little for failing tiles a future neighbour could
  fix) is weighed by what comes next: the expected gain of the next draw from the better bag,
  over every tile this seat has not seen (an expectimax of depth two: placement, draw,
  placement). A tray that leaves good cells for the likely tiles beats one that scores the
  same now;
- *which bag*: the one whose unseen tiles the tray can use best on average;
- *when to stop*: at 10 points it is done (more points change nothing, a draw may cost one);
  short of them it keeps drawing while the tray has room and its hand holds at most
  ``MAX_STUCK`` tiles it cannot place (the bags are shared: a hopeless seat leaves them to the
  others).

It never peeks: the unseen tiles are every alien and order tile minus those the seat sees (its
hand, every tray), never the bags' contents or order nor another player's hand, which the
view may still name; so two deals alike to the seat give the same move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from games.alien_cafe.actions import Action, DoneAction, DrawAction, MoveAction, PlaceAction
from games.alien_cafe.catalogue import BLUE_BAG, RED_BAG, TILES, Cond
from games.alien_cafe.scoring import NEIGHBOURS, Eff, cond_points, effective, score
from games.alien_cafe.state import CELLS, TARGET, AlienCafeState, Seat
from games.alien_cafe.strategies import (
    HOPE,
    _faces,
    _failing,
    _value,
    give_away,
    may_draw,
    mend,
)
from games.kit import evolve

MAX_STUCK = 3  # short of 10 points, draw while at most this many tiles wait in hand
WIDE = 8  # the best placements (by value now) weighed by the next draw
LOOK = 0.5  # the next draw's expected gain counts half: it is only likely

Faces = dict[str, tuple[str, int]]  # label → (a tile with it, how many unseen tiles have it)


def unseen(state: AlienCafeState, pid: str) -> dict[str, Faces]:
    """The alien ("red") and order ("blue") tiles ``pid`` has not seen, by face: in a bag or in
    another player's hand, which the seat cannot tell apart."""
    seat = state.seats[pid]
    seen = set(seat.hand)
    for other in state.seats.values():
        seen.update(t for t in other.tray if t is not None)
    out: dict[str, Faces] = {}
    for bag, tiles in (("red", RED_BAG), ("blue", BLUE_BAG)):
        counts = Counter(TILES[t].label for t in tiles if t not in seen)
        first: dict[str, str] = {}
        for t in tiles:
            if t not in seen:
                first.setdefault(TILES[t].label, t)
        out[bag] = {label: (first[label], n) for label, n in counts.items()}
    return out


class Budget:
    """Faces weighed so far, against a count and the caller's ``stop``."""

    def __init__(self, simulations: int, stop: Callable[[], bool] | None) -> None:
        self.simulations = simulations
        self.stop = stop
        self.used = 0

    def spent(self) -> bool:
        if self.used >= self.simulations:
            return True
        return self.used > 0 and self.stop is not None and self.stop()


class Tray:
    """A tray's marks, read once, to weigh single placements on it quickly: a placement
    changes only its cell's and its neighbours' marks, the House Rules and the hope of failing
    tiles around it (the greedy player's value, but for Jokers: they keep the types they
    count as now, and a drawn one counts as its kind only)."""

    def __init__(self, seat: Seat) -> None:
        ev = score(seat.tray, seat.house, len(seat.hand), seat.declared)
        self.tray = seat.tray
        self.effs: list[Eff | None] = [
            None if t is None else effective(t, ev.declarations) for t in seat.tray
        ]
        self.marks = ev.marks
        self.house = [TILES[h].cond.target for h in seat.house]
        self.present = Counter(e[1] for e in self.effs if e is not None)

    def _mark(self, cell: int, effs: list[Eff | None]) -> int:
        tid = self.tray[cell]
        assert tid is not None
        return cond_points(TILES[tid].cond, [e for n in NEIGHBOURS[cell] if (e := effs[n])])

    def _hope(self, cond: Cond, cell: int, mark: int, effs: list[Eff | None]) -> float:
        if mark != -1:
            return 0.0
        empty = sum(1 for n in NEIGHBOURS[cell] if effs[n] is None)
        if cond.kind == "next_to" and empty:
            return HOPE
        if cond.kind == "at_least":
            have = sum(1 for n in NEIGHBOURS[cell] if (e := effs[n]) and e[0] == cond.target)
            if have + empty >= cond.n:
                return HOPE
        return 0.0

    def gain(self, tid: str, cell: int) -> float:
        """What placing a drawn ``tid`` on the empty ``cell`` adds to the value (a tile kept
        in hand: −1)."""
        tile = TILES[tid]
        eff: Eff = (tile.kind, None if tile.joker else tile.type)
        effs = list(self.effs)
        effs[cell] = eff
        mark = cond_points(tile.cond, [e for n in NEIGHBOURS[cell] if (e := effs[n])])
        total = mark + self._hope(tile.cond, cell, mark, effs)
        for n in NEIGHBOURS[cell]:
            if self.tray[n] is None:
                continue
            cond = TILES[self.tray[n]].cond  # type: ignore[index]
            before = self.marks[n] or 0
            after = self._mark(n, effs)
            total += after - before
            total += self._hope(cond, n, after, effs) - self._hope(cond, n, before, self.effs)
        if eff[1] is not None and eff[1] in self.house and not self.present[eff[1]]:
            total -= 2 * self.house.count(eff[1])  # a House Rule kept until now is broken
        return total


def draw_gain(seat: Seat, faces: Faces, budget: Budget) -> float:
    """The expected gain in value of drawing one of ``faces`` and placing it at its best (−1
    when it is better kept in hand)."""
    tray = Tray(seat)
    empty = [c for c in range(CELLS) if seat.tray[c] is None]
    total = weight = 0.0
    for tid, count in faces.values():
        best = max((tray.gain(tid, c) for c in empty), default=-1.0)
        total += count * max(best, -1.0)  # placed at its best, or kept in hand: −1
        weight += count
        budget.used += 1
    return total / weight if weight else -1.0


def outlook(
    seat: Seat, pools: dict[str, Faces], open_bags: list[str], budget: Budget
) -> tuple[float, str | None]:
    """The better bag to draw from and its expected gain (0 and None when the tray is already
    worth 10: no draw is needed)."""
    if score(seat.tray, seat.house, len(seat.hand), seat.declared).total >= TARGET:
        return 0.0, None
    best: tuple[float, str | None] = (-1.0, None)
    for bag in open_bags:
        if not pools[bag]:
            continue
        gain = draw_gain(seat, pools[bag], budget)
        if best[1] is None or gain > best[0]:
            best = (gain, bag)
    return best


def improvements(seat: Seat, base: float) -> list[tuple[float, Action, Seat]]:
    """Every placement of a hand tile and move of a failing tile that raises the tray's value:
    (value after, the move, the seat after), best first."""
    out: list[tuple[float, Action, Seat]] = []
    hand = seat.hand
    tray = list(seat.tray)
    for tid in _faces(seat).values():
        rest = list(hand)
        rest.remove(tid)
        for cell in range(CELLS):
            if tray[cell] is not None:
                continue
            tray[cell] = tid
            value = _value(seat, tray, len(rest))
            if value > base:
                after = evolve(seat, tray=list(tray), hand=rest)
                out.append((value, PlaceAction(tile=tid, cell=cell), after))
            tray[cell] = None
    for cell in _failing(seat):
        placed = tray[cell]
        assert placed is not None
        for target in range(CELLS):
            if target == cell:
                continue
            tray[cell], tray[target] = tray[target], placed
            value = _value(seat, tray, len(hand))
            if value > base:
                out.append(
                    (value, MoveAction(tile=placed, cell=target), evolve(seat, tray=list(tray)))
                )
            tray[target], tray[cell] = tray[cell], placed
    out.sort(key=lambda c: -c[0])
    return out


def hard_action(
    state: AlienCafeState, pid: str, simulations: int, stop: Callable[[], bool] | None = None
) -> tuple[Action, int]:
    """The seat's move in the service, and how many faces it weighed."""
    seat = state.seats[pid]
    budget = Budget(simulations, stop)
    pools = unseen(state, pid)
    open_bags = [bag for bag in ("red", "blue") if (state.red if bag == "red" else state.blue)]
    base = _value(seat, seat.tray, len(seat.hand))
    candidates = improvements(seat, base)
    if candidates:
        chosen: tuple[float, Action] | None = None
        for value, action, after in candidates[:WIDE]:
            if chosen is not None and budget.spent():
                break
            ahead, _ = outlook(after, pools, open_bags, budget)
            key = value + LOOK * ahead
            if chosen is None or key > chosen[0]:
                chosen = (key, action)
        assert chosen is not None
        return chosen[1], budget.used
    mended = mend(seat, base)
    if mended is not None:
        return mended, budget.used
    stuck = {TILES[t].label for t in seat.hand}  # nothing in hand places with a gain
    gift = give_away(state, pid, stuck)
    if gift is not None:
        return gift, budget.used
    total = score(seat.tray, seat.house, len(seat.hand), seat.declared).total
    if total < TARGET and may_draw(seat, MAX_STUCK):
        _, bag = outlook(seat, pools, open_bags, budget)
        if bag == "red" or bag == "blue":
            return DrawAction(bag=bag), budget.used
    return DoneAction(), budget.used
