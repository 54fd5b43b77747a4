"""Named players for the simulator and the bot levels. They decide from the legal moves (all
built from public cards), what the table shows and, for a peek, their own peeked cards: never
from the hidden deck.

- ``greedy`` (the normal bot): in Mini-Muffin it weighs its heroes (``planning.py``): it lets an
  alien go when no one else can take it and its heroes are worth more kept (the alien waits in
  the escape pile), captures with the heroes it will miss least, gives a treasure to the hero it
  helps most and, in the endgame, takes the escaped aliens that leave the rest of its heroes the
  most. In Full Pancake it captures whenever it can, else takes a hero, a treasure, or draws.
- ``plain``: captures whenever it can, the most valuable alien first, in both modes (the normal
  bot before it weighed its heroes; kept to compare with).
"""

from __future__ import annotations

from typing import Any

from games.breakfast_vs_aliens.capture import alien_need, can_capture, hero_traits
from games.breakfast_vs_aliens.catalogue import card, effect, kind
from games.breakfast_vs_aliens.planning import (
    Target,
    hand,
    potential,
    printed,
    targets,
    with_trait,
)
from games.breakfast_vs_aliens.rules import PASS, legal_actions, rarest_colour, weakest_hero
from games.breakfast_vs_aliens.state import (
    Action,
    Attach,
    AttachStep,
    BvaState,
    Capture,
    Draw,
    EscapeStep,
    JamColour,
    Keep,
    OfferStep,
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
    """The normal player: Mini-Muffin's choices weighed (:func:`weighed`), the rest plain."""
    if not state.full and isinstance(state.pending, OfferStep | EscapeStep | AttachStep):
        return weighed(state, pid)
    return plain(state, pid, rng)


def weighed(state: BvaState, pid: PlayerId) -> Action:
    """Mini-Muffin: the capture, pass or treasure's hero that leaves ``pid`` the most points
    plus the worth of the heroes kept (``planning.potential``)."""
    step = state.pending
    legal = legal_actions(state, pid)
    if isinstance(step, AttachStep):
        bar = card(step.treasure).bar
        assert bar is not None
        heroes, now, pool = state.heroes[pid], hand(state, pid), targets(state)

        def helped(move: Attach) -> tuple[float, int]:
            with_it = with_trait(now, heroes.index(move.hero), bar)
            return potential(with_it, pool), -len(state.attached.get(move.hero, []))

        return max((m for m in legal if isinstance(m, Attach)), key=helped)
    alien = state.alien if isinstance(step, OfferStep) else None
    pool = targets(state, skip=alien)
    choice: tuple[float, Action] = (float("-inf"), PASS)
    for move in legal:
        if isinstance(move, Capture):
            worth = capture_worth(state, pid, move, pool)
            if worth > choice[0]:
                choice = (worth, move)
    if isinstance(step, OfferStep) and alien is not None:
        if any(can_capture(state, p, alien, spatula=False) for p in step.queue):
            # The next in line who can will take it, with its stacked disasters.
            taken = card(alien).points + len(state.alien_disasters)
            kept = potential(hand(state, pid), pool) - taken
        else:
            # Nobody else can take it now: it escapes, to be had at the end.
            kept = potential(hand(state, pid), targets(state, skip=alien, extra=[printed(alien)]))
        if kept > choice[0]:
            choice = (kept, PASS)
    return choice[1]


def capture_worth(
    state: BvaState, pid: PlayerId, move: Capture, pool: tuple[Target, ...] | None = None
) -> float:
    """Mini-Muffin: the points ``move`` takes plus the worth of the heroes it leaves ``pid``
    (``pool``: the aliens still to be had besides the one on offer, when already worked out)."""
    alien = state.alien if isinstance(state.pending, OfferStep) else None
    points = card(move.alien).points
    if move.alien == alien:
        points += len(state.alien_disasters)
    if pool is None or alien is None:
        pool = targets(state, skip=alien if alien is not None else move.alien)
    return points + potential(hand(state, pid, move.heroes), pool)


def plain(state: BvaState, pid: PlayerId, rng: Rng) -> Action:
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

    def play_plain(state: Any, pid: PlayerId, rng: Rng) -> Any:
        return plain(state, pid, rng)

    return {"greedy": play, "plain": play_plain}
