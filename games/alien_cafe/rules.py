"""Alien Café's rules: setup, legality (with friendly refusals), moves and the round cycle."""

from __future__ import annotations

from games.alien_cafe.actions import (
    Action,
    DeclareAction,
    DoneAction,
    DrawAction,
    GiveAction,
    HoldAction,
    LevelAction,
    MoveAction,
    PlaceAction,
    TakeBackAction,
)
from games.alien_cafe.scoring import score
from games.alien_cafe.state import (
    CELLS,
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
)
from games.alien_cafe.text import round_results, round_start
from games.alien_cafe.tiles import BLUE_BAG, LEVELS, RED_BAG, SPECIALS, TILES, TYPES, type_icon
from games.presentation import Announcement, player
from games.rng import Rng

BAG_NAME = {"red": "red bag 👽", "blue": "blue bag 🍽️"}


def setup(players: list[str], options: AlienCafeOptions, seed: int) -> AlienCafeState:
    rng = Rng(seed=seed)
    red, blue = list(RED_BAG), list(BLUE_BAG)
    rng.shuffle(red)
    rng.shuffle(blue)
    piles = []
    for level in LEVELS:
        pile = list(SPECIALS[level])
        rng.shuffle(pile)
        piles.append(pile)
    state = AlienCafeState(
        players=list(players),
        rng=rng,
        options=options,
        red=red,
        blue=blue,
        piles=piles,
        seats={p: Seat() for p in players},
    )
    state.announcements.append(
        Announcement(
            title="🛸 Alien Café is open!",
            description=(
                "Round 1: everyone picks a level (0–4) in their DM, then the service starts. "
                f"The table wins at {WINS_NEEDED} successful services and loses at "
                f"{LOSSES_ALLOWED} failed ones."
            ),
            ping=list(players),
        )
    )
    return state


def active_players(state: AlienCafeState) -> set[str]:
    if state.phase == "levels":
        return {p for p in state.players if not state.seats[p].ready}
    if state.phase == "service":
        return {p for p in state.players if not state.seats[p].done}
    return set()


def where(seat: Seat, tile_id: str | None) -> str:
    """ "hand", "tray" or "" for a tile id relative to one seat."""
    if tile_id is None:
        return ""
    if tile_id in seat.hand:
        return "hand"
    if tile_id in seat.tray:
        return "tray"
    return ""


def problem(state: AlienCafeState, pid: str, action: Action) -> str | None:
    """Why ``action`` is refused now, or None when it is legal."""
    if state.phase == "over":
        return "This game is over."
    seat = state.seats.get(pid)
    if seat is None:
        return "You're not seated at this table."
    if isinstance(action, LevelAction):
        if state.phase != "levels":
            return "Levels are picked before the service — this round's service is on."
        if seat.ready:
            return f"You're ready at level {seat.level}; waiting for the others."
        if not 0 <= action.level <= 4:
            return "Pick a level from 0 to 4."
        return None
    if state.phase != "service":
        return "The service hasn't started yet — pick your level first."
    if seat.done:
        return "You're done for this round — your tray is locked until the scoring."
    if isinstance(action, HoldAction):
        if action.tile is not None and not where(seat, action.tile):
            return "That tile isn't in your hand or on your tray."
        return None
    if isinstance(action, PlaceAction):
        if action.tile in seat.tray:
            return "That tile is already on your tray — move it instead."
        if action.tile not in seat.hand:
            return "That tile isn't in your hand."
        if not 0 <= action.cell < CELLS:
            return "There is no such cell."
        if seat.tray[action.cell] is not None:
            return "That cell is taken — pick an empty one (or pick its tile up first)."
        return None
    if isinstance(action, MoveAction):
        if action.tile not in seat.tray:
            return "That tile isn't on your tray."
        if not 0 <= action.cell < CELLS:
            return "There is no such cell."
        if seat.tray[action.cell] == action.tile:
            return "That tile is already there."
        return None
    if isinstance(action, TakeBackAction):
        if action.tile not in seat.tray:
            return "That tile isn't on your tray."
        return None
    if isinstance(action, DrawAction):
        bag = state.red if action.bag == "red" else state.blue
        if not bag:
            other = "blue" if action.bag == "red" else "red"
            other_bag = state.blue if action.bag == "red" else state.red
            hint = f" — try the {BAG_NAME[other]}." if other_bag else "; both bags are empty."
            return f"The {BAG_NAME[action.bag]} is empty{hint}"
        return None
    if isinstance(action, GiveAction):
        if action.tile not in seat.hand:
            return "You can only give a tile from your hand."
        if TILES[action.tile].special:
            return "Special tiles can't be given to other players."
        if action.to == pid:
            return "That tile is already yours."
        if action.to not in state.seats:
            return "That player isn't at this table."
        if state.seats[action.to].done:
            return f"{player(action.to)} is already done — their tray is locked."
        return None
    if isinstance(action, DeclareAction):
        if action.tile not in seat.tray or not TILES[action.tile].joker:
            return "You can only declare a Joker that is on your tray."
        current = seat.declared.get(action.tile)
        if action.as_type == "auto":
            return "That Joker is already automatic." if current is None else None
        if current == action.as_type:
            return f"That Joker already counts as {type_icon(action.as_type)}."
        return None
    if isinstance(action, DoneAction):
        return None
    return "That isn't a move this game knows."


def legal_actions(state: AlienCafeState, pid: str) -> list[Action]:
    if pid not in active_players(state):
        return []
    seat = state.seats[pid]
    if state.phase == "levels":
        return [LevelAction(level=level) for level in range(5)]
    out: list[Action] = [HoldAction(tile=None)]
    placed = [t for t in seat.tray if t is not None]
    out += [HoldAction(tile=t) for t in seat.hand + placed]
    empty = [c for c in range(CELLS) if seat.tray[c] is None]
    out += [PlaceAction(tile=t, cell=c) for t in seat.hand for c in empty]
    for cell, tid in enumerate(seat.tray):
        if tid is not None:
            out += [MoveAction(tile=tid, cell=c) for c in range(CELLS) if c != cell]
    out += [TakeBackAction(tile=t) for t in placed]
    out += [DrawAction(bag="red")] if state.red else []
    out += [DrawAction(bag="blue")] if state.blue else []
    others = [p for p in state.players if p != pid and not state.seats[p].done]
    out += [GiveAction(tile=t, to=p) for t in seat.hand if not TILES[t].special for p in others]
    for tid in placed:
        if TILES[tid].joker:
            current = seat.declared.get(tid)
            out += [DeclareAction(tile=tid, as_type=t) for t in TYPES if t != current]
            if current is not None:
                out.append(DeclareAction(tile=tid, as_type="auto"))
    out.append(DoneAction())
    return out


def apply_action(state: AlienCafeState, pid: str, action: Action) -> AlienCafeState:
    seat = state.seats[pid]
    if isinstance(action, LevelAction):
        seat.level = action.level
        seat.ready = True
        if all(s.ready for s in state.seats.values()):
            start_service(state)
        return state
    seat.note = ""
    if isinstance(action, HoldAction):
        seat.held = action.tile
    elif isinstance(action, PlaceAction):
        seat.hand.remove(action.tile)
        seat.tray[action.cell] = action.tile
        seat.held = None
    elif isinstance(action, MoveAction):
        old = seat.tray.index(action.tile)
        seat.tray[old], seat.tray[action.cell] = seat.tray[action.cell], action.tile
        seat.held = None
    elif isinstance(action, TakeBackAction):
        seat.tray[seat.tray.index(action.tile)] = None
        seat.hand.append(action.tile)
        seat.declared.pop(action.tile, None)
        seat.held = None
    elif isinstance(action, DrawAction):
        bag = state.red if action.bag == "red" else state.blue
        tid = bag.pop()
        seat.hand.append(tid)
        seat.held = tid
        seat.note = f"You drew {TILES[tid].label} from the {BAG_NAME[action.bag]}."
    elif isinstance(action, GiveAction):
        seat.hand.remove(action.tile)
        if seat.held == action.tile:
            seat.held = None
        receiver = state.seats[action.to]
        receiver.hand.append(action.tile)
        label = TILES[action.tile].label
        seat.note = f"You gave {label} to {player(action.to)}."
        receiver.note = f"🎁 {player(pid)} gave you {label}."
    elif isinstance(action, DeclareAction):
        if action.as_type == "auto":
            seat.declared.pop(action.tile, None)
        else:
            seat.declared[action.tile] = action.as_type
    elif isinstance(action, DoneAction):
        seat.done = True
        seat.held = None
        if all(s.done for s in state.seats.values()):
            end_round(state)
    return state


def start_service(state: AlienCafeState) -> None:
    """Deal special tiles (one per level up to each player's level) and 3 + 3 tiles each."""
    for pid in state.players:
        seat = state.seats[pid]
        for level in range(1, seat.level + 1):
            pile = state.piles[level - 1]
            if not pile:
                continue
            tid = pile.pop()
            (seat.house if TILES[tid].kind == "house" else seat.hand).append(tid)
        for _ in range(DEAL_ALIENS):
            if state.red:
                seat.hand.append(state.red.pop())
        for _ in range(DEAL_ORDERS):
            if state.blue:
                seat.hand.append(state.blue.pop())
    state.phase = "service"
    state.announcements.append(round_start(state))


def end_round(state: AlienCafeState) -> None:
    """Score every tray, announce, put the tiles back and start the next round (or end)."""
    evaluations = {}
    for pid in state.players:
        seat = state.seats[pid]
        evaluations[pid] = score(seat.tray, seat.house, len(seat.hand), seat.declared)
    scores = {pid: e.total for pid, e in evaluations.items()}
    success = all(s >= TARGET for s in scores.values())
    result = RoundResult(
        round=state.round,
        scores=scores,
        levels={p: state.seats[p].level for p in state.players},
        success=success,
    )
    state.results.append(result)
    over = (
        state.successes >= WINS_NEEDED
        or state.failures >= LOSSES_ALLOWED
        or state.round >= MAX_ROUNDS
    )
    state.announcements.extend(round_results(state, evaluations, result, over))
    _return_tiles(state)
    if over:
        state.phase = "over"
    else:
        state.round += 1
        state.phase = "levels"


def _return_tiles(state: AlienCafeState) -> None:
    for seat in state.seats.values():
        tiles = seat.hand + [t for t in seat.tray if t is not None] + seat.house
        for tid in tiles:
            t = TILES[tid]
            if t.level:
                state.piles[t.level - 1].append(tid)
            elif t.kind == "alien":
                state.red.append(tid)
            else:
                state.blue.append(tid)
        seat.hand, seat.tray, seat.house = [], [None] * CELLS, []
        seat.held, seat.declared, seat.done, seat.ready, seat.note = None, {}, False, False, ""
    state.rng.shuffle(state.red)
    state.rng.shuffle(state.blue)
    for pile in state.piles:
        state.rng.shuffle(pile)
