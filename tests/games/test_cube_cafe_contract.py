"""Cube Café against the engine contract: copy-on-write (apply never changes a state it was
given, nor one before it, and shares what a move leaves alone), the direct is_legal agrees with
legal_actions, and games recorded before the engine became copy-on-write replay to exactly the
same states."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.cube_cafe import GAME
from games.cube_cafe.actions import (
    Action,
    Bus,
    Cash,
    Cook,
    Done,
    Drive,
    FreeRefill,
    Manager,
    Order,
    Recruit,
    Refill,
    Rotate,
    Seat,
    Serve,
    Wheel,
)
from games.cube_cafe.catalogue import COLOURS, DISHWASHER, DRIVE_SLOTS, SOURCES, STAFF, TABLES
from games.cube_cafe.state import CubeCafeOptions, CubeCafeState
from games.engine import apply
from games.rng import Rng
from tests.games.replays import recorded, replay_and_compare

TABLE_NUMBERS = range(0, TABLES + 2)  # one out of range each side
# Every move (but the bot's timed-out Done), legal or not, with numbers a little out of range.
EVERY_MOVE: list[Action] = [
    *(
        move
        for s in STAFF
        for move in [
            *(Seat(staff=s, table=t) for t in TABLE_NUMBERS),
            *(Drive(staff=s, stars=n) for n in (*DRIVE_SLOTS, 1)),
            *(Order(staff=s, table=t) for t in TABLE_NUMBERS),
            Cook(staff=s),
            *(
                Serve(staff=s, source=src, cube=c, table=t)
                for src in SOURCES
                for c in COLOURS
                for t in TABLE_NUMBERS
            ),
            *(Refill(staff=s, table=t) for t in TABLE_NUMBERS),
            *(Manager(staff=s, slot=n) for n in range(0, 6)),
            Rotate(staff=s, direction="ccw"),
            Rotate(staff=s, direction="cw"),
            Recruit(staff=s),
        ]
    ),
    *(Bus(table=t, space=n) for t in TABLE_NUMBERS for n in range(0, len(DISHWASHER) + 2)),
    Cash(),
    *(Wheel(seat=c) for c in COLOURS),
    *(FreeRefill(table=t) for t in TABLE_NUMBERS),
    Done(),
]


def random_game(players: int, seed: int) -> Iterator[tuple[CubeCafeState, str, Action]]:
    """Each state of a game (random moves, the greedy player's, timeouts) with the move played
    from it; the last state has no move."""
    rng = Rng(seed=seed)
    greedy = GAME.strategies()["greedy"]
    state = GAME.setup([f"p{i}" for i in range(players)], CubeCafeOptions(), seed)
    while GAME.outcome(state) is None:
        pid = rng.choice(sorted(GAME.active_players(state)))
        roll = rng.randint(1, 20)
        if roll == 1:
            action = GAME.on_timeout(state, pid)
        elif roll <= 8:
            action = greedy(state, pid, rng)
        else:
            action = rng.choice(list(GAME.legal_actions(state, pid)))
        yield state, pid, action
        state = apply(GAME, state, pid, action)
    yield state, "", Done()


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 5))
def test_apply_never_changes_a_state_it_was_given_nor_any_earlier_one(
    seed: int, players: int
) -> None:
    """Deep copies of every state of a game, compared at the end: a move that changed a list,
    dict, board, table or car it shares with an earlier state (copy-on-write aliasing) shows."""
    kept: list[tuple[CubeCafeState, CubeCafeState]] = []
    for state, _pid, _action in random_game(players, seed):
        kept.append((state, copy.deepcopy(state)))
        GAME.check_invariants(state)
    assert len(kept) > 8  # a Done at least in each of the 8 rounds
    for state, snapshot in kept:
        assert state == snapshot
        assert state.model_dump_json() == snapshot.model_dump_json()


def test_a_move_shares_what_it_leaves_alone() -> None:
    for (before, pid, action), (after, _, _) in pairwise(random_game(3, 5)):
        assert after is not before and after.options is before.options
        if after.round == before.round and not after.over:  # not the Done that ends a round
            assert after.boards[pid] is not before.boards[pid]
            others = [p for p in before.players if p != pid]
            assert all(after.boards[p] is before.boards[p] for p in others), action
            assert after.rng is before.rng and after.progress is before.progress


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 4))
def test_is_legal_agrees_with_legal_actions(seed: int, players: int) -> None:
    allowed: set[str] = set()  # the kinds of moves found legal, in any state of the game
    for number, (state, _pid, _action) in enumerate(random_game(players, seed)):
        for pid in state.players:
            legal = list(GAME.legal_actions(state, pid))
            allowed |= {m.type for m in legal}
            if number % 3:
                continue  # every move tried in every third state: they are many
            for move in EVERY_MOVE:
                assert GAME.is_legal(state, pid, move) == (move in legal), (pid, move)
    assert {"seat", "order", "cook", "rotate", "done"} <= allowed


@pytest.mark.parametrize("record", recorded(GAME.id), ids=lambda r: f"{len(r['players'])}p")
def test_games_recorded_before_copy_on_write_replay_exactly(record: dict[str, Any]) -> None:
    replay_and_compare(GAME, record)
