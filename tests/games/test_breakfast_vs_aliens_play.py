"""Breakfast vs Aliens: random legal games in both modes (invariants, panels, secrecy after
every action) and the greedy strategy against random players."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.breakfast_vs_aliens import GAME
from games.breakfast_vs_aliens.state import Action, BvaOptions, BvaState
from games.breakfast_vs_aliens.strategies import greedy
from games.engine import apply
from games.presentation import Button, Panel, panel_problems, table_problems
from games.rng import Rng
from tests.playing import apply_checked, random_move

MODES = ["mini-muffin", "full-pancake"]


def control_actions(panel: Panel) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for control in panel.controls:
        if isinstance(control, Button):
            out.append(control.action)
        else:
            out.extend(o.action for o in control.options)
    return out


def leaks(tokens: set[str], texts: list[str]) -> list[str]:
    if not tokens:
        return []
    words = "|".join(re.escape(t) for t in sorted(tokens))
    pattern = re.compile(rf"(?<![A-Za-z0-9_])(?:{words})(?![A-Za-z0-9_])")
    return [m.group(0) for text in texts for m in [pattern.search(text)] if m]


def check(state: BvaState) -> None:
    GAME.check_invariants(state)
    assert BvaState.model_validate_json(state.model_dump_json()) == state
    active = GAME.active_players(state)
    table = GAME.table(state)
    assert table_problems(table) == [], table_problems(table)
    for announcement in state.announcements[-6:]:
        assert panel_problems(announcement) == [], panel_problems(announcement)
    over = GAME.outcome(state) is not None
    if not over:
        for raw in control_actions(table[0]):
            action = GAME.parse_action(raw)
            assert any(GAME.is_legal(state, p, action) for p in active), raw
    public = [
        GAME.view(state, None).model_dump_json(),
        table[0].model_dump_json(),
        json.dumps([a.model_dump(mode="json") for a in state.announcements]),
    ]
    private = {
        p: GAME.view(state, p).model_dump_json() + GAME.panel(state, p).model_dump_json()
        for p in state.players
    }
    # Nobody sees the deck; only the peeker sees the peeked cards.
    assert leaks(GAME.secrets(state, None), public + list(private.values())) == []
    for owner in state.players:
        panel = GAME.panel(state, owner)
        assert panel_problems(panel) == [], panel_problems(panel)
        if owner in active and not over:
            for raw in control_actions(panel):
                assert GAME.is_legal(state, owner, GAME.parse_action(raw)), raw
        others = [text for p, text in private.items() if p != owner]
        assert leaks(GAME.secrets(state, owner), public + others) == []
        assert GAME.private_decision(state, owner) == bool(GAME.secrets(state, owner))


def play(mode: str, players: int, seed: int, *, checked: bool) -> BvaState:
    rng = Rng(seed=seed)
    ids = [f"7{players}{i}00{i}" for i in range(players)]
    state = GAME.setup(ids, BvaOptions(mode=mode), seed)
    if checked:
        check(state)
    for _ in range(3000):
        if GAME.outcome(state) is not None:
            return state
        pid, action = random_move(GAME, state, rng, timeout_one_in=12)
        state = apply_checked(GAME, state, pid, action)
        if checked:
            check(state)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_random_games_end_with_every_invariant_after_every_action(
    mode: str, seed: int, players: int
) -> None:
    state = play(mode, players, seed, checked=True)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners
    best = max(outcome.scores.values())
    assert {p for p, s in outcome.scores.items() if s == best} == set(outcome.winners)
    assert outcome.progress[0] == dict.fromkeys(state.players, 0)
    assert outcome.progress[-1] == outcome.scores


def greedy_wins(mode: str, games: int) -> int:
    """Two-player games, greedy against random, greedy seated first or second by turns."""
    assert set(GAME.strategies()) == {"greedy", "plain"}
    wins = 0
    for seed in range(games):
        rng = Rng(seed=seed)
        ids = ["g", "r"] if seed % 2 == 0 else ["r", "g"]
        state = GAME.setup(ids, BvaOptions(mode=mode), seed)
        while GAME.outcome(state) is None:
            pid = rng.choice(sorted(GAME.active_players(state)))
            action: Action
            if pid == "g":
                action = greedy(state, pid, rng)
            else:
                action = rng.choice(list(GAME.legal_actions(state, pid)))
            state = apply(GAME, state, pid, action)
        outcome = GAME.outcome(state)
        assert outcome is not None
        wins += outcome.winners == ["g"]
    return wins


def test_greedy_beats_random_in_mini_muffin() -> None:
    # Measured: 28 sole wins out of these 30 games (90 of 100; 21 and 68 before it weighed its
    # heroes); two random players would share them about evenly, so 24 (80 %) is a real margin.
    assert greedy_wins("mini-muffin", 30) >= 24


def test_greedy_beats_random_in_full_pancake() -> None:
    # Measured: 28 sole wins out of these 30 games (91 of 100).
    assert greedy_wins("full-pancake", 30) >= 24
