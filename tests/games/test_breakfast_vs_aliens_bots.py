"""Breakfast vs Aliens' normal player (``strategies.greedy``) in Mini-Muffin: it weighs the heroes
a capture spends against the aliens still to come (``planning.py``), where the plain player
captures whatever it can."""

from __future__ import annotations

from games.breakfast_vs_aliens.planning import cover, potential, targets, unseen_aliens
from games.breakfast_vs_aliens.state import Attach, Capture, Draw, Pass
from games.breakfast_vs_aliens.strategies import greedy, plain
from games.rng import Rng
from tests.games.test_breakfast_vs_aliens import (
    BAGEL,
    CAPTAIN,
    FRENCH_RB,
    GLOOP_RB,
    SCONE_PY,
    SIR_TOAST,
    SPATULA_Y,
    WAFFLE,
    ZLORG,
    ZORP_R,
    act,
    build,
)

RNG = Rng(seed=1)


def test_a_cover_wastes_the_fewest_traits_then_uses_the_fewest_heroes() -> None:
    r, rb, py, y = (1, 0, 0, 0), (1, 1, 0, 0), (0, 0, 1, 1), (0, 0, 0, 1)
    assert cover((rb, r, py), (1, 0, 0, 0)) == (1,)  # the plain red hero, not the two-trait one
    assert cover((rb, r, py), (1, 1, 1, 1)) == (0, 2)
    assert cover((r, y), (0, 1, 0, 0)) is None
    assert cover((r,), (0, 0, 0, 0)) == ()
    # Emperor Zlorg (8) first: one hand cannot also take Glitch Gloop with the same heroes.
    pool = ((8.0, (1, 1, 1, 1)), (3.0, (1, 1, 0, 0)))
    assert potential((rb, py), pool) == 8.0
    assert potential((rb, py, rb), pool) == 11.0


def test_the_aliens_still_to_come_are_only_those_no_one_has_seen() -> None:
    state = build(("a", "b"), heroes={"a": [CAPTAIN]}, escaped=[GLOOP_RB], deck=[ZLORG])
    assert unseen_aliens(state) == [ZLORG]  # the rest are in the discard pile: seen
    assert [need for _, need in targets(state)] == [(1, 1, 1, 1), (1, 1, 0, 0)]


def offered_zorp(mine: list[str], theirs: list[str]) -> tuple[object, object]:
    """a draws Shivery Zorp (red, 1 point), every other card still in the deck: the normal and
    the plain player's answers."""
    state = build(("a", "b"), heroes={"a": mine, "b": theirs}, deck=[ZORP_R], rest_to_deck=True)
    state = act(state, "a", Draw())
    assert state.alien == ZORP_R and state.pending is not None
    return greedy(state, "a", RNG), plain(state, "a", RNG)


def test_it_lets_go_an_alien_nobody_else_can_take_rather_than_break_a_strong_team() -> None:
    # Capturing it would spend French Toast Knight, half of a team that takes Emperor Zlorg (8).
    normal, captures = offered_zorp([FRENCH_RB, SCONE_PY], [WAFFLE])
    assert captures == Capture(alien=ZORP_R, heroes=[FRENCH_RB])
    assert normal == Pass()  # it escapes: there for the taking at the end


def test_it_captures_what_the_next_player_would_take_if_its_heroes_are_cheap() -> None:
    mine = [CAPTAIN, FRENCH_RB, SCONE_PY]
    normal, _ = offered_zorp(mine, [SIR_TOAST])  # b could capture it
    assert normal == Capture(alien=ZORP_R, heroes=[CAPTAIN])
    normal, _ = offered_zorp(mine, [WAFFLE])  # b could not: Captain Pancake is kept for later
    assert normal == Pass()


def test_a_treasure_goes_to_the_hero_it_makes_a_match_of() -> None:
    # A yellow bar on Captain Pancake (red) makes a red-yellow hero: Yawning Yonk (3) alone.
    state = build(("a", "b"), heroes={"a": [BAGEL, CAPTAIN]}, deck=[SPATULA_Y], rest_to_deck=True)
    state = act(state, "a", Draw())
    assert greedy(state, "a", RNG) == Attach(hero=CAPTAIN)
    assert plain(state, "a", RNG) == Attach(hero=BAGEL)
