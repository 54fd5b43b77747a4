"""Who may move and which moves are legal now: the listed legal moves (shared action instances,
see actions.py), and a direct check with a friendly refusal for any one move."""

from __future__ import annotations

from operator import itemgetter

from games.alien_cafe.actions import (
    DECLARE,
    DONE,
    DRAW_BLUE,
    DRAW_RED,
    GIVEABLE,
    HOLD,
    HOLD_NOTHING,
    LEVELS,
    MOVES_FROM,
    OFFER,
    PLACE,
    REQUEST,
    TAKE_BACK,
    WITHDRAW_OFFER,
    WITHDRAW_REQUEST,
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
    gives_to,
)
from games.alien_cafe.catalogue import BAG_NAME, TILES, TYPES, type_icon
from games.alien_cafe.state import CELLS, AlienCafeState, Seat
from games.presentation import player


def active_players(state: AlienCafeState) -> set[str]:
    if state.phase == "levels":
        return {p for p, s in state.seats.items() if not s.ready}
    if state.phase == "service":
        return {p for p, s in state.seats.items() if not s.done}
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


def can_post(state: AlienCafeState) -> bool:
    """Requests and offers are for the other players: not in a solo game."""
    return len(state.players) > 1


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
    if isinstance(action, RequestAction | OfferAction) and not can_post(state):
        return "Requests and offers are for the other players — you're playing solo."
    if isinstance(action, RequestAction):
        if seat.request == action.want:
            return f"You're already asking for {type_icon(action.want)}."
        return None
    if isinstance(action, OfferAction):
        if action.tile not in seat.hand:
            return "You can only offer a tile from your hand."
        if TILES[action.tile].special:
            return "Special tiles can't be given to other players."
        if seat.offer == action.tile:
            return "You're already offering that tile."
        return None
    if isinstance(action, WithdrawAction):
        if (seat.request if action.what == "request" else seat.offer) is None:
            return f"You have no open {action.what} to withdraw."
        return None
    if isinstance(action, DoneAction):
        return None
    return "That isn't a move this game knows."


def legal_actions(state: AlienCafeState, pid: str) -> list[Action]:
    seat = state.seats.get(pid)
    if seat is None:
        return []
    if state.phase == "levels":
        return [] if seat.ready else list(LEVELS)
    if state.phase != "service" or seat.done:
        return []
    hand, tray = seat.hand, seat.tray
    placed = [t for t in tray if t is not None]
    out: list[Action] = [HOLD_NOTHING]
    out += [HOLD[t] for t in hand]
    out += [HOLD[t] for t in placed]
    empty = [c for c in range(CELLS) if tray[c] is None]
    if len(empty) > 1:
        pick = itemgetter(*empty)  # one C call per hand tile instead of a Python loop
        for tid in hand:
            out += pick(PLACE[tid])
    elif empty:
        out += [PLACE[tid][empty[0]] for tid in hand]
    for cell, on_tray in enumerate(tray):
        if on_tray is not None:
            out += MOVES_FROM[on_tray][cell]
    out += [TAKE_BACK[t] for t in placed]
    if state.red:
        out.append(DRAW_RED)
    if state.blue:
        out.append(DRAW_BLUE)
    giveable = [t for t in hand if t in GIVEABLE]
    for other in state.players:
        if other != pid and not state.seats[other].done:
            table = gives_to(other)
            out += [table[t] for t in giveable]
    for tid in placed:
        if TILES[tid].joker:
            current = seat.declared.get(tid)
            out += [DECLARE[tid, t] for t in TYPES if t != current]
            if current is not None:
                out.append(DECLARE[tid, "auto"])
    if can_post(state):
        out += [REQUEST[t] for t in TYPES if t != seat.request]
        out += [OFFER[t] for t in giveable if t != seat.offer]
        if seat.request is not None:
            out.append(WITHDRAW_REQUEST)
        if seat.offer is not None:
            out.append(WITHDRAW_OFFER)
    out.append(DONE)
    return out
