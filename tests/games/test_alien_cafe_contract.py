"""Alien Café and the engine contract: copy-on-write, is_legal, views_touched, undo, clocks,
pings, progress, stored JSON, panel limits and taps per decision."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.alien_cafe import GAME
from games.alien_cafe.actions import (
    Action,
    DeclareAction,
    DoneAction,
    DrawAction,
    GiveAction,
    HoldAction,
    LevelAction,
    MoveAction,
    OfferAction,
    PlaceAction,
    RequestAction,
    TakeBackAction,
    WithdrawAction,
)
from games.alien_cafe.catalogue import TILES, TYPES
from games.alien_cafe.state import AlienCafeOptions, AlienCafeState
from games.engine import ALL_VIEWS, Undo, apply
from games.presentation import (
    MAX_V2_COMPONENTS,
    Button,
    Panel,
    Select,
    panel_problems,
    panel_rows,
    v2_component_count,
)
from games.rng import Rng
from tests.games.test_alien_cafe import (
    ALIEN_JOKERS,
    P1,
    P2,
    P3,
    alien,
    finish_round,
    new_game,
    order,
    stack,
    start,
)
from tests.playing import random_move

P4 = "444"


def random_game(
    players: int, seed: int, visit: Callable[[AlienCafeState, str, Action, AlienCafeState], None]
) -> AlienCafeState:
    """Play a random legal game to the end, calling ``visit(before, player, action, after)``."""
    rng = Rng(seed=seed)
    state = GAME.setup([f"8{i}" for i in range(players)], AlienCafeOptions(), seed)
    while GAME.outcome(state) is None:
        pid, action = random_move(GAME, state, rng, timeout_one_in=40)
        after = apply(GAME, state, pid, action)
        visit(state, pid, action, after)
        state = after
    return state


# -- copy-on-write ---------------------------------------------------------------------------------
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_apply_never_mutates_any_earlier_state(seed: int, players: int) -> None:
    """Deep comparison, and not only of the last input: a later move must not change a container
    an earlier state shares (copy-on-write aliasing)."""
    history: list[tuple[AlienCafeState, AlienCafeState]] = []

    def visit(before: AlienCafeState, pid: str, action: Action, after: AlienCafeState) -> None:
        history.append((before, copy.deepcopy(before)))
        assert before == history[-1][1]

    state = random_game(players, seed, visit)
    assert GAME.copy_on_write and len(history) > 20
    for index, (kept, snapshot) in enumerate(history):
        assert kept == snapshot, f"state {index} changed after it was used"
        assert kept.model_dump_json() == snapshot.model_dump_json()
    assert state.results


def test_copy_on_write_shares_what_a_move_leaves_alone() -> None:
    state = start([P1, P2])
    tid = state.seats[P1].hand[0]
    after = apply(GAME, state, P1, PlaceAction(tile=tid, cell=3))
    assert after.seats[P2] is state.seats[P2] and after.red is state.red
    assert after.seats[P1] is not state.seats[P1] and state.seats[P1].tray[3] is None


# -- is_legal --------------------------------------------------------------------------------------
def candidate_actions(state: AlienCafeState, rng: Rng) -> list[Action]:
    """Well-formed actions, legal or not: every kind, with tiles from everywhere."""
    pool = [t for t in TILES if TILES[t].kind != "house"]
    tiles = rng.sample(pool, 12)
    for seat in state.seats.values():
        tiles += seat.hand[:3] + [t for t in seat.tray if t][:3]
    people = [*state.players, "stranger"]
    out: list[Action] = [LevelAction(level=n) for n in range(5)]
    out += [HoldAction(tile=None), DrawAction(bag="red"), DrawAction(bag="blue"), DoneAction()]
    out += [WithdrawAction(what="request"), WithdrawAction(what="offer")]
    out += [RequestAction(want=t) for t in TYPES]
    for tid in tiles:
        cell = rng.randint(0, 15)
        out += [HoldAction(tile=tid), PlaceAction(tile=tid, cell=cell)]
        out += [MoveAction(tile=tid, cell=cell), TakeBackAction(tile=tid), OfferAction(tile=tid)]
        out += [GiveAction(tile=tid, to=p) for p in people]
        out += [DeclareAction(tile=tid, as_type=rng.choice([*TYPES, "auto"]))]
    return out


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 4))
def test_is_legal_agrees_with_legal_actions(seed: int, players: int) -> None:
    rng = Rng(seed=seed + 1)
    checked = visited = 0

    def visit(before: AlienCafeState, pid: str, action: Action, after: AlienCafeState) -> None:
        nonlocal checked, visited
        # A sixth of the states, and always the first three: a short game (one player, seed
        # 16033602) had only one state drawn and too few actions checked.
        if rng.randint(1, 6) != 1 and visited >= 3:
            return
        visited += 1
        for who in before.players:
            legal = GAME.legal_actions(before, who)
            listed = set(legal)
            assert len(listed) == len(legal), "no duplicates"
            assert all(GAME.is_legal(before, who, a) for a in legal)
            for candidate in candidate_actions(before, rng):
                assert GAME.is_legal(before, who, candidate) == (candidate in listed), candidate
                checked += 1

    random_game(players, seed, visit)
    assert checked > 100


# -- views_touched ---------------------------------------------------------------------------------
def _panels(state: AlienCafeState) -> dict[str | None, Panel]:
    views: list[str | None] = [None, *state.players]
    return {v: GAME.panel(state, v) for v in views}


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_views_not_touched_are_exactly_equal(seed: int, players: int) -> None:
    """For every move: the panels views_touched leaves out are equal before and after, and the
    sets are the ones the play-tests asked for."""
    seen: dict[str, int] = {}

    def visit(before: AlienCafeState, pid: str, action: Action, after: AlienCafeState) -> None:
        touched = GAME.views_touched(before, after, pid)
        old, new = _panels(before), _panels(after)
        if touched is not ALL_VIEWS:
            for view in old:
                if view not in touched:
                    assert old[view] == new[view], (action, view)
        seen[action.type] = seen.get(action.type, 0) + 1
        ended = before.phase != after.phase
        if isinstance(action, HoldAction):
            assert touched == {pid}
        elif isinstance(action, GiveAction):
            assert touched == {pid, action.to, None}
        elif isinstance(action, DrawAction):
            bag = before.red if action.bag == "red" else before.blue
            assert touched == (ALL_VIEWS if len(bag) == 1 else {pid, None})
        elif isinstance(action, DoneAction | LevelAction):
            if ended:
                assert touched is ALL_VIEWS
            elif isinstance(action, LevelAction):
                assert touched == {pid, None}
            else:
                assert touched is not ALL_VIEWS
                # Only players holding a tile they could give to the player now done.
                extra = touched - {pid, None}
                for other in extra:
                    assert other is not None
                    seat = after.seats[other]
                    assert seat.held in seat.hand and not TILES[str(seat.held)].special
        else:
            assert touched is not ALL_VIEWS and touched <= {pid, None}

    random_game(players, seed, visit)
    assert {"place", "done", "level"} <= set(seen)


def test_a_move_leaves_the_other_players_dm_alone() -> None:
    """The play-test: 58 % of DM edits only refreshed another player's progress line."""
    state = start([P1, P2, P3])
    tid = state.seats[P1].hand[0]
    moves: list[Action] = [
        PlaceAction(tile=tid, cell=5),
        MoveAction(tile=tid, cell=6),
        DrawAction(bag="red"),
        TakeBackAction(tile=tid),
        RequestAction(want="green"),
    ]
    for move in moves:
        after = apply(GAME, state, P1, move)
        for other in (P2, P3):
            assert GAME.panel(after, other) == GAME.panel(state, other), move
        assert GAME.panel(after, None) != GAME.panel(state, None), move
        assert GAME.views_touched(state, after, P1) == {P1, None}
        state = after


def test_done_touches_only_players_who_could_give_to_them() -> None:
    state = start([P1, P2, P3])
    state = apply(GAME, state, P2, HoldAction(tile=state.seats[P2].hand[-1]))  # a giveable tile
    after = apply(GAME, state, P3, DoneAction())
    assert GAME.views_touched(state, after, P3) == {P3, P2, None}
    before_gives = [
        c.action
        for c in GAME.panel(state, P2).controls
        if isinstance(c, Button) and c.action["type"] == "give"
    ]
    after_gives = [
        c.action
        for c in GAME.panel(after, P2).controls
        if isinstance(c, Button) and c.action["type"] == "give"
    ]
    assert {"type": "give", "tile": state.seats[P2].held, "to": P3} in before_gives
    assert len(after_gives) == len(before_gives) - 1
    assert GAME.panel(after, P1) == GAME.panel(state, P1)  # holding nothing: unchanged


def test_the_draw_that_empties_a_bag_touches_every_view() -> None:
    state = start([P1, P2])
    state.seats[P2].hand += state.red[1:]
    state.red = state.red[:1]
    GAME.check_invariants(state)
    after = apply(GAME, state, P1, DrawAction(bag="red"))
    assert GAME.views_touched(state, after, P1) is ALL_VIEWS
    labels = [c.label for c in GAME.panel(after, P2).controls if isinstance(c, Button)]
    assert "Draw 👽" not in labels and "Draw 🍽️" in labels


# -- undo ------------------------------------------------------------------------------------------
def test_undo_policy_per_move() -> None:
    def policy(state: AlienCafeState, pid: str, action: Action) -> tuple[Undo, AlienCafeState]:
        after = apply(GAME, state, pid, action)
        return GAME.undo_policy(state, after, pid, action), after

    state = new_game([P1, P2])
    undo, state = policy(state, P1, LevelAction(level=1))
    assert undo == Undo.CONSENT  # only "ready"; the service has not started
    undo, state = policy(state, P2, LevelAction(level=0))
    assert undo == Undo.NEVER and state.phase == "service"  # it dealt the tiles
    hand = state.seats[P1].hand
    free: list[Action] = [
        HoldAction(tile=hand[0]),
        PlaceAction(tile=hand[0], cell=0),
        MoveAction(tile=hand[0], cell=1),
        TakeBackAction(tile=hand[0]),
        RequestAction(want="blue"),
        OfferAction(tile=hand[1]),
        WithdrawAction(what="offer"),
        WithdrawAction(what="request"),
    ]
    for action in free:
        undo, state = policy(state, P1, action)
        assert undo == Undo.FREE, action
    joker = stack(state, P1, {0: ALIEN_JOKERS})[0]
    undo, state = policy(state, P1, DeclareAction(tile=joker, as_type="drink"))
    assert undo == Undo.FREE
    undo, state = policy(state, P1, DrawAction(bag="blue"))
    assert undo == Undo.NEVER
    giveable = next(t for t in state.seats[P1].hand if not TILES[t].special)
    undo, state = policy(state, P1, GiveAction(tile=giveable, to=P2))
    assert undo == Undo.CONSENT
    undo, state = policy(state, P1, DoneAction())
    assert undo == Undo.NEVER
    undo, state = policy(state, P2, DoneAction())
    assert undo == Undo.NEVER and state.phase == "levels"


# -- clocks, pings, progress, stored JSON ---------------------------------------------------------
def test_level_pick_is_short_and_the_host_may_skip_it() -> None:
    assert AlienCafeOptions().level_time == 120
    schema = AlienCafeOptions.model_json_schema()["properties"]
    assert schema["level_time"]["choices"]["2 min"] == 120
    state = new_game([P1, P2])
    clock = GAME.clock(state)
    assert clock is not None and clock.seconds == 120 and clock.host_may_skip
    state = apply(GAME, state, P1, LevelAction(level=0))
    state = apply(GAME, state, P2, LevelAction(level=0))
    clock = GAME.clock(state)
    assert clock is not None and clock.seconds == 180 and not clock.host_may_skip


def test_announcements_ping_nobody() -> None:
    """Everyone's DM notifies them of each step, so no announcement pings (the final one
    included)."""
    state = new_game([P1, P2])
    for success in (True, True, True):
        state = finish_round(state, success)
    assert state.phase == "over" and len(state.announcements) >= 8
    assert all(a.ping == [] for a in state.announcements)
    final = random_game(3, 5, lambda *_: None)
    assert all(a.ping == [] for a in final.announcements)


def test_progress_is_the_tables_running_points() -> None:
    state = new_game([P1, P2])
    for success in (True, False, True, True):
        state = finish_round(state, success)
    outcome = GAME.outcome(state)
    assert outcome is not None
    # 16 + 16 for a perfect service, −6 − 6 for untouched hands.
    assert outcome.progress == [{"table": 32}, {"table": 20}, {"table": 52}, {"table": 84}]
    assert outcome.progress[-1]["table"] == sum(outcome.scores.values())


def test_stored_json_from_before_the_new_fields_still_loads() -> None:
    state = start([P1, P2])
    raw = json.loads(state.model_dump_json())
    del raw["last_trays"]
    for seat in raw["seats"].values():
        del seat["request"], seat["offer"]
    old_options = {"round_time": 600, "level_time": 86400}
    raw["options"] = old_options
    loaded = GAME.load_state(json.dumps(raw))
    assert loaded.seats == state.seats and loaded.last_trays == {}
    assert loaded.options.model_dump() == old_options
    assert GAME.legal_actions(loaded, P1) == GAME.legal_actions(state, P1)


# -- the DM panel: Components V2, limits, taps -----------------------------------------------------
def test_service_panel_is_components_v2_within_limits_at_its_fullest() -> None:
    """4 players, a hand of many different faces, a giveable tile held: every row in use."""
    state = start([P1, P2, P3, P4])
    faces = [alien(c, k) for c in ("purple", "green", "blue", "orange") for k in ("main", "drink")]
    faces += [order(k, c) for k in ("main", "dessert") for c in ("blue", "green")]
    stack(state, P1, {5: alien("green", "dessert"), 6: order("dessert", "green")}, hand=faces)
    state = apply(GAME, state, P1, HoldAction(tile=state.seats[P1].hand[0]))
    panel = GAME.panel(state, P1)
    assert panel.layout == "components" and panel_problems(panel) == []
    assert v2_component_count(panel) <= MAX_V2_COMPONENTS
    rows = panel_rows(panel)
    # Rows 0–3: the 4×4 grid and nothing else.
    assert [len(r) for r in rows[:4]] == [4, 4, 4, 4]
    assert all(c.action["type"] in ("place", "hold") for r in rows[:4] for c in r)
    # Under it the hand's buttons, then (a hand too large for 40 components) a select, then the
    # commands, then the gives and the offer.
    hand_buttons = [c for c in rows[4] if isinstance(c, Button)]
    assert len(hand_buttons) == 5 and all(c.action["type"] == "hold" for c in hand_buttons)
    (more,) = rows[5]
    assert isinstance(more, Select) and len(more.options) == len(faces) - 5
    assert [c.label for c in rows[6]] == ["Draw 👽", "Draw 🍽️", "✅ Done"]
    gives = [c for c in rows[7] if isinstance(c, Button) and c.action["type"] == "give"]
    assert len(gives) == 3 and len(rows) == 8


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 4))
def test_every_dm_panel_fits_components_v2_in_random_games(seed: int, players: int) -> None:
    fullest = 0

    def visit(before: AlienCafeState, pid: str, action: Action, after: AlienCafeState) -> None:
        nonlocal fullest
        for who in after.players:
            panel = GAME.panel(after, who)
            assert panel.layout == "components"
            assert panel_problems(panel) == [], panel_problems(panel)
            fullest = max(fullest, v2_component_count(panel))

    random_game(players, seed, visit)
    assert 20 < fullest <= MAX_V2_COMPONENTS


def taps_to(state: AlienCafeState, pid: str, goal: Callable[[Action], bool], limit: int = 3) -> int:
    """The fewest taps on ``pid``'s panel until a control submits an action ``goal`` wants: a
    button is one tap, a select option two (open the menu, pick the option)."""
    frontier: dict[int, list[AlienCafeState]] = {0: [state]}
    for spent in range(limit):
        for current in frontier.pop(spent, []):
            for raw, cost in _enabled(GAME.panel(current, pid)):
                action = GAME.parse_action(raw)
                if spent + cost > limit:
                    continue
                if goal(action):
                    return spent + cost  # costs are 1 or 2: nothing cheaper is left unseen
                frontier.setdefault(spent + cost, []).append(apply(GAME, current, pid, action))
    raise AssertionError(f"not reachable in {limit} taps")


def _enabled(panel: Panel) -> list[tuple[dict[str, Any], int]]:
    """Each enabled control's action with its taps."""
    out: list[tuple[dict[str, Any], int]] = []
    for control in panel.controls:
        if isinstance(control, Button):
            if not control.disabled:
                out.append((control.action, 1))
        else:
            out += [(o.action, 2) for o in control.options]
    return out


def test_taps_per_decision() -> None:
    """Before the fix a tile took 3 taps to place (open the menu, "✋ Hold…", the cell)."""
    state = start([P1, P2])
    tile = state.seats[P1].hand[0]

    def placed(a: Action) -> bool:
        return isinstance(a, PlaceAction) and a.tile == tile and a.cell == 9

    assert taps_to(state, P1, placed) == 2  # tap the tile, tap the cell
    assert taps_to(state, P1, lambda a: isinstance(a, GiveAction) and a.tile == tile) == 2
    assert taps_to(state, P1, lambda a: isinstance(a, OfferAction) and a.tile == tile) == 2
    assert taps_to(state, P1, lambda a: isinstance(a, DrawAction)) == 1
    assert taps_to(state, P1, lambda a: isinstance(a, DoneAction)) == 1
    assert taps_to(state, P1, lambda a: isinstance(a, RequestAction) and a.want == "drink") == 2
    state = apply(GAME, state, P1, PlaceAction(tile=tile, cell=9))
    assert taps_to(state, P1, lambda a: isinstance(a, MoveAction) and a.cell == 0) == 2
    assert taps_to(state, P1, lambda a: isinstance(a, TakeBackAction)) == 2
    joker = stack(state, P1, {3: ALIEN_JOKERS})[3]
    declared = taps_to(state, P1, lambda a: isinstance(a, DeclareAction) and a.tile == joker)
    assert declared == 3  # tap the Joker, then its menu


def test_a_level_is_picked_in_one_tap() -> None:
    state = new_game([P1, P2])
    for level in range(5):
        wanted = LevelAction(level=level)
        assert taps_to(state, P1, wanted.__eq__) == 1
    labels = [c.label for c in GAME.panel(state, P1).controls if isinstance(c, Button)]
    assert labels == ["Keep level 0", "Level 1", "Level 2", "Level 3", "Level 4"]


def test_the_hand_is_buttons_and_a_tile_places_in_two_taps() -> None:
    """Before the fix: menu, "✋ Hold…", cell (3 taps). Now: hand button, cell button."""
    state = start([P1, P2])
    tile = state.seats[P1].hand[0]
    panel = GAME.panel(state, P1)
    hold = next(c for c in panel.controls if c.row == 4 and isinstance(c, Button))
    assert hold.action == {"type": "hold", "tile": tile} and hold.label.startswith(
        TILES[tile].label
    )
    state = apply(GAME, state, P1, GAME.parse_action(hold.action))
    cell = next(
        c
        for c in GAME.panel(state, P1).controls
        if isinstance(c, Button) and c.action.get("cell") == 9
    )
    state = apply(GAME, state, P1, GAME.parse_action(cell.action))
    assert state.seats[P1].tray[9] == tile


@pytest.mark.parametrize("players", [1, 4])
def test_views_of_a_finished_game(players: int) -> None:
    ids = [P1, P2, P3, P4][:players]
    state = new_game(ids)
    while state.phase != "over":
        state = finish_round(state, success=True)
    assert GAME.views_touched(state, state, P1) == {P1}  # nothing changed at all
    table = GAME.panel(state, None)
    assert table.image is not None and panel_problems(table) == []
