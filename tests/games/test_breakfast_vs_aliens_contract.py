"""Breakfast vs Aliens against the engine contract: copy-on-write (apply never changes a state it
was given, nor one before it), the direct is_legal agrees with legal_actions, and games recorded
before the engine became copy-on-write replay to exactly the same states."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from itertools import permutations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.breakfast_vs_aliens import GAME
from games.breakfast_vs_aliens.catalogue import ALL_CARDS, COLOURS, kind
from games.breakfast_vs_aliens.state import (
    Action,
    Arrange,
    Attach,
    Burn,
    BvaOptions,
    BvaState,
    Capture,
    Draw,
    Give,
    JamColour,
    Keep,
    Pass,
    PutBack,
    Shield,
    Take,
    Use,
)
from games.engine import apply
from games.rng import Rng
from tests.games.replays import recorded, replay_and_compare
from tests.playing import random_move

MODES = ["mini-muffin", "full-pancake"]
HEROES = [c for c in ALL_CARDS if kind(c) == "hero"]
ALIENS = [c for c in ALL_CARDS if kind(c) == "alien"]
# Every move that names no alien or order, each card it may name included.
EVERY_SIMPLE_MOVE: list[Action] = [
    Draw(),
    Pass(),
    PutBack(),
    Shield(use=True),
    Shield(use=False),
    Keep(card=None),
    *(JamColour(colour=c) for c in COLOURS),
    *(move(card=c) for c in ALL_CARDS for move in (Take, Use, Keep)),
    *(move(hero=h) for h in HEROES for move in (Attach, Give, Burn)),
]


def random_game(mode: str, players: int, seed: int) -> Iterator[tuple[BvaState, str, Action]]:
    """Each state of a random game (some moves the timeout's) with the move played from it."""
    rng = Rng(seed=seed)
    state = GAME.setup([f"p{i}" for i in range(players)], BvaOptions(mode=mode), seed)
    while GAME.outcome(state) is None:
        pid, action = random_move(GAME, state, rng, timeout_one_in=8)
        yield state, pid, action
        state = apply(GAME, state, pid, action)
    yield state, "", Draw()


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_apply_never_changes_a_state_it_was_given_nor_any_earlier_one(
    mode: str, seed: int, players: int
) -> None:
    """Deep copies of every state of a game, compared at the end: a move that changed a list or
    dict it shares with an earlier state (copy-on-write aliasing) shows here."""
    kept: list[tuple[BvaState, BvaState]] = []
    for state, _pid, _action in random_game(mode, players, seed):
        kept.append((state, copy.deepcopy(state)))
    assert len(kept) > 10
    for state, snapshot in kept:
        assert state == snapshot
        assert state.model_dump_json() == snapshot.model_dump_json()
    # Moves share what they leave alone: the options and the generator, at least.
    assert all(state.options is kept[0][0].options for state, _ in kept[1:])
    assert all(state.rng is kept[0][0].rng for state, _ in kept[1:])


def captures_to_try(state: BvaState, legal: list[Action]) -> list[Capture]:
    """The listed captures, and each of them aimed at every alien not on offer."""
    listed = [m for m in legal if isinstance(m, Capture)]
    return listed + [
        Capture(alien=alien, heroes=move.heroes, ignore=move.ignore)
        for move in listed[:3]
        for alien in ALIENS
        if alien not in (state.alien, *state.play, *state.escaped)
    ]


def orders_to_try(state: BvaState) -> list[Arrange]:
    peek = state.peek
    wrong = [[*peek[:-1], peek[0]], peek[:-1], [*peek, ALL_CARDS[0]]] if peek else [[]]
    return [Arrange(order=list(p)) for p in permutations(peek)] + [Arrange(order=o) for o in wrong]


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_is_legal_agrees_with_legal_actions(mode: str, seed: int, players: int) -> None:
    allowed: set[str] = set()  # the kinds of moves found legal
    for state, _pid, _action in random_game(mode, players, seed):
        for pid in state.players:
            legal = list(GAME.legal_actions(state, pid))
            for move in [*EVERY_SIMPLE_MOVE, *orders_to_try(state)]:
                assert GAME.is_legal(state, pid, move) == (move in legal), (pid, move)
            # Any covering set of one's own heroes may capture, not only the minimal sets listed:
            # the listed captures, and the same aimed at aliens that are not on offer.
            for capture in captures_to_try(state, legal):
                assert GAME.is_legal(state, pid, capture) == (capture in legal), (pid, capture)
            allowed |= {m.type for m in legal}
    assert {"draw", "capture", "attach", "pass" if mode == "mini-muffin" else "take"} <= allowed


def test_legal_actions_share_frozen_moves() -> None:
    state = GAME.setup(["a", "b"], BvaOptions(), 1)
    first = GAME.legal_actions(state, state.current)
    assert first == [Draw()] and first[0] is GAME.legal_actions(state, state.current)[0]
    with pytest.raises(ValueError, match="frozen"):
        first[0].type = "pass"  # type: ignore[assignment]


@pytest.mark.parametrize(
    "record", recorded(GAME.id), ids=lambda r: f"{r['options']['mode']}-{len(r['players'])}p"
)
def test_games_recorded_before_copy_on_write_replay_exactly(record: dict[str, Any]) -> None:
    replay_and_compare(GAME, record)
