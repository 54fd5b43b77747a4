"""Alien Café's rules: setup, moves and the round cycle (legality is in legality.py).

Copy-on-write: ``apply_action`` never mutates the state it is given. It builds the new state with
:func:`~games.kit.evolve`, sharing every list, dict and seat the move leaves alone, so
no container of a state may be changed in place once the state exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.alien_cafe.actions import (
    Action,
    DeclareAction,
    DoneAction,
    DrawAction,
    GiveAction,
    HoldAction,
    LevelAction,
    MoveAction,
    OfferAction,
    PlaceAction,
    RequestAction,
    TakeBackAction,
    WithdrawAction,
)
from games.alien_cafe.announce import opening, round_results, round_start
from games.alien_cafe.catalogue import BAG_NAME, BLUE_BAG, RED_BAG, SPECIALS, TILES
from games.alien_cafe.catalogue import LEVELS as SPECIAL_LEVELS
from games.alien_cafe.scoring import score
from games.alien_cafe.state import (
    DEAL_ALIENS,
    DEAL_ORDERS,
    LOSSES_ALLOWED,
    MAX_ROUNDS,
    TARGET,
    WINS_NEEDED,
    AlienCafeOptions,
    AlienCafeState,
    RoundResult,
    Seat,
    TrayRecord,
)
from games.kit import evolve
from games.presentation import player
from games.rng import Rng


def setup(players: list[str], options: AlienCafeOptions, seed: int) -> AlienCafeState:
    rng = Rng(seed=seed)
    red, blue = list(RED_BAG), list(BLUE_BAG)
    rng.shuffle(red)
    rng.shuffle(blue)
    piles = []
    for level in SPECIAL_LEVELS:
        pile = list(SPECIALS[level])
        rng.shuffle(pile)
        piles.append(pile)
    return AlienCafeState(
        players=list(players),
        rng=rng,
        options=options,
        red=red,
        blue=blue,
        piles=piles,
        seats={p: Seat() for p in players},
        announcements=[opening()],
    )


# -- moves -----------------------------------------------------------------------------------------
def _with_seat(state: AlienCafeState, pid: str, seat: Seat) -> AlienCafeState:
    seats = state.seats.copy()
    seats[pid] = seat
    return evolve(state, seats=seats)


def apply_action(state: AlienCafeState, pid: str, action: Action) -> AlienCafeState:
    own = _OWN_MOVES.get(action.type)
    if own is not None:
        return _with_seat(state, pid, own(state.seats[pid], action))
    return _TABLE_MOVES[action.type](state, pid, action)


def _level(state: AlienCafeState, pid: str, action: LevelAction) -> AlienCafeState:
    state = _with_seat(state, pid, evolve(state.seats[pid], level=action.level, ready=True))
    if all(s.ready for s in state.seats.values()):
        state = start_service(state)
    return state


def _draw(state: AlienCafeState, pid: str, action: DrawAction) -> AlienCafeState:
    seat = state.seats[pid]
    bag = state.red if action.bag == "red" else state.blue
    tid = bag[-1]
    drawn = evolve(
        seat,
        hand=[*seat.hand, tid],
        held=tid,
        note=f"You drew {TILES[tid].label} from the {BAG_NAME[action.bag]}.",
    )
    state = evolve(state, **{action.bag: bag[:-1]})
    return _with_seat(state, pid, drawn)


def _done(state: AlienCafeState, pid: str, action: DoneAction) -> AlienCafeState:
    seat = evolve(state.seats[pid], done=True, held=None, note="", request=None, offer=None)
    state = _with_seat(state, pid, seat)
    if all(s.done for s in state.seats.values()):
        state = end_round(state)
    return state


# Moves that change only the mover's own seat.
def _hold(seat: Seat, action: HoldAction) -> Seat:
    return evolve(seat, held=action.tile, note="")


def _place(seat: Seat, action: PlaceAction) -> Seat:
    hand = list(seat.hand)
    hand.remove(action.tile)
    tray = list(seat.tray)
    tray[action.cell] = action.tile
    offer = None if seat.offer == action.tile else seat.offer
    return evolve(seat, hand=hand, tray=tray, held=None, note="", offer=offer)


def _move(seat: Seat, action: MoveAction) -> Seat:
    tray = list(seat.tray)
    old = tray.index(action.tile)
    tray[old], tray[action.cell] = tray[action.cell], action.tile
    return evolve(seat, tray=tray, held=None, note="")


def _take_back(seat: Seat, action: TakeBackAction) -> Seat:
    tray = list(seat.tray)
    tray[tray.index(action.tile)] = None
    declared = seat.declared
    if action.tile in declared:
        declared = {t: d for t, d in declared.items() if t != action.tile}
    return evolve(
        seat, tray=tray, hand=[*seat.hand, action.tile], declared=declared, held=None, note=""
    )


def _declare(seat: Seat, action: DeclareAction) -> Seat:
    declared = {t: d for t, d in seat.declared.items() if t != action.tile}
    if action.as_type != "auto":
        declared[action.tile] = action.as_type
    return evolve(seat, declared=declared, note="")


def _request(seat: Seat, action: RequestAction) -> Seat:
    return evolve(seat, request=action.want, note="")


def _offer(seat: Seat, action: OfferAction) -> Seat:
    return evolve(seat, offer=action.tile, note="")


def _withdraw(seat: Seat, action: WithdrawAction) -> Seat:
    return evolve(seat, note="", **{action.what: None})


def _give(state: AlienCafeState, pid: str, action: GiveAction) -> AlienCafeState:
    seat, receiver = state.seats[pid], state.seats[action.to]
    tid = action.tile
    label = TILES[tid].label
    hand = list(seat.hand)
    hand.remove(tid)
    giver = evolve(
        seat,
        hand=hand,
        held=None if seat.held == tid else seat.held,
        offer=None if seat.offer == tid else seat.offer,
        note=f"You gave {label} to {player(action.to)}.",
    )
    met = receiver.request is not None and TILES[tid].type == receiver.request
    got = evolve(
        receiver,
        hand=[*receiver.hand, tid],
        request=None if met else receiver.request,
        note=f"🎁 {player(pid)} gave you {label}.",
    )
    seats = state.seats.copy()
    seats[pid], seats[action.to] = giver, got
    return evolve(state, seats=seats)


# -- the round cycle -------------------------------------------------------------------------------
def start_service(state: AlienCafeState) -> AlienCafeState:
    """Deal special tiles (one per level up to each player's level) and 3 + 3 tiles each."""
    red, blue = list(state.red), list(state.blue)
    piles = [list(p) for p in state.piles]
    seats = {}
    for pid in state.players:
        seat = state.seats[pid]
        hand: list[str] = []
        house: list[str] = []
        for level in range(1, seat.level + 1):
            pile = piles[level - 1]
            if pile:
                tid = pile.pop()
                (house if TILES[tid].kind == "house" else hand).append(tid)
        hand += [red.pop() for _ in range(min(DEAL_ALIENS, len(red)))]
        hand += [blue.pop() for _ in range(min(DEAL_ORDERS, len(blue)))]
        seats[pid] = evolve(seat, hand=hand, house=house)
    state = evolve(state, red=red, blue=blue, piles=piles, seats=seats, phase="service")
    return evolve(state, announcements=[*state.announcements, round_start(state)])


def end_round(state: AlienCafeState) -> AlienCafeState:
    """Score every tray, announce, put the tiles back and start the next round (or end)."""
    evaluations = {}
    records = {}
    for pid in state.players:
        seat = state.seats[pid]
        ev = score(seat.tray, seat.house, len(seat.hand), seat.declared)
        evaluations[pid] = ev
        records[pid] = TrayRecord(
            tray=seat.tray, jokers=ev.declarations, house=seat.house, in_hand=len(seat.hand)
        )
    scores = {pid: e.total for pid, e in evaluations.items()}
    result = RoundResult(
        round=state.round,
        scores=scores,
        levels={p: state.seats[p].level for p in state.players},
        success=all(s >= TARGET for s in scores.values()),
    )
    results = [*state.results, result]
    successes = sum(1 for r in results if r.success)
    over = (
        successes >= WINS_NEEDED
        or len(results) - successes >= LOSSES_ALLOWED
        or state.round >= MAX_ROUNDS
    )
    state = evolve(state, results=results, last_trays=records)
    news = round_results(state, evaluations, result, over)
    state = _return_tiles(state)
    return evolve(
        state,
        announcements=[*state.announcements, *news],
        phase="over" if over else "levels",
        round=state.round if over else state.round + 1,
    )


def _return_tiles(state: AlienCafeState) -> AlienCafeState:
    red, blue = list(state.red), list(state.blue)
    piles = [list(p) for p in state.piles]
    for seat in state.seats.values():
        for tid in [*seat.hand, *(t for t in seat.tray if t is not None), *seat.house]:
            t = TILES[tid]
            if t.level:
                piles[t.level - 1].append(tid)
            elif t.kind == "alien":
                red.append(tid)
            else:
                blue.append(tid)
    rng = state.rng.model_copy()
    rng.shuffle(red)
    rng.shuffle(blue)
    for pile in piles:
        rng.shuffle(pile)
    seats = {pid: Seat(level=seat.level) for pid, seat in state.seats.items()}
    return evolve(state, red=red, blue=blue, piles=piles, seats=seats, rng=rng)


# Dispatch by the action's type (quicker than a chain of isinstance checks on a hot path).
_OWN_MOVES: dict[str, Callable[[Seat, Any], Seat]] = {
    "hold": _hold,
    "place": _place,
    "move": _move,
    "take_back": _take_back,
    "declare": _declare,
    "request": _request,
    "offer": _offer,
    "withdraw": _withdraw,
}
_TABLE_MOVES: dict[str, Callable[[AlienCafeState, str, Any], AlienCafeState]] = {
    "level": _level,
    "draw": _draw,
    "give": _give,
    "done": _done,
}
