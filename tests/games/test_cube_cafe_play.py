"""Cube Café: random legal play, panels and the table, pictures, secrecy, help, the greedy player."""

from __future__ import annotations

import io
import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from games.cube_cafe import GAME
from games.cube_cafe.actions import Action, Done
from games.cube_cafe.present import restaurant_spec
from games.cube_cafe.state import CubeCafeOptions, CubeCafeState
from games.engine import apply, new_game
from games.presentation import Button, Panel, Select, panel_problems, table_problems
from games.rng import Rng
from tests.playing import apply_checked, random_move


def control_actions(panel: Panel) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    for control in panel.controls:
        if isinstance(control, Button):
            actions.append(control.action)
        else:
            actions.extend(o.action for o in control.options)
    return actions


def check(state: CubeCafeState) -> None:
    GAME.check_invariants(state)
    assert CubeCafeState.model_validate_json(state.model_dump_json()) == state


def check_panels(state: CubeCafeState) -> None:
    table = GAME.table(state)
    assert table_problems(table) == [], table_problems(table)
    assert len(table) == 1 + len(state.players) <= 6
    assert all(p.controls == [] for p in table)
    assert panel_problems(GAME.panel(state, None)) == []
    for announcement in state.announcements:
        assert panel_problems(announcement) == []
    for pid in state.players:
        panel = GAME.panel(state, pid)
        assert panel_problems(panel) == [], panel_problems(panel)
        assert panel.image is not None and panel.image.name == "restaurant.png"
        for raw in control_actions(panel):
            assert GAME.is_legal(state, pid, GAME.parse_action(raw)), raw
    # Nobody may see the VIP cards still face down, nor the bags' order.
    hidden = GAME.secrets(state, None)
    public = [
        GAME.view(state, None).model_dump_json(),
        json.dumps([p.model_dump(mode="json") for p in table]),
        json.dumps([a.model_dump(mode="json") for a in state.announcements]),
        *(GAME.panel(state, p).model_dump_json() for p in state.players),
        *(GAME.view(state, p).model_dump_json() for p in state.players),
    ]
    for text in public:
        assert "plate_bag" not in text and "car_bag" not in text
        for vip in hidden:
            assert vip not in text


def random_game(players: int, seed: int, panels_every: int = 4) -> CubeCafeState:
    """A random legal game (a timeout now and then), checking the invariants after every action
    and the panels every few actions."""
    rng = Rng(seed=seed)
    state = new_game(GAME, [f"7{i}" for i in range(players)], CubeCafeOptions(), seed)
    check(state)
    check_panels(state)
    for step in range(5000):
        if GAME.outcome(state) is not None:
            break
        pid, action = random_move(GAME, state, rng, timeout_one_in=25)
        state = apply_checked(GAME, state, pid, action)
        check(state)
        if step % panels_every == 0:
            check_panels(state)
    check_panels(state)
    outcome = GAME.outcome(state)
    assert outcome is not None and state.round == 8
    assert len(outcome.progress) == 8
    assert outcome.scores == {p: state.boards[p].money for p in state.players}
    return state


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 5))
def test_random_games_end_and_keep_every_invariant(seed: int, players: int) -> None:
    random_game(players, seed)


def test_the_bags_are_conserved_and_only_counted_in_the_view() -> None:
    state = random_game(5, 3, panels_every=50)
    view = GAME.view(state, None).model_dump()
    assert sum(view["plates_in_bag"].values()) == len(state.plate_bag)
    assert sum(view["cars_in_bag"].values()) == len(state.car_bag)


def test_the_private_panel_offers_every_kind_of_move_within_discord_limits() -> None:
    state = new_game(GAME, ["a"], CubeCafeOptions(), 4)
    board = state.boards["a"]
    board.hand = ["red", "yellow", "green", "blue", "white", "wild"]
    board.recruited = list(board.hand)
    board.tables[0].guest, board.tables[0].satisfaction = "guest", 3
    board.tables[1].guest, board.tables[1].satisfaction, board.tables[1].plate = "guest", 3, "blue"
    state.plate_bag.remove("blue")
    board.tables[2].plate, board.tables[2].dirty = "green", True
    state.plate_bag.remove("green")
    board.menu["red"] -= 1
    board.menu["blue"] -= 1
    board.menu["white"] -= 1
    board.grill, board.hot, board.cold = ["red"], ["blue"], ["white"]
    GAME.check_invariants(state)
    panel = GAME.panel(state, "a")
    assert panel_problems(panel) == []
    kinds = {raw["type"] for raw in control_actions(panel)}
    assert kinds == {"order", "cook", "serve", "refill", "manager", "rotate", "bus", "done"}
    fresh = new_game(GAME, ["a"], CubeCafeOptions(), 4)
    fresh.boards["a"].hand = fresh.boards["a"].recruited = ["blue"]
    assert "seat" in {raw["type"] for raw in control_actions(GAME.panel(fresh, "a"))}
    # A crowded hand: only the largest group (12 wheel turns) folds into a select; every job,
    # serve, manager move, bus and Done stays a button (one tap).
    selects = [c for c in panel.controls if isinstance(c, Select)]
    assert [len(s.options) for s in selects] == [12]
    assert {o.action["type"] for o in selects[0].options} == {"rotate"}
    buttons = [c for c in panel.controls if isinstance(c, Button)]
    assert {b.action["type"] for b in buttons} == kinds - {"rotate"}
    # A wild is not offered where the slot's own colour does the same job.
    assert all(
        raw.get("staff") != "wild" or raw["type"] == "rotate" for raw in control_actions(panel)
    )
    # A button says the job briefly, its emoji the staff it spends; a select option in full.
    serve = [b for b in buttons if b.action["type"] == "serve" and b.action["source"] == "hot"]
    assert [(b.emoji, b.label) for b in serve] == [("🟩", "Serve hot B→T2 +1")]
    described = [o.description for o in selects[0].options]
    assert "🟥R turns the wheel ⟲ (⬜W to Seat)" in described
    assert panel.stamp == "round-1"


def test_a_pending_reward_shows_only_its_choices() -> None:
    state = new_game(GAME, ["a"], CubeCafeOptions(), 4)
    board = state.boards["a"]
    board.pending = ["any_or_cash"]
    panel = GAME.panel(state, "a")
    kinds = [raw["type"] for raw in control_actions(panel)]
    assert sorted(set(kinds)) == ["cash", "recruit"] and len(kinds) == 6
    assert "Choose your reward" in panel.description


def test_the_table_has_a_header_and_one_picture_per_restaurant() -> None:
    state = new_game(GAME, [f"p{i}" for i in range(5)], CubeCafeOptions(), 9)
    table = GAME.table(state)
    assert [p.image.name if p.image else None for p in table] == [
        None,
        "restaurant-1.png",
        "restaurant-2.png",
        "restaurant-3.png",
        "restaurant-4.png",
        "restaurant-5.png",
    ]
    assert "{p:p3}" in table[4].description and "$0" in table[4].title
    assert "⏳ Working" in table[0].description and "🎲" in table[0].description
    state = apply(GAME, state, "p0", Done())
    assert "✅ Done: {p:p0}" in GAME.table(state)[0].description


# -- pictures ------------------------------------------------------------------------------------


def test_pictures_are_deterministic_valid_pngs_of_the_intended_size() -> None:
    state = random_game(3, 8, panels_every=100)
    spec = restaurant_spec(state, "70")
    first = GAME.draw(spec)
    assert first == GAME.draw(json.loads(json.dumps(spec)))
    image = Image.open(io.BytesIO(first))
    assert image.format == "PNG" and image.size == (800, 500)
    assert len(first) < 60_000


def test_different_boards_draw_different_pictures() -> None:
    state = new_game(GAME, ["a", "b"], CubeCafeOptions(), 2)
    spec = restaurant_spec(state, "a")
    changed = dict(spec, manager=3)
    assert GAME.draw(changed) != GAME.draw(spec)
    served = json.loads(json.dumps(spec))
    served["tables"][0] = {"guest": "Critic", "satisfaction": 4, "plate": "red", "cube": "red"}
    assert GAME.draw(served) != GAME.draw(spec)
    assert GAME.draw(restaurant_spec(state, "a")) != GAME.draw(restaurant_spec(state, "b"))


def test_the_picture_alt_text_describes_the_board_in_words() -> None:
    state = new_game(GAME, ["a"], CubeCafeOptions(), 2)
    board = state.boards["a"]
    board.tables[0].guest, board.tables[0].satisfaction = "guest", 3
    picture = GAME.panel(state, "a").image
    assert picture is not None
    assert "seat blue" in picture.alt and "table 1: a customer at 3 of 5" in picture.alt
    assert picture.spec == restaurant_spec(state, "a")


# -- words ---------------------------------------------------------------------------------------


def test_help_text_is_paged_by_sections_and_within_limits() -> None:
    text = GAME.help_text
    assert len(text) <= 3500
    sections = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert len(sections) >= 5 and text.startswith("## ")
    for decision in ("reached **or passed**", "regular customers never run out", "shared win"):
        assert decision in text
    assert GAME.Options.model_fields["phase_timeout"].default == 86400
    assert GAME.timer_option == "phase_timeout"


# -- strategies ----------------------------------------------------------------------------------


def play_with(strategies: list[str], seed: int) -> dict[str, int]:
    ids = [f"s{i}" for i in range(len(strategies))]
    named = GAME.strategies()
    rng = Rng(seed=seed)
    state = new_game(GAME, ids, CubeCafeOptions(), seed)
    while GAME.outcome(state) is None:
        pid = rng.choice(sorted(GAME.active_players(state)))
        name = strategies[ids.index(pid)]
        if name == "random":
            action: Action = rng.choice(list(GAME.legal_actions(state, pid)))
        else:
            action = GAME.parse_action(named[name](state, pid, rng).model_dump(mode="json"))
        state = apply(GAME, state, pid, action)
    return {pid: state.boards[pid].money for pid in ids}


def test_greedy_makes_more_money_than_random() -> None:
    greedy, random = 0, 0
    for seed in range(4):
        money = play_with(["greedy", "random"], seed)
        greedy += money["s0"]
        random += money["s1"]
    assert greedy > random + 20
