"""Whose move it is, which moves are legal, and applying one.

Copy-on-write: ``apply_action`` never changes the state it is given. A pick, ballot or confirm
builds a new state sharing everything it does not change (so no code may change a state's
containers in place once it is shared); the confirm that completes a round hands over to
``dinner.end_round``, which works on a private copy.
"""

from __future__ import annotations

from functools import lru_cache

from games.cafe_carnage.catalogue import (
    ACTION_NAME,
    COURSES,
    DISHES,
    action_kind,
    action_owner,
    dish,
    run_card,
)
from games.cafe_carnage.choices import (
    default_card,
    default_dish,
    eaten_names,
    missing,
    missing_words,
    offered,
)
from games.cafe_carnage.dinner import end_round
from games.cafe_carnage.state import AutoPlay, CafeAction, CafeState, Confirm, Pick, Play
from games.engine import Clock, PlayerId, Undo
from games.kit import evolve


def active_players(state: CafeState) -> set[PlayerId]:
    if state.over:
        return set()
    return set(state.players).difference(state.confirmed)


def awaited(state: CafeState, player: PlayerId) -> bool:
    return not state.over and player in state.menus and player not in state.confirmed


def legal_actions(state: CafeState, player: PlayerId) -> list[CafeAction]:
    """Picks from the dishes on offer, plays from the hand, and Confirm once nothing is missing.
    (The deadline's AutoPlay is accepted from any awaited player but never offered.)"""
    if not awaited(state, player):
        return []
    actions: list[CafeAction] = [
        Pick(card=card) for course in COURSES for card in offered(state, player, course)
    ]
    actions.extend(Play(card=card) for card in state.hands[player])
    if not missing(state, player):
        actions.append(Confirm())
    return actions


def is_legal(state: CafeState, player: PlayerId, action: object) -> bool:
    """``action in legal_actions(...)``, checked directly (plus AutoPlay while awaited)."""
    if not awaited(state, player):
        return False
    if isinstance(action, Pick):
        card = DISHES.get(action.card)
        return card is not None and action.card in offered(state, player, card.course)
    if isinstance(action, Play):
        return action.card in state.hands[player]
    if isinstance(action, Confirm):
        return not missing(state, player)
    return isinstance(action, AutoPlay)


def explain_illegal(state: CafeState, player: PlayerId, action: object) -> str:
    if isinstance(action, Pick):
        if action.card not in DISHES:
            return "There is no such dish."
        d = dish(action.card)
        on_menu = action.card in state.menus.get(player, {}).get(d.course, [])
        if on_menu and d.name in eaten_names(state, player):
            return (
                f"You ate {d.name} in an earlier round — no repeats: pick a {d.course} "
                "you haven't eaten yet."
            )
        return f"{d.name} isn't on your menu this round."
    if isinstance(action, Play):
        kind = action_kind(action.card)
        if kind is None or action_owner(action.card) != player:
            return "That isn't one of your action cards."
        if action.card == run_card(player) and player in state.run_discarded:
            return "Your RUN! card is gone — you escaped once and can't run again."
        return f"You don't hold that {ACTION_NAME[kind]} card any more."
    if isinstance(action, Confirm):
        return f"Choose {missing_words(missing(state, player))} before you confirm."
    return "That move isn't allowed right now."


def apply_action(state: CafeState, player: PlayerId, action: CafeAction) -> CafeState:
    """The state after a legal move; ``state`` itself is left as it is."""
    if isinstance(action, Pick):
        mine = {**state.picks[player], dish(action.card).course: action.card}
        return evolve(state, picks={**state.picks, player: mine})
    if isinstance(action, Play):
        return evolve(state, played={**state.played, player: action.card})
    new = evolve(state, confirmed=[*state.confirmed, player])
    if isinstance(action, AutoPlay):
        chosen = state.picks[player]
        mine = {c: chosen.get(c) or default_dish(state, player, c) for c in COURSES}
        new = evolve(
            new,
            picks={**state.picks, player: mine},
            played={
                **state.played,
                player: state.played.get(player) or default_card(state, player),
            },
            auto_played=[*state.auto_played, player],
        )
    if len(new.confirmed) == len(new.players):
        return end_round(new)
    return new


def completes_round(before: CafeState, after: CafeState) -> bool:
    return after.round != before.round or after.over != before.over


def undo_policy(before: CafeState, after: CafeState, action: CafeAction) -> Undo:
    """Your own choices and your confirm are yours to take back until the round is revealed;
    the move that completed the round (the reveal, and the next menus drawn) never is. Neither
    is the deadline's AutoPlay: the table's time for this round is up."""
    if isinstance(action, AutoPlay) or completes_round(before, after):
        return Undo.NEVER
    return Undo.FREE


def clock(state: CafeState) -> Clock | None:
    if state.over:
        return None
    return _clock(state.round, state.options.turn_timeout)


@lru_cache(maxsize=64)
def _clock(round: int, seconds: int) -> Clock:
    """Asked a few times a move: one per round and timer (front ends never change it)."""
    return Clock(key=f"r{round}", seconds=seconds)
