"""Café Carnage under random play: invariants, secrets, panels, purity, JSON round trips."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from games.cafe_carnage import GAME
from games.cafe_carnage.catalogue import COURSES, Course, action_cards, dish
from games.cafe_carnage.choices import repeats
from games.cafe_carnage.present import card_options, dish_options
from games.cafe_carnage.state import (
    AutoPlay,
    CafeAction,
    CafeOptions,
    CafeState,
    Confirm,
    Pick,
    Play,
)
from games.engine import ALL_VIEWS, Undo, apply, play_timeout
from games.presentation import Announcement, Panel, panel_problems
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
            # One pattern of every secret (longest first); a viewer may only see their own.
            if not everyone:
                continue  # the end: every card played
            pattern = re.compile("|".join(re.escape(s) for s in sorted(everyone, key=len)[::-1]))
            for viewer, text in texts.items():
                own = secrets.get(viewer, set()) if viewer else set()
                leaks = {found for found in pattern.findall(text) if found not in own}
                assert not leaks, (leaks, viewer)


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


def assert_as_validated(model: BaseModel) -> None:
    """``model``, and each model in it, equals the model validated from the fields it counts
    as set: values of their fields' types (a coercion would show in the JSON), the same
    defaults and fields set. (The DM panel's parts are made without validating: kit.made.)"""
    again = type(model)(**{name: getattr(model, name) for name in model.model_fields_set})
    assert again == model and repr(again) == repr(model)
    assert again.model_dump_json() == model.model_dump_json()
    assert again.model_fields_set == model.model_fields_set
    for name in type(model).model_fields:
        value = getattr(model, name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, BaseModel):
                assert_as_validated(item)


def test_panels_are_the_validated_models() -> None:
    for players, seed, rep in ((3, 11, False), (5, 12, True), (8, 13, True)):
        for state in random_game(players, seed, no_repeats=rep):
            for viewer in [None, *state.players]:
                assert_as_validated(GAME.panel(state, viewer))
            if state.over:
                continue
            for p in state.players:  # the choices the buttons are drawn from
                eaten = repeats(state, p)
                options = [*card_options(state, p)]
                options += [o for c in COURSES for o in dish_options(state, p, c, eaten)]
                for option in options:
                    assert_as_validated(option)


def test_named_strategies_finish_games() -> None:
    assert set(GAME.strategies()) == {"cheapskate", "glutton", "shrewd", "greedy"}
    assert GAME.strategies()["greedy"] is GAME.strategies()["shrewd"]  # the bots' normal level
    for strategy in ("cheapskate", "glutton", "shrewd"):
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


# -- the contract hooks under random play ---------------------------------------------------------


def moves(
    players: int, seed: int, no_repeats: bool
) -> Iterator[tuple[CafeState, str, CafeAction, CafeState]]:
    """Every move of one random game (a few deadline moves mixed in): before, who, what, after."""
    ids = [f"player{i}" for i in range(players)]
    state: CafeState = GAME.setup(ids, CafeOptions(no_repeats=no_repeats), seed)
    rng = Rng(seed=seed + 1)
    while GAME.outcome(state) is None:
        p = rng.choice(sorted(GAME.active_players(state)))
        action: CafeAction
        if rng.randint(0, 30) == 0:
            action = GAME.on_timeout(state, p)
        else:
            action = rng.choice(list(GAME.legal_actions(state, p)))
        after = apply(GAME, state, p, action)
        yield state, p, action, after
        state = after


def test_apply_leaves_its_input_equal_to_a_deep_copy_taken_before() -> None:
    """Copy-on-write shares containers between states: no later move may change a shared one
    (a JSON comparison of the latest state alone could miss it). Keep every state of the game
    with a deep copy, and compare them all at the end."""
    for players, seed, rep in ((3, 21, True), (6, 22, False), (8, 23, True)):
        kept: list[tuple[CafeState, CafeState]] = []
        for _, _, _, after in moves(players, seed, rep):
            kept.append((after, copy.deepcopy(after)))
            # Every field counts as set, so copies may share the set of fields set.
            assert after.model_fields_set == set(CafeState.model_fields)
        assert all(state == snapshot for state, snapshot in kept)
        assert all(
            state.model_dump_json() == snapshot.model_dump_json() for state, snapshot in kept
        )


def test_views_not_touched_are_exactly_equal_before_and_after() -> None:
    seen: set[str] = set()
    for players, seed, rep in ((3, 31, True), (5, 32, False)):
        for before, p, action, after in moves(players, seed, rep):
            touched = GAME.views_touched(before, after, p)
            if touched is ALL_VIEWS:
                assert after.round != before.round or after.over
                seen.add("all")
                continue
            kind = type(action).__name__
            expected = {p} if isinstance(action, Pick | Play) else {p, None}
            assert touched == expected, (kind, touched)
            seen.add(kind)
            for viewer in [None, *before.players]:
                if viewer not in touched:
                    assert GAME.panel(before, viewer) == GAME.panel(after, viewer), (kind, viewer)
            if None not in touched:
                assert GAME.table(before) == GAME.table(after)
    assert seen == {"all", "Pick", "Play", "Confirm", "AutoPlay"}


def test_undo_policy_frees_your_own_ballot_until_the_reveal() -> None:
    policies: dict[tuple[str, bool], set[Undo]] = {}
    for before, p, action, after in moves(4, 41, no_repeats=False):
        completes = after.round != before.round or after.over
        policy = GAME.undo_policy(before, after, p, action)
        policies.setdefault((type(action).__name__, completes), set()).add(policy)
        if completes:
            assert after.rng.counter > before.rng.counter or after.over  # new menus were drawn
    assert policies[("Pick", False)] == {Undo.FREE}
    assert policies[("Play", False)] == {Undo.FREE}
    assert policies[("Confirm", False)] == {Undo.FREE}
    for (kind, completes), found in policies.items():
        if completes or kind == "AutoPlay":
            assert found == {Undo.NEVER}, kind
    assert any(completes for _, completes in policies)


def test_is_legal_agrees_with_legal_actions() -> None:
    checked = 0
    for step, (before, _, _, _) in enumerate(moves(6, 51, no_repeats=True)):
        if step % 4:
            continue  # a sample of the states, every round
        for q in before.players:
            legal = list(GAME.legal_actions(before, q))
            for action in legal:
                assert GAME.is_legal(before, q, action)
            others = [c for r in before.players if r != q for c in before.menus[r]["main"]]
            candidates: list[CafeAction] = [
                *(Pick(card=card) for course in COURSES for card in before.menus[q][course]),
                *(Pick(card=card) for card in others[:3]),
                Pick(card="X99"),
                *(Play(card=card) for card in action_cards(q)),
                Play(card=action_cards(before.players[0])[0]),
                Confirm(),
            ]
            for action in candidates:
                assert GAME.is_legal(before, q, action) == (action in legal), (q, action)
                checked += 1
            assert GAME.is_legal(before, q, AutoPlay()) == (q in GAME.active_players(before))
    assert checked > 1000


def test_progress_is_gp_after_each_round_and_scores_add_up() -> None:
    for players, seed in ((3, 61), (7, 62)):
        for _, _, _, state in moves(players, seed, no_repeats=seed % 2 == 0):
            for p in state.players:
                meals = sum(record.players[p].gp_gained for record in state.history)
                bonus = next((s.bonus for s in state.standings if s.player == p), 0)
                assert state.gp[p] == meals - 5 * state.iou_draws[p] + bonus
        outcome = GAME.outcome(state)
        assert outcome is not None and len(outcome.progress) == 5
        for record, row in zip(state.history, outcome.progress, strict=True):
            assert row == {p: record.players[p].gp_after for p in state.players}
        bonus = {s.player: s.bonus for s in state.standings}
        assert {p: outcome.progress[-1][p] + bonus[p] for p in state.players} == outcome.scores


def test_nobody_is_pinged() -> None:
    """Every player gets each round's menu by DM (that notifies them): the channel pings nobody."""
    *_, (_, _, _, state) = moves(4, 71, no_repeats=False)
    assert len(state.announcements) == 1 + 5 + 1
    assert all(a.ping == [] for a in state.announcements)


def test_decks_stay_face_down() -> None:
    for before, _, _, after in moves(8, 81, no_repeats=False):
        hidden = GAME.secrets(after, None)
        assert hidden == {c for deck in after.decks.values() for c in deck} and hidden
        if after.round == before.round and not after.over:
            continue  # check once per round
        texts = [public_text(after)]
        texts += [GAME.view(after, p).model_dump_json() for p in after.players]
        texts += [GAME.panel(after, p).model_dump_json() for p in after.players]
        pattern = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(sorted(hidden)) + r")(?![0-9])")
        for text in texts:
            assert pattern.search(text) is None


def texts_of(panel: Panel | Announcement) -> list[str]:
    texts = [panel.title, panel.description, *(f.value for f in panel.fields)]
    if isinstance(panel, Panel):
        texts.append(panel.footer)
    return texts


def test_panels_and_announcements_fit_a_phone() -> None:
    """No sentence broken by hand (Discord wraps to the screen; a line broken by hand breaks
    twice on a phone, issue 29), short field names, no seats."""
    for players, seed, rep in ((8, 91, True), (5, 92, False)):
        for _, _, _, state in moves(players, seed, rep):
            shown: list[Panel | Announcement] = [GAME.panel(state, None)]
            shown += [GAME.panel(state, p) for p in state.players]
            if state.round == 1 or len(state.confirmed) == 0:
                shown += state.announcements
            for panel in shown:
                for text in texts_of(panel):
                    broken = re.search(r"[a-z,(—]\n *[a-z($]", text)
                    assert broken is None, f"a sentence broken by hand: {text!r}"
                for f in panel.fields:
                    assert len(f.name) <= 32 and "Seat" not in f.name, f.name
