"""Named players for the simulator. They decide from the legal moves (all built from public
cards) and, for a peek, from their own peeked cards: never from the hidden deck."""

from __future__ import annotations

from typing import Any

from games.breakfast_vs_aliens.capture import alien_need, hero_traits
from games.breakfast_vs_aliens.catalogue import card, effect, kind
from games.breakfast_vs_aliens.rules import legal_actions, rarest_colour, weakest_hero
from games.breakfast_vs_aliens.state import (
    Action,
    Attach,
    AttachStep,
    BvaState,
    Capture,
    Draw,
    JamColour,
    Keep,
    Pass,
    PutBack,
    Shield,
    ShieldStep,
    Take,
)
from games.engine import PlayerId, Strategy
from games.rng import Rng


def capture_value(state: BvaState, move: Capture) -> tuple[int, int, int, int]:
    """The most valuable alien first; then fewer heroes, no spatula, fewer wasted traits."""
    have = sum(len(hero_traits(state, h)) for h in move.heroes)
    return (
        card(move.alien).points + sum(alien_need(state, move.alien)),
        -len(move.heroes),
        0 if move.ignore else 1,
        -have,
    )


def hero_strength(state: BvaState, hero: str) -> int:
    return len(hero_traits(state, hero))


def greedy(state: BvaState, pid: PlayerId, rng: Rng) -> Action:
    """Capture whenever possible (the most valuable alien first); otherwise take a hero, then a
    treasure, from the play cards, or draw. Cancel disasters that hurt you."""
    legal = legal_actions(state, pid)
    captures = [m for m in legal if isinstance(m, Capture)]
    if captures:
        return max(captures, key=lambda m: capture_value(state, m))
    step = state.pending
    if isinstance(step, AttachStep):
        # The hero with the fewest treasures, so one capture does not lose them all.
        attaches = [m for m in legal if isinstance(m, Attach)]
        return min(attaches, key=lambda m: len(state.attached.get(m.hero, [])))
    if isinstance(step, ShieldStep):
        assert state.disaster is not None
        hurts = effect(state.disaster) == "spilled_milk" or (
            effect(state.disaster) == "burnt_toast" and state.current == pid
        )
        return Shield(use=hurts)
    if any(isinstance(m, JamColour) for m in legal):
        return JamColour(colour=rarest_colour(state, pid))
    keeps = [m for m in legal if isinstance(m, Keep)]
    if keeps:
        best = [m for m in keeps if m.card and kind(m.card) == "hero"]
        best.sort(key=lambda m: -len(card(m.card).traits) if m.card else 0)
        return (best or keeps)[0]
    takes = [m for m in legal if isinstance(m, Take)]
    heroes = [m for m in takes if kind(m.card) == "hero"]
    if heroes:
        return max(heroes, key=lambda m: len(card(m.card).traits))
    if takes:
        return takes[0]
    for simple in (Draw(), PutBack(), Pass()):
        if simple in legal:
            return simple
    # Spilled Milk, Burnt Toast: give up the weakest hero; a compass: keep the order.
    for move in legal:
        hero = getattr(move, "hero", None)
        if hero is not None and hero == weakest_hero(state, pid):
            return move
    return legal[0]


def strategies() -> dict[str, Strategy]:
    def play(state: Any, pid: PlayerId, rng: Rng) -> Any:
        return greedy(state, pid, rng)

    return {"greedy": play}
