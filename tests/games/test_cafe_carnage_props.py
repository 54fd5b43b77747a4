"""Café Carnage under random play: invariants, secrets, panels, purity, JSON round trips."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.cafe_carnage import GAME
from games.cafe_carnage.cards import COURSES, Course, dish
from games.cafe_carnage.state import CafeOptions, CafeState
from games.engine import apply, play_timeout
from games.presentation import panel_problems
from games.rng import Rng


def random_game(
    players: int, seed: int, no_repeats: bool, strategy: str = "random", timeouts: bool = True
) -> Iterator[CafeState]:
    """Yield every state of one game played by ``strategy`` (a few timeouts mixed in)."""
    ids = [f"player{i}" for i in range(players)]
    state: CafeState = GAME.setup(ids, CafeOptions(no_repeats=no_repeats), seed)
    rng = Rng(seed=seed + 1)
    yield state
    while GAME.outcome(state) is None:
        p = rng.choice(sorted(GAME.active_players(state)))
        if timeouts and rng.randint(0, 40) == 0:
            state, _ = play_timeout(GAME, state, p)
        elif strategy == "random":
            state = apply(GAME, state, p, rng.choice(list(GAME.legal_actions(state, p))))
        else:
            action: Any = GAME.strategies()[strategy](state, p, rng)
            state = apply(GAME, state, p, action)
        yield state


@settings(max_examples=15, deadline=None)
@given(st.integers(3, 8), st.integers(0, 10_000), st.booleans())
def test_random_play_ends_and_keeps_the_invariants(players: int, seed: int, rep: bool) -> None:
    for state in random_game(players, seed, rep):
        GAME.check_invariants(state)
    assert state.over and len(state.history) == 5
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners
    assert set(outcome.scores) == set(state.players)


def public_text(state: CafeState) -> str:
    parts = [
        GAME.view(state, None).model_dump_json(),
        GAME.panel(state, None).model_dump_json(),
        json.dumps([a.model_dump(mode="json") for a in state.announcements]),
    ]
    outcome = GAME.outcome(state)
    if outcome is not None:
        parts.append(outcome.model_dump_json())
    return "\n".join(parts)


def test_secrets_only_reach_their_owner() -> None:
    for players, seed in ((3, 1), (8, 2)):
        for state in random_game(players, seed, no_repeats=seed % 2 == 0):
            secrets = {p: GAME.secrets(state, p) for p in state.players}
            everyone = set().union(*secrets.values())
            texts: dict[str | None, str] = {None: public_text(state)}
            for p in state.players:
                view = GAME.view(state, p).model_dump_json()
                texts[p] = view + GAME.panel(state, p).model_dump_json()
                assert all(secret in view for secret in secrets[p])  # the owner sees them
            for viewer, text in texts.items():
                foreign = everyone - secrets.get(viewer, set()) if viewer else everyone
                if foreign:
                    pattern = "|".join(re.escape(s) for s in sorted(foreign, key=len, reverse=True))
                    leak = re.search(pattern, text)
                    assert leak is None, (leak.group(), viewer)


def test_panels_fit_discord_and_apply_is_pure() -> None:
    for players, seed, strategy in ((8, 5, "random"), (8, 6, "glutton"), (5, 7, "cheapskate")):
        previous: tuple[CafeState, dict[str, Any]] | None = None
        for state in random_game(players, seed, no_repeats=True, strategy=strategy):
            for viewer in [None, *state.players]:
                assert panel_problems(GAME.panel(state, viewer)) == []
            for announcement in state.announcements:
                assert panel_problems(announcement) == []
            assert GAME.load_state(state.model_dump_json()) == state
            if previous is not None:  # applying the next action did not mutate the state before
                assert previous[0].model_dump() == previous[1]
            previous = (state, state.model_dump())


def test_named_strategies_finish_games() -> None:
    assert set(GAME.strategies()) == {"cheapskate", "glutton"}
    for strategy in ("cheapskate", "glutton"):
        for players in (3, 8):
            *_, state = random_game(players, 9, no_repeats=False, strategy=strategy)
            assert state.over
            GAME.check_invariants(state)
    # Cheapskates order the cheapest dish of every course and vote Each Pay Separately while
    # they can (rounds 1-2), then Split (rounds 3-4), then RUN! (round 5: all escape or the
    # priciest are caught).
    games = random_game(4, 3, no_repeats=False, strategy="cheapskate", timeouts=False)
    menus: list[dict[str, dict[Course, list[str]]]] = []
    for state in games:
        if not state.over and state.round > len(menus):
            menus.append(state.menus)
    assert state.over and len(menus) == 5
    for record, menu in zip(state.history, menus, strict=True):
        for p, pr in record.players.items():
            cheapest = sum(min(dish(c).value for c in menu[p][course]) for course in COURSES)
            assert pr.meal == cheapest
    verdicts = [r.verdict for r in state.history]
    assert verdicts == ["separate", "separate", "split", "split", "nobody"]
