"""Monster Café: the fixes play-tests asked for (each test failed before its fix).

- turn notices are ``kind="turn"`` (one per turn start), events are few and ping nobody;
- the table is compact and phone-readable;
- clearing a table takes two taps (Clear, then Confirm) and asking reveals nothing;
- an absent player costs one deadline per turn, the last diner included;
- the final standings ping nobody; Outcome.progress charts every round.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import apply, clock_key, play_timeout
from games.monster_cafe import GAME
from games.monster_cafe.catalogue import SORBET
from games.monster_cafe.scoring import totals
from games.monster_cafe.state import (
    CancelClear,
    Clear,
    ConfirmClear,
    Draw,
    MonsterCafeState,
    Move,
    Seat,
)
from games.presentation import PLAYER_TOKEN, Button, Panel, Select
from games.rng import Rng
from tests.games.test_monster_cafe import FOUR_EMPTY, M, T, build, play

Step = tuple[MonsterCafeState, str, Move, MonsterCafeState]


def random_game(seed: int, count: int) -> Iterator[Step]:
    """Every move of a random legal game: (before, player, action, after)."""
    rng = Rng(seed=seed)
    state = GAME.setup([f"p{i}" for i in range(count)], GAME.Options(), seed)
    while GAME.outcome(state) is None:
        (pid,) = GAME.active_players(state)
        action = rng.choice(list(GAME.legal_actions(state, pid)))
        after = apply(GAME, state, pid, action)
        yield state, pid, action, after
        state = after


def taps(panel: Panel) -> dict[str, Move]:
    """What each control of the table offers, by label."""
    out: dict[str, Move] = {}
    for control in panel.controls:
        if isinstance(control, Button):
            out[control.label] = GAME.parse_action(control.action)
        elif isinstance(control, Select):
            out.update({o.label: GAME.parse_action(o.action) for o in control.options})
    return out


# -- the channel is not flooded ------------------------------------------------------------------


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_turn_notices_are_one_per_turn_start_and_events_are_few(seed: int, count: int) -> None:
    events = 0
    for before, _pid, _action, after in random_game(seed, count):
        new = after.announcements[len(before.announcements) :]
        turns = [a for a in new if a.kind == "turn"]
        started = not after.over and (after.current, after.round) != (before.current, before.round)
        assert len(turns) == (1 if started else 0), "one turn notice per turn start, no more"
        for notice in turns:
            assert notice.ping == [after.current]
        for event in (a for a in new if a.kind == "event"):
            assert event.ping == [], "an event needs nobody's input: it pings nobody"
            events += 1
    assert events == 4 + 1, "a message of its own for each round's scoring and for the end"


def test_a_turn_inside_a_turn_posts_nothing() -> None:
    state = build(tables=FOUR_EMPTY, deck_top=[M("brain")])
    drawn = play(state, "a", Draw())
    assert drawn.announcements == state.announcements, "a draw is not a new turn"
    seated = play(drawn, "a", Seat(table=T("bblt")))
    (notice,) = seated.announcements[len(state.announcements) :]
    assert (notice.kind, notice.ping) == ("turn", ["b"])


def test_the_final_standings_ping_nobody() -> None:
    for before, _pid, _action, after in random_game(11, 4):
        if after.over:
            new = after.announcements[len(before.announcements) :]
            assert [a.title for a in new][-1] == "🏆 Monster Café — final scores"
            assert all(a.ping == [] and a.kind == "event" for a in new)


# -- a compact table -----------------------------------------------------------------------------


def size(panel: Panel, name_length: int) -> int:
    """Characters of the embed, each player's name ``name_length`` characters long."""
    texts = [panel.title, panel.description, panel.footer]
    texts += [t for f in panel.fields for t in (f.name, f.value)]
    return sum(len(PLAYER_TOKEN.sub("x" * name_length, t)) for t in texts)


def lines(panel: Panel) -> list[str]:
    texts = [panel.title, panel.description, panel.footer]
    texts += [t for f in panel.fields for t in (f.name, f.value)]
    return [line for t in texts for line in t.split("\n") if line]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_the_table_is_compact_and_phone_readable(seed: int, count: int) -> None:
    for _before, _pid, _action, after in random_game(seed, count):
        panel = GAME.panel(after, None)
        # Worst case: every name 32 characters long (the longest we render).
        assert size(panel, 32) <= 1300, size(panel, 32)
        for line in lines(panel):
            shown = PLAYER_TOKEN.sub("x" * 12, line).replace("**", "")
            assert len(shown) <= 50, line
        names = [f.name for f in panel.fields]
        assert not any(n.startswith("Seat ") or "if the game ended now" in n for n in names)
        scores = totals(after)
        for pid in after.players:
            (field,) = [n for n in names if f"{{p:{pid}}}" in n]
            expected = f"🏁 {{p:{pid}}}" if after.over else f"📈 now: {scores[pid]}"
            assert expected in field


# -- clearing takes two taps ---------------------------------------------------------------------


def test_clear_takes_two_taps_and_asking_reveals_nothing() -> None:
    state = build(
        tables=[(T("spaghetti"), [M("eyeball")]), (T("brains"), [])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
    )
    first = taps(GAME.panel(state, None))
    draw = f"Draw a monster ({len(state.deck)} left)"
    assert list(first) == [draw, "Clear A · Spaghetti and Eyeballs ×1"]
    asked = play(state, "a", first["Clear A · Spaghetti and Eyeballs ×1"])
    assert asked.model_copy(update={"clearing": None}) == state, "asking changes nothing else"
    assert asked.rng == state.rng and asked.deck == state.deck and asked.current == "a"
    assert asked.announcements == state.announcements
    assert GAME.undo_policy(state, asked, "a", Clear(table=T("spaghetti"))).value == "free"
    panel = GAME.panel(asked, None)
    second = taps(panel)
    assert list(second) == ["Confirm: clear A", "Cancel"]
    assert "asks to clear **A · 🍝 Spaghetti**" in panel.description
    assert play(asked, "a", second["Cancel"]) == state, "cancel puts everything back"
    done = play(asked, "a", second["Confirm: clear A"])
    assert done.cleared() == ["c", "d", "a"] and done.current == "b"
    # Taps per decision: a clear takes two (ask, confirm), as a draw does (draw, seat).
    drawn = play(state, "a", first[draw])
    assert drawn.current == "a"
    seated = play(drawn, "a", next(iter(taps(GAME.panel(drawn, None)).values())))
    assert seated.current == "b"


def test_while_a_clear_is_asked_only_confirm_or_cancel() -> None:
    state = build(
        tables=[(T("spaghetti"), [M("eyeball")]), (T("brains"), [M("brain")])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
    )
    asked = play(state, "a", Clear(table=T("spaghetti")))
    assert GAME.legal_actions(asked, "a") == [ConfirmClear(table=T("spaghetti")), CancelClear()]
    refused: list[tuple[Move, str]] = [
        (Draw(), "confirm it or cancel first"),
        (Clear(table=T("brains")), "confirm it or cancel first"),
        (ConfirmClear(table=T("brains")), "confirm or cancel that"),
    ]
    for move, why in refused:
        assert not GAME.is_legal(asked, "a", move)
        assert why in GAME.explain_illegal(asked, "a", move)
    # A one-step clear stays legal (games logged before the two taps replay exactly), but no
    # control offers it: the panel always asks first.
    assert GAME.is_legal(state, "a", ConfirmClear(table=T("spaghetti")))
    offered = [
        o.action["type"] if hasattr(o, "action") else None
        for c in GAME.panel(state, None).controls
        for o in (c.options if hasattr(c, "options") else [c])
    ]
    assert "ask_clear" in offered and "clear" not in offered
    assert "no clear to cancel" in GAME.explain_illegal(state, "a", CancelClear())


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_only_the_confirmation_ends_a_round(seed: int, count: int) -> None:
    for before, _pid, action, after in random_game(seed, count):
        took = len(after.taken) != len(before.taken) or after.round != before.round or after.over
        assert took == isinstance(action, ConfirmClear), action
        if isinstance(action, Clear | CancelClear):
            assert after.model_copy(update={"clearing": before.clearing}) == before


# -- an absent player costs one deadline per turn ------------------------------------------------


def test_an_absent_last_diner_clears_at_the_first_deadline() -> None:
    state = build(
        tables=[(T("souffle"), [M("sludge")])],
        taken=[("a", T("spaghetti"), []), ("b", T("brains"), []), ("c", T("roadkill"), [])],
        current="d",
        collections={"d": ([M("sludge", 1)], [])},
    )
    after, moves = play_timeout(GAME, state, "d")
    assert moves == [
        Clear(table=T("souffle"), auto=True),
        ConfirmClear(table=T("souffle"), auto=True),
    ]
    assert after.round == 2 and after.collections["d"].monsters == [M("sludge", 1), M("sludge")]
    timed_out = [a for a in after.announcements if a.title == "⏰ Time's up"]
    assert len(timed_out) == 1 and "{p:d} took A · 🍮 Soufflé" in timed_out[0].description


def test_an_absent_last_diner_at_an_empty_table_draws_once_and_clears_in_one_deadline() -> None:
    state = build(
        tables=[(T("souffle"), [])],
        taken=[("a", T("spaghetti"), []), ("b", T("brains"), []), ("c", T("roadkill"), [])],
        current="d",
        deck_top=[M(SORBET), M("lint")],
        collections={"d": ([M("eyeball")], [])},
    )
    after, moves = play_timeout(GAME, state, "d")
    assert [m.type for m in moves] == ["draw", "sorbet", "draw", "seat", "ask_clear", "clear"]
    assert after.round == 2, "the run ended within one deadline"
    (timed_out,) = [a for a in after.announcements if a.title == "⏰ Time's up"]
    assert timed_out.description.count("\n") == 3, "the sorbet, the seat and the clear, once"


def test_a_present_last_diner_gets_a_fresh_clock_for_each_draw() -> None:
    state = build(
        tables=[(T("souffle"), [M("sludge")])],
        taken=[("a", T("spaghetti"), []), ("b", T("brains"), []), ("c", T("roadkill"), [])],
        current="d",
        deck_top=[M("lint")],
    )
    after = play(play(state, "d", Draw()), "d", Seat(table=T("souffle")))
    assert after.current == "d" and clock_key(GAME, after) != clock_key(GAME, state)


def test_a_clear_asked_before_the_deadline_is_cancelled_unless_it_is_the_default() -> None:
    state = build(
        tables=[(T("spaghetti"), [M("eyeball")]), (T("brains"), [])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
        deck_top=[M("lint")],
    )
    asked = play(state, "a", Clear(table=T("spaghetti")))
    after, moves = play_timeout(GAME, asked, "a")
    assert [m.type for m in moves] == ["cancel_clear", "draw", "seat"], "asking is not deciding"
    assert after.cleared() == ["c", "d"] and after.current == "b"
    last = build(
        tables=[(T("souffle"), [M("sludge")])],
        taken=[("a", T("spaghetti"), []), ("b", T("brains"), []), ("c", T("roadkill"), [])],
        current="d",
    )
    asked = play(last, "d", Clear(table=T("souffle")))
    _after, moves = play_timeout(GAME, asked, "d")
    assert moves == [ConfirmClear(table=T("souffle"), auto=True)]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(2, 4))
def test_one_deadline_is_one_decision_for_an_absent_player(seed: int, count: int) -> None:
    """Player p0 never shows up; each of their deadlines ends their turn (or round)."""
    rng = Rng(seed=seed)
    state = GAME.setup([f"p{i}" for i in range(count)], GAME.Options(), seed)
    deadlines = 0
    while GAME.outcome(state) is None:
        (pid,) = GAME.active_players(state)
        if pid == "p0":
            after, moves = play_timeout(GAME, state, pid)
            deadlines += 1
            assert moves and all(m.auto for m in moves)
            still_waiting = after.current == "p0" and after.round == state.round
            assert after.over or not still_waiting, "p0 would need another deadline"
            state = after
        else:
            state = apply(GAME, state, pid, rng.choice(list(GAME.legal_actions(state, pid))))
    assert deadlines >= 4, "p0 played every round"


# -- the end-of-game chart -----------------------------------------------------------------------


def test_progress_is_every_players_score_after_each_round() -> None:
    scores_after_rounds = []
    for before, _pid, _action, after in random_game(5, 3):
        if after.round != before.round or after.over:
            scores_after_rounds.append(totals(after))
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert outcome.progress == scores_after_rounds and len(outcome.progress) == 4
    assert outcome.progress[-1] == outcome.scores


def test_no_view_names_a_card_face_down_in_a_deck() -> None:
    for _before, _pid, _action, after in random_game(3, 4):
        hidden = GAME.secrets(after, None)
        assert hidden == set(after.deck) | set(after.table_deck)
        if not hidden:
            continue
        pattern = re.compile(rf"\b(?:{'|'.join(sorted(hidden))})\b")
        texts = [
            GAME.view(after, None).model_dump_json(),
            GAME.panel(after, None).model_dump_json(),
            *[a.model_dump_json() for a in after.announcements[-3:]],
        ]
        assert not any(pattern.search(t) for t in texts)
