"""What the normal player weighs in Mini-Muffin: the points a hand of heroes may still capture.

A hero leaves a hand only to capture, and an alien nobody captures waits in the escape pile for
the endgame, when every hand may take one in turn. So capturing now is not always best: the
heroes it spends are worth the aliens they could take later, and an alien let go while no one
else can take it is still there at the end, for the hand that kept the heroes. A hand's worth
(:func:`potential`) packs it onto the aliens still to be had (the escape pile, and the aliens
not seen yet, at :data:`UNSEEN_WEIGHT`), the most valuable first, each with the set of heroes
that wastes the fewest traits: a greedy packing, quick, and close enough to compare two moves.

Everything here reads only the table: heroes, jails, the escape pile and the discards are face
up, and the unseen aliens are the printed ones minus those (never the deck's order).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from games.breakfast_vs_aliens.capture import TRAITS, Vector, hero_traits, vector
from games.breakfast_vs_aliens.catalogue import ALL_CARDS, COLOURS, Colour, card, kind
from games.breakfast_vs_aliens.state import BvaState
from games.engine import PlayerId

ALIENS = tuple(c for c in ALL_CARDS if kind(c) == "alien")

# How much an unseen alien's points count in a hand's worth, against 1 for one in the escape
# pile. Above 1: keeping heroes for the aliens to come pays more than a cheap capture now (with
# `python -m bot arena --game breakfast-vs-aliens --seats normal,easy`, seeds 1-4, 800 games:
# 0.5 → 81 %, 1.0 → 88 %, 1.5 → 94 %, 2.0 → 93 % of the wins).
UNSEEN_WEIGHT = 1.5

Hand = tuple[Vector, ...]  # a player's heroes as trait counts (their treasures included)
Target = tuple[float, Vector]  # an alien worth weighing: its weighted points, the traits it needs


def hand(state: BvaState, pid: PlayerId, without: Sequence[str] = ()) -> Hand:
    """``pid``'s heroes but ``without``, as trait counts."""
    attached = state.attached
    return tuple(
        vector(hero_traits(state, h)) if h in attached else TRAITS[h]
        for h in state.heroes[pid]
        if h not in without
    )


def with_trait(heroes: Hand, index: int, colour: Colour) -> Hand:
    """``heroes`` with one more ``colour`` trait on the hero at ``index`` (a treasure)."""
    more = list(heroes[index])
    more[COLOURS.index(colour)] += 1
    return (*heroes[:index], (more[0], more[1], more[2], more[3]), *heroes[index + 1 :])


@functools.lru_cache(maxsize=65_536)
def cover(heroes: Hand, need: Vector) -> tuple[int, ...] | None:
    """The positions of a set of ``heroes`` covering ``need`` that wastes the fewest traits
    (then uses the fewest heroes); None when they cannot. (Cached: the same hands and aliens
    come up again and again, in one decision and in the search's simulated games.)"""
    wanted = sum(need)
    if not wanted:
        return ()
    for c in range(4):  # the whole hand first: most misses end here
        if sum(v[c] for v in heroes) < need[c]:
            return None
    sizes = [sum(v) for v in heroes]
    best: list[tuple[int, int, tuple[int, ...]]] = []

    def search(rest: Vector, used: tuple[int, ...], spent: int) -> None:
        if best and (spent - wanted, len(used)) >= best[0][:2]:
            return  # already no better than the best set found
        r0, r1, r2, r3 = rest
        colour = 0 if r0 > 0 else 1 if r1 > 0 else 2 if r2 > 0 else 3 if r3 > 0 else -1
        if colour < 0:
            best[:] = [(spent - wanted, len(used), used)]
            return
        options: list[tuple[int, int, Vector]] = []
        tried: set[Vector] = set()
        for i, vec in enumerate(heroes):
            if vec[colour] <= 0 or i in used or vec in tried:
                continue
            tried.add(vec)  # heroes with the same traits are interchangeable
            v0, v1, v2, v3 = vec
            left = (
                r0 - v0 if r0 > v0 else 0,
                r1 - v1 if r1 > v1 else 0,
                r2 - v2 if r2 > v2 else 0,
                r3 - v3 if r3 > v3 else 0,
            )
            # Traits this hero would waste: the least wasteful first, so pruning bites early.
            options.append((sizes[i] - (r0 + r1 + r2 + r3 - sum(left)), i, left))
        options.sort()
        for _, i, left in options:
            search(left, (*used, i), spent + sizes[i])

    search(need, (), 0)
    return best[0][2] if best else None


@functools.lru_cache(maxsize=65_536)
def potential(heroes: Hand, targets: tuple[Target, ...]) -> float:
    """The weighted points ``heroes`` can capture among ``targets`` (sorted, the most valuable
    first: see :func:`targets`), each with its least wasteful set."""
    left = heroes
    total = 0.0
    for worth, need in targets:
        if not left:
            break
        used = cover(left, need)
        if used is not None:
            total += worth
            left = tuple(v for i, v in enumerate(left) if i not in used)
    return total


def printed(alien: str) -> Target:
    """An alien's points and traits as printed (an escaped alien's disasters are discarded)."""
    return PRINTED[alien]


PRINTED: dict[str, Target] = {a: (float(card(a).points), TRAITS[a]) for a in ALIENS}


def unseen_aliens(state: BvaState) -> list[str]:
    """The aliens nobody has seen yet: they are somewhere in the deck."""
    seen = set(state.escaped)
    if state.alien is not None:
        seen.add(state.alien)
    for jail in state.jails.values():
        seen.update(jail)
    seen.update(state.discard)
    return [a for a in ALIENS if a not in seen]


def targets(
    state: BvaState, skip: str | None = None, extra: Sequence[Target] = ()
) -> tuple[Target, ...]:
    """The aliens still to be had (but ``skip``; with ``extra``), the most valuable first: the
    escape pile at their points, the unseen ones at :data:`UNSEEN_WEIGHT` times theirs."""
    out = [printed(a) for a in state.escaped if a != skip]
    for alien in unseen_aliens(state):
        points, need = printed(alien)
        out.append((UNSEEN_WEIGHT * points, need))
    out.extend(extra)
    out.sort(key=lambda t: (-t[0], sum(t[1]), t[1]))
    return tuple(out)
