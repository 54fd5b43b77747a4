"""Monster Café against the game contract: copy-on-write, is_legal, views_touched, undo_policy,
fast scoring, and stored JSON that stays loadable."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Undo, apply
from games.monster_cafe import GAME
from games.monster_cafe.catalogue import ALL_MONSTERS, ALL_TABLES, KINDS, SORBET
from games.monster_cafe.scoring import score, total
from games.monster_cafe.state import (
    CancelClear,
    Clear,
    ConfirmClear,
    Draw,
    MonsterCafeOptions,
    MonsterCafeState,
    Move,
    Seat,
    Sorbet,
)
from games.rng import Rng
from tests.games.test_monster_cafe import FOUR_EMPTY, M, T, build, play
from tests.games.test_monster_cafe_fixes import random_game

# Every move there is, legal or not, with and without the bot's ``auto`` flag.
EVERY_MOVE: list[Move] = [
    *(m for auto in (False, True) for m in (Draw(auto=auto), CancelClear(auto=auto))),
    *(
        move(table=t, auto=auto)
        for t in ALL_TABLES
        for move in (Seat, Clear, ConfirmClear)
        for auto in (False, True)
    ),
    *(Sorbet(kind=k.key, auto=auto) for k in KINDS for auto in (False, True)),
]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_apply_never_mutates_any_state_it_was_given(seed: int, count: int) -> None:
    """Deep copies of every state of a game, compared at the end: a move that mutated a
    container shared with an earlier state (copy-on-write aliasing) would show here."""
    kept: list[tuple[MonsterCafeState, MonsterCafeState]] = []
    for before, _pid, _action, after in random_game(seed, count):
        kept.append((before, copy.deepcopy(before)))
        assert after is not before
        GAME.check_invariants(after)
    kept.append((after, copy.deepcopy(after)))
    for state, snapshot in kept:
        assert state == snapshot
        assert state.model_dump_json() == snapshot.model_dump_json()


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_is_legal_agrees_with_legal_actions(seed: int, count: int) -> None:
    for before, _pid, _action, _after in random_game(seed, count):
        for pid in before.players:
            legal = list(GAME.legal_actions(before, pid))
            for move in EVERY_MOVE:
                as_offered = move.model_copy(update={"auto": False})
                expected = as_offered in legal
                if isinstance(move, ConfirmClear) and before.clearing is None:
                    # The one-step clear of games logged before the two taps: legal whenever
                    # asking to clear that table is.
                    expected = Clear(table=move.table) in legal
                assert GAME.is_legal(before, pid, move) == expected, (pid, move)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_views_not_touched_are_unchanged(seed: int, count: int) -> None:
    for before, pid, _action, after in random_game(seed, count):
        touched = GAME.views_touched(before, after, pid)
        assert touched == {None}
        for viewer in [None, *before.players]:
            if viewer not in touched:
                assert GAME.panel(before, viewer) == GAME.panel(after, viewer)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_undo_is_never_allowed_for_a_move_that_revealed_or_ended_something(
    seed: int, count: int
) -> None:
    for before, pid, action, after in random_game(seed, count):
        policy = GAME.undo_policy(before, after, pid, action)
        revealed = (
            after.deck != before.deck
            or after.table_deck != before.table_deck
            or after.rng != before.rng
            or after.round != before.round
            or after.over
        )
        if revealed or len(after.taken) != len(before.taken):
            assert policy is Undo.NEVER, action
        expected = {
            "draw": Undo.NEVER,
            "clear": Undo.NEVER,
            "seat": Undo.CONSENT,
            "sorbet": Undo.CONSENT,
            "ask_clear": Undo.FREE,
            "cancel_clear": Undo.FREE,
        }
        assert policy is expected[action.type]


def test_undo_policy_per_move() -> None:
    state = build(
        tables=FOUR_EMPTY[:2],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
        deck_top=[M("brain"), M(SORBET)],
        collections={"b": ([M("eyeball")], [])},
    )
    drawn = play(state, "a", Draw())
    assert GAME.undo_policy(state, drawn, "a", Draw()) is Undo.NEVER, "a draw reveals a card"
    seat = Seat(table=T("tartare"))
    seated = play(drawn, "a", seat)
    assert GAME.undo_policy(drawn, seated, "a", seat) is Undo.CONSENT, "it revealed nothing"
    sorbet_drawn = play(seated, "b", Draw())
    sorbet = Sorbet(kind="eyeball")
    scared = play(sorbet_drawn, "b", sorbet)
    assert GAME.undo_policy(sorbet_drawn, scared, "b", sorbet) is Undo.CONSENT
    ask = Clear(table=T("tartare"))
    asked = play(scared, "a", ask)
    assert GAME.undo_policy(scared, asked, "a", ask) is Undo.FREE
    cancelled = play(asked, "a", CancelClear())
    assert GAME.undo_policy(asked, cancelled, "a", CancelClear()) is Undo.FREE
    confirm = ConfirmClear(table=T("tartare"))
    done = play(asked, "a", confirm)
    assert GAME.undo_policy(asked, done, "a", confirm) is Undo.NEVER, "it ends your round"


@settings(max_examples=30, deadline=None)
@given(
    monsters=st.lists(st.sampled_from(ALL_MONSTERS), unique=True, max_size=20),
    tables=st.lists(st.sampled_from(ALL_TABLES), unique=True, max_size=4),
)
def test_the_fast_total_is_the_breakdowns_total(monsters: list[str], tables: list[str]) -> None:
    monsters = [m for m in monsters if m not in {M(SORBET, i) for i in range(6)}]
    assert total(monsters, tables) == score(monsters, tables).total


def test_states_and_options_stored_before_the_new_fields_still_load() -> None:
    state = GAME.setup(["a", "b", "c"], MonsterCafeOptions(turn_timeout=3600), 4)
    stored = json.loads(state.model_dump_json())
    for added in ("clearing", "round_scores", "auto_moves"):
        del stored[added]
    loaded = GAME.load_state(json.dumps(stored))
    assert loaded == state and loaded.clearing is None and loaded.round_scores == []
    assert GAME.parse_options({"turn_timeout": 86400}) == MonsterCafeOptions()
    (pid,) = GAME.active_players(loaded)
    assert apply(GAME, loaded, pid, Draw()).deck == state.deck[1:]


def test_the_strategies_only_play_legal_moves() -> None:
    for name, strategy in GAME.strategies().items():
        rng = Rng(seed=3)
        state = GAME.setup(["a", "b", "c", "d"], MonsterCafeOptions(), 3)
        moves = 0
        while GAME.outcome(state) is None:
            (pid,) = GAME.active_players(state)
            move = GAME.parse_action(strategy(state, pid, rng).model_dump(mode="json"))
            assert GAME.is_legal(state, pid, move), (name, move)
            state = apply(GAME, state, pid, move)
            moves += 1
        assert moves > 16, name
