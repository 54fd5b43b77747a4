"""Monster Café: the rulebook example, a scenario per rule branch, timeouts, panels, properties."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from games.engine import IllegalAction, apply, new_game, play_timeout
from games.kit import TIMEOUT_CHOICES, choice_controls
from games.monster_cafe import GAME
from games.monster_cafe.catalogue import (
    ALL_MONSTERS,
    ALL_TABLES,
    KIND_BY_KEY,
    MEAL_OF_KIND,
    MONSTER_KIND,
    REGULAR_KINDS,
    SORBET,
    TABLE_MEAL,
    monsters_of_kind,
    tables_of_meal,
)
from games.monster_cafe.present import private_panel, table_panel
from games.monster_cafe.rules import deal_starting_monsters
from games.monster_cafe.scoring import score
from games.monster_cafe.state import (
    CancelClear,
    Clear,
    Collection,
    ConfirmClear,
    Draw,
    MonsterCafeOptions,
    MonsterCafeState,
    Move,
    Seat,
    Sorbet,
    Table,
    Taken,
)
from games.monster_cafe.words import seats_text
from games.presentation import Button, Option, Select, panel_problems
from games.rng import Rng
from tests.playing import apply_checked

# -- helpers -------------------------------------------------------------------------------------


def M(kind: str, i: int = 0) -> str:
    """The i-th monster card of a kind, e.g. M("sludge", 2)."""
    return monsters_of_kind(kind)[i]


def T(meal: str, i: int = 0) -> str:
    """The i-th table card of a meal, e.g. T("sockstew", 1)."""
    return tables_of_meal(meal)[i]


def build(
    players: Sequence[str] = ("a", "b", "c", "d"),
    *,
    tables: Sequence[tuple[str, Sequence[str]]] = (),
    deck_top: Sequence[str] = (),
    deck_rest: bool = True,
    collections: dict[str, tuple[Iterable[str], Iterable[str]]] | None = None,
    taken: Sequence[tuple[str, str, Sequence[str]]] = (),
    removed: Sequence[str] = (),
    dummy_discard: Sequence[str] = (),
    current: str | None = None,
    round_no: int = 1,
    drawn: str | None = None,
) -> MonsterCafeState:
    """A hand-built state that passes check_invariants.

    Unplaced monsters go under ``deck_top`` (or to the discard pile when ``deck_rest`` is False).
    ``taken`` tables (with their monsters) join their taker's collection, cleared this round.
    Unplaced tables fill the table deck for the rounds to come; the rest go, in id order, to the
    dummy discard (2 players) and to the players short of a table from each earlier round."""
    out: list[str] = []
    for kind in removed:
        out += monsters_of_kind(kind) + tables_of_meal(MEAL_OF_KIND[kind])
    cols = {p: Collection() for p in players}
    for p, (monsters, tabs) in (collections or {}).items():
        cols[p] = Collection(monsters=list(monsters), tables=list(tabs))
    in_play = [Table(slot="ABCD"[i], card=c, seats=list(s)) for i, (c, s) in enumerate(tables)]
    done = []
    for i, (p, card, monsters) in enumerate(taken):
        cols[p].tables.append(card)
        cols[p].monsters += monsters
        done.append(Taken(player=p, slot="ABCD"[len(in_play) + i], table=card, monsters=monsters))
    placed = set(out) | set(deck_top) | set(dummy_discard) | ({drawn} if drawn else set())
    placed |= {t.card for t in in_play} | {c for t in in_play for c in t.seats}
    placed |= {c for col in cols.values() for c in [*col.monsters, *col.tables]}
    rest = [c for c in ALL_MONSTERS if c not in placed]
    spare = [t for t in ALL_TABLES if t not in placed]
    per_round = 4 if len(players) == 4 else 3
    upcoming = (4 - round_no) * per_round
    table_deck, spare = spare[len(spare) - upcoming :], spare[: len(spare) - upcoming]
    dummies = list(dummy_discard)
    if len(players) == 2:
        while sum(c in TABLE_MEAL for c in dummies) < round_no - 1:
            dummies.append(spare.pop(0))
    for p in players:
        while len(cols[p].tables) < round_no - 1 + [t[0] for t in taken].count(p):
            cols[p].tables.append(spare.pop(0))
    state = MonsterCafeState(
        players=list(players),
        rng=Rng(seed=7),
        deck=list(deck_top) + (rest if deck_rest else []),
        table_deck=table_deck,
        tables=in_play,
        collections=cols,
        discard=[] if deck_rest else rest,
        out_of_play=out,
        dummy_discard=dummies,
        drawn=drawn,
        round=round_no,
        current=current or players[0],
        turn=1,
        taken=done,
    )
    GAME.check_invariants(state)
    return state


FOUR_EMPTY: list[tuple[str, Sequence[str]]] = [
    (T("tartare"), []),
    (T("dustbunnies"), []),
    (T("souffle"), []),
    (T("bblt"), []),
]


def play(state: MonsterCafeState, pid: str, action: Move) -> MonsterCafeState:
    after: MonsterCafeState = apply_checked(GAME, state, pid, action)
    GAME.check_invariants(after)
    return after


def clear(state: MonsterCafeState, pid: str, table: str) -> MonsterCafeState:
    """Clear a table the way players do: two taps, Clear then Confirm."""
    asked = play(state, pid, Clear(table=table))
    assert asked.clearing == table and asked.model_copy(update={"clearing": None}) == state
    assert GAME.legal_actions(asked, pid) == [ConfirmClear(table=table), CancelClear()]
    return play(asked, pid, ConfirmClear(table=table))


def new_announcements(before: MonsterCafeState, after: MonsterCafeState) -> list[str]:
    return [a.model_dump_json() for a in after.announcements[len(before.announcements) :]]


def pings(before: MonsterCafeState, after: MonsterCafeState) -> list[list[str]]:
    return [a.ping for a in after.announcements[len(before.announcements) :] if a.ping]


def options(**kw: int) -> MonsterCafeOptions:
    return MonsterCafeOptions(**kw)


# -- the rulebook's scoring example ------------------------------------------------------------


MIKE_MONSTERS = [
    M("sludge", 0),
    M("sludge", 1),
    M("sludge", 2),
    M("sock"),
    M("anything"),
    M("brain"),
    M("roadkill"),
    M("toenail"),
]
MIKE_TABLES = [T("souffle"), T("sockstew", 0), T("sockstew", 1), T("spaghetti")]


def test_rulebook_scoring_example() -> None:
    breakdown = score(MIKE_MONSTERS, MIKE_TABLES)
    assert breakdown.total == 4
    by_kind = {line.kind: line for line in breakdown.lines}
    assert by_kind["sludge"].points == 3 and by_kind["sludge"].plates == 1
    assert by_kind["sock"].points + by_kind["anything"].points == 4
    assert by_kind["anything"].meal == "sockstew" and by_kind["anything"].plates == 2
    unfed = [line for line in breakdown.lines if line.meal is None]
    assert sum(line.points for line in unfed) == -3 and len(unfed) == 3
    assert breakdown.unused_tables == ["spaghetti"]
    text = "\n".join(breakdown.describe())
    assert "🃏 Anything Eater — fed by 🥘 Stinky Sock Stew ×2 → +2" in text
    assert "Unused: 🍝 Spaghetti and Eyeballs → 0" in text


def test_rulebook_example_as_the_end_of_a_game() -> None:
    # Round 4, Mike is the last diner and clears the Sludge Soufflé with two Sludge Eaters.
    others = {
        "bo": ([M("lint")], [T("bblt", 0), T("bblt", 1), T("tartare", 0)]),
        "cy": ([M("dustbunny")], [T("dustbunnies", 0), T("dustbunnies", 1), T("tartare", 1)]),
        "di": ([M("eyeball")], [T("brains", 0), T("brains", 1), T("roadkill", 0)]),
    }
    mike_before = [m for m in MIKE_MONSTERS if m not in (M("sludge", 1), M("sludge", 2))]
    state = build(
        ("mike", "bo", "cy", "di"),
        collections={
            "mike": (mike_before, [T("sockstew", 0), T("sockstew", 1), T("spaghetti")]),
            **others,
        },
        tables=[(T("souffle"), [M("sludge", 1), M("sludge", 2)])],
        taken=[
            ("bo", T("roadkill", 1), []),
            ("cy", T("spaghetti", 1), []),
            ("di", T("souffle", 1), []),
        ],
        current="mike",
        round_no=4,
    )
    end = clear(state, "mike", T("souffle"))
    outcome = GAME.outcome(end)
    assert outcome is not None and outcome.scores["mike"] == 4
    final = end.announcements[-1]
    assert final.title.startswith("🏆")
    # A short ending: one line a player (the final table shows every café in full).
    lines = final.description.splitlines()
    assert not final.fields and len(lines) == 1 + 4
    mike = next(line for line in lines[1:] if "{p:mike}" in line)
    assert mike.startswith("#1 · {p:mike} — 4 pts · ") and "unfed (-" in mike, mike
    mine = end.collections["mike"]
    assert mike.endswith(score(mine.monsters, mine.tables).in_short())


# -- scoring -------------------------------------------------------------------------------------


def test_scoring_one_two_and_no_plates() -> None:
    eyes = [M("eyeball", i) for i in range(3)]
    assert score(eyes, []).total == -3
    assert score(eyes, [T("spaghetti")]).total == 3
    assert score(eyes, [T("spaghetti", 0), T("spaghetti", 1)]).total == 6
    assert score([], [T("spaghetti")]).total == 0  # unused tables score nothing


def test_anything_eater_takes_the_best_meal() -> None:
    wild = [M("anything", 0), M("anything", 1)]
    assert score(wild, []).total == -2  # no table at all: unfed
    # Any table of the player's feeds it, even a meal none of their other monsters eat.
    assert score(wild, [T("brains")]).total == 2
    # Both tables of some meal: worth 2 each, better than a single table elsewhere.
    both = score(wild, [T("brains"), T("bblt", 0), T("bblt", 1)])
    line = next(x for x in both.lines if x.kind == "anything")
    assert (line.meal, line.points, both.total) == ("bblt", 4, 4)
    assert both.unused_tables == ["brains"]
    # On a tie the meal that also feeds the player's other monsters is named.
    tie = score([*wild, M("sock")], [T("brains"), T("sockstew")])
    assert next(x for x in tie.lines if x.kind == "anything").meal == "sockstew"
    assert tie.total == 3


# -- setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4])
def test_setup_per_player_count(count: int) -> None:
    players = [f"p{i}" for i in range(count)]
    removed_kinds: set[frozenset[str]] = set()
    starters: set[str] = set()
    for seed in range(40):
        state = GAME.setup(players, options(), seed)
        GAME.check_invariants(state)
        per_round = 4 if count == 4 else 3
        assert len(state.tables) == per_round and all(not t.seats for t in state.tables)
        assert len(state.table_deck) == 3 * per_round
        for p in players:
            (card,) = state.collections[p].monsters
            assert MONSTER_KIND[card] != SORBET
        starters.add(state.current or "")
        assert state.announcements[-1].ping == [state.current]
        if count == 4:
            assert state.out_of_play == [] and len(state.deck) == 60 - 4
        else:
            kinds = {MONSTER_KIND[c] for c in state.out_of_play if c in MONSTER_KIND}
            meals = {TABLE_MEAL[c] for c in state.out_of_play if c in TABLE_MEAL}
            assert len(kinds) == 2 and kinds <= set(REGULAR_KINDS)
            assert meals == {MEAL_OF_KIND[k] for k in kinds}
            assert len(state.out_of_play) == 12 + 4 and len(state.deck) == 48 - count
            removed_kinds.add(frozenset(kinds))
            footer = GAME.panel(state, None).footer
            assert all(KIND_BY_KEY[k].name in footer for k in kinds)
    assert starters == set(players), "the starting player is random"
    if count < 4:
        assert len(removed_kinds) > 5, "the removed kinds are random"


def test_setup_refuses_bad_tables() -> None:
    with pytest.raises(IllegalAction, match="2–4 players; 1 is seated"):
        new_game(GAME, ["a"], options(), 1)
    with pytest.raises(IllegalAction, match="2–4 players; 5 are seated"):
        new_game(GAME, ["a", "b", "c", "d", "e"], options(), 1)


def test_starting_lemon_sorbet_is_shuffled_back_and_redrawn() -> None:
    sorbets = monsters_of_kind(SORBET)
    state = build(tables=FOUR_EMPTY, deck_top=[*sorbets[:3], M("brain"), sorbets[3], M("lint")])
    deck_before = len(state.deck)
    deal_starting_monsters(state)
    GAME.check_invariants(state)
    dealt = [state.collections[p].monsters for p in state.players]
    assert all(len(m) == 1 and MONSTER_KIND[m[0]] != SORBET for m in dealt)
    assert len(state.deck) == deck_before - 4
    assert all(s in state.deck for s in sorbets)
    assert state.deck[:4] != [*sorbets[:3], M("brain")], "the deck was reshuffled"


# -- a turn: draw and seat -----------------------------------------------------------------------


def test_draw_reveals_then_seat_at_a_chosen_table() -> None:
    state = build(
        tables=[(T("spaghetti"), []), (T("brains"), [M("brain", 1)])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
        deck_top=[M("eyeball")],
    )
    assert GAME.legal_actions(state, "a") == [Draw(), Clear(table=T("brains"))]
    drawn = play(state, "a", Draw())
    assert drawn.drawn == M("eyeball") and drawn.current == "a"
    assert GAME.legal_actions(drawn, "a") == [Seat(table=T("spaghetti")), Seat(table=T("brains"))]
    panel = table_panel(drawn)
    assert "Eyeball Eater" in panel.description
    assert [c.label for c in panel.controls if isinstance(c, Button)] == [
        "Seat at A · Spaghetti and Eyeballs",
        "Seat at B · Boiled Brains",
    ]
    with pytest.raises(IllegalAction, match="seat it"):
        play(drawn, "a", Clear(table=T("brains")))
    seated = play(drawn, "a", Seat(table=T("brains")))
    assert seated.tables[1].seats == [M("brain", 1), M("eyeball")]
    assert seated.drawn is None and seated.current == "b"
    assert pings(drawn, seated) == [["b"]]


def test_seat_at_a_full_table_is_refused() -> None:
    full = [M("toenail", i) for i in range(4)]
    state = build(
        tables=[(T("tartare"), full), (T("bblt"), [])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
        drawn=M("lint"),
    )
    with pytest.raises(IllegalAction, match="That table is full"):
        play(state, "a", Seat(table=T("tartare")))
    with pytest.raises(IllegalAction, match="no such table"):
        play(state, "a", Seat(table=T("souffle")))
    assert GAME.legal_actions(state, "a") == [Seat(table=T("bblt"))]


def test_full_tables_force_a_clear() -> None:
    tables = [
        (T(meal), [M(kind, i) for i in range(4)])
        for meal, kind in [
            ("spaghetti", "eyeball"),
            ("brains", "brain"),
            ("roadkill", "roadkill"),
            ("sockstew", "sock"),
        ]
    ]
    state = build(tables=tables)
    assert GAME.legal_actions(state, "a") == [Clear(table=t) for t, _ in tables]
    with pytest.raises(IllegalAction, match="Every table is full"):
        play(state, "a", Draw())
    panel = table_panel(state)
    assert not any(c.action["type"] == "draw" for c in panel.controls if isinstance(c, Button))
    assert "Every table is full" in panel.description


def test_no_monster_anywhere_forces_a_draw() -> None:
    state = build(
        tables=[(T("spaghetti"), []), (T("brains"), [])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
    )
    assert GAME.legal_actions(state, "a") == [Draw()]
    with pytest.raises(IllegalAction, match="empty table"):
        play(state, "a", Clear(table=T("spaghetti")))
    with pytest.raises(IllegalAction, match="Draw a monster first"):
        play(state, "a", Seat(table=T("spaghetti")))


def test_clear_takes_the_table_and_sits_out_the_round() -> None:
    seated = [M("eyeball", 1), M("anything")]
    state = build(
        tables=[
            (T("spaghetti"), seated),
            (T("brains"), [M("brain")]),
            (T("roadkill"), []),
            (T("sockstew"), []),
        ],
        collections={"a": ([M("eyeball", 0)], [])},
    )
    cleared = clear(state, "a", T("spaghetti"))
    assert cleared.collections["a"].monsters == [M("eyeball", 0), *seated]
    assert cleared.collections["a"].tables == [T("spaghetti")]
    assert [t.card for t in cleared.tables] == [T("brains"), T("roadkill"), T("sockstew")]
    assert cleared.cleared() == ["a"] and cleared.current == "b"
    # "a" sits out: turn order skips them from now on.
    b_moved = play(play(cleared, "b", Draw()), "b", Seat(table=T("brains")))
    c_moved = play(play(b_moved, "c", Draw()), "c", Seat(table=T("brains")))
    d_moved = play(play(c_moved, "d", Draw()), "d", Seat(table=T("brains")))
    assert d_moved.current == "b"
    with pytest.raises(IllegalAction, match="not your move"):
        play(d_moved, "a", Draw())
    seat_1 = next(f for f in table_panel(cleared).fields if f.name.startswith("{p:a} "))
    assert "✅ took A · 🍝 Spaghetti" in seat_1.value


def test_play_continues_to_the_left_skipping_cleared_players() -> None:
    state = build(
        tables=[(T("spaghetti"), [M("eyeball")]), (T("brains"), [])],
        current="c",
        taken=[("d", T("roadkill"), [M("roadkill")]), ("a", T("sockstew"), [])],
    )
    after = play(play(state, "c", Draw()), "c", Seat(table=T("brains")))
    assert after.current == "b"
    after = play(play(after, "b", Draw()), "b", Seat(table=T("brains")))
    assert after.current == "c"


# -- lemon sorbet --------------------------------------------------------------------------------


def test_sorbet_discards_one_chosen_type_and_ends_the_turn() -> None:
    mine = [M("brain", 0), M("brain", 1), M("anything", 0), M("anything", 1), M("lint")]
    sorbet = M(SORBET)
    state = build(tables=FOUR_EMPTY, deck_top=[sorbet], collections={"a": (mine, [])})
    drawn = play(state, "a", Draw())
    assert drawn.drawn == sorbet and drawn.current == "a"
    assert GAME.legal_actions(drawn, "a") == [
        Sorbet(kind="brain"),
        Sorbet(kind="lint"),
        Sorbet(kind="anything"),
    ]
    labels = [c.label for c in table_panel(drawn).controls if isinstance(c, Button)]
    assert labels == [
        "Discard Brain Eater ×2",
        "Discard Bellybutton Lint Eater ×1",
        "Discard Anything Eater ×2",
    ]
    with pytest.raises(IllegalAction, match="no Sludge Eater"):
        play(drawn, "a", Sorbet(kind="sludge"))
    with pytest.raises(IllegalAction, match="Lemon Sorbet"):
        play(drawn, "a", Seat(table=T("tartare")))
    after = play(drawn, "a", Sorbet(kind="anything"))
    assert after.collections["a"].monsters == [M("brain", 0), M("brain", 1), M("lint")]
    assert after.discard == [M("anything", 0), M("anything", 1), sorbet]
    assert after.current == "b" and after.drawn is None
    assert not after.tables[0].seats


def test_sorbet_with_an_empty_collection_is_simply_discarded() -> None:
    sorbet = M(SORBET, 2)
    state = build(tables=FOUR_EMPTY, deck_top=[sorbet], collections={"a": ([], [])})
    after = play(state, "a", Draw())
    assert after.discard == [sorbet] and after.drawn is None and after.current == "b"
    with pytest.raises(IllegalAction, match="haven't drawn a Lemon Sorbet"):
        play(after, "b", Sorbet(kind="brain"))


# -- the last diner ------------------------------------------------------------------------------


def test_last_player_keeps_drawing_until_they_clear() -> None:
    sorbet = M(SORBET)
    state = build(
        tables=[(T("souffle"), [M("sludge")])],
        taken=[("a", T("spaghetti"), []), ("b", T("brains"), []), ("c", T("roadkill"), [])],
        current="d",
        deck_top=[M("sludge", 1), sorbet, M("eyeball"), M("brain"), M("lint")],
        collections={"d": ([M("eyeball", 1)], [])},
    )
    s = play(play(state, "d", Draw()), "d", Seat(table=T("souffle")))
    assert s.current == "d" and s.turn == state.turn + 1
    assert pings(state, s) == [], "a run's next turn is not announced again"
    s2 = play(play(s, "d", Draw()), "d", Sorbet(kind="eyeball"))  # a sorbet doesn't end the run
    assert s2.current == "d" and s2.collections["d"].monsters == []
    s3 = play(play(s2, "d", Draw()), "d", Seat(table=T("souffle")))
    s4 = play(play(s3, "d", Draw()), "d", Seat(table=T("souffle")))
    assert len(s4.tables[0].seats) == 4
    assert GAME.legal_actions(s4, "d") == [Clear(table=T("souffle"))]  # full: must clear
    end = clear(s4, "d", T("souffle"))
    assert end.round == 2 and end.current == "d", "who cleared the last table starts"


def test_the_last_diners_run_starts_with_one_ping() -> None:
    state = build(
        tables=[(T("souffle"), [M("sludge")]), (T("bblt"), [M("lint")])],
        taken=[("a", T("spaghetti"), []), ("b", T("brains"), [])],
        current="c",
    )
    after = clear(state, "c", T("bblt"))
    assert after.current == "d" and pings(state, after) == [["d"]]
    assert "last diner" in after.announcements[-1].description


# -- an empty deck -------------------------------------------------------------------------------


def test_empty_deck_forces_clears_and_allows_empty_tables() -> None:
    state = build(
        tables=[
            (T("spaghetti"), []),
            (T("brains"), [M("brain")]),
            (T("roadkill"), []),
            (T("sockstew"), []),
        ],
        deck_rest=False,
        collections={"a": ([M("eyeball")], [])},
    )
    assert state.deck == []
    legal = GAME.legal_actions(state, "a")
    assert legal == [Clear(table=t.card) for t in state.tables]
    with pytest.raises(IllegalAction, match="deck is empty"):
        play(state, "a", Draw())
    after = clear(state, "a", T("spaghetti"))
    assert after.collections["a"].tables == [T("spaghetti")]
    kept = after.collections["a"]
    assert score(kept.monsters, kept.tables).total == 1, "an empty table still feeds"
    assert "deck is empty" in after.announcements[-1].description


def test_an_empty_table_cannot_be_cleared_while_the_deck_has_cards() -> None:
    state = build(
        tables=[(T("spaghetti"), []), (T("brains"), [M("brain")])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
    )
    assert Clear(table=T("spaghetti")) not in GAME.legal_actions(state, "a")


def test_the_deck_running_out_mid_round() -> None:
    last = M("roadkill")
    state = build(
        tables=[(T("roadkill"), []), (T("brains"), [])],
        taken=[("c", T("spaghetti"), []), ("d", T("sockstew"), [])],
        deck_top=[last],
        deck_rest=False,
    )
    after = play(play(state, "a", Draw()), "a", Seat(table=T("roadkill")))
    assert after.deck == []
    assert GAME.legal_actions(after, "b") == [Clear(table=T("roadkill")), Clear(table=T("brains"))]


# -- rounds --------------------------------------------------------------------------------------


def test_round_end_announces_and_the_last_clearer_starts() -> None:
    state = build(
        tables=[(T("souffle"), [M("sludge")])],
        taken=[
            ("a", T("spaghetti"), [M("eyeball")]),
            ("c", T("brains"), []),
            ("d", T("roadkill"), []),
        ],
        current="b",
    )
    after = clear(state, "b", T("souffle"))
    assert after.round == 2 and after.current == "b"
    assert len(after.tables) == 4 and all(not t.seats for t in after.tables)
    assert after.taken == [] and len(after.table_deck) == 8
    end, turn = after.announcements[-2:]
    assert end.title == "🧹 Round 1/4 is over"
    assert "{p:a} took B · 🍝 Spaghetti and Eyeballs with 👁️ Eyeball Eater" in end.description
    assert "{p:b} took A · 🍮 Sludge Soufflé with 🤢 Sludge Eater" in end.description
    assert "{p:b} cleared the last table and starts round 2" in end.description
    assert turn.ping == ["b"]


def test_two_player_dummy_table_is_discarded() -> None:
    state = build(
        ("a", "b"),
        removed=("toenail", "lint"),
        tables=[(T("souffle"), [M("sludge")]), (T("brains"), [M("brain")])],
        taken=[("a", T("spaghetti"), [M("eyeball")])],
        current="b",
    )
    # b, the last diner, has the choice of two tables; the other one is the dummy.
    assert GAME.legal_actions(state, "b") == [
        Draw(),
        Clear(table=T("souffle")),
        Clear(table=T("brains")),
    ]
    after = clear(state, "b", T("brains"))
    assert after.dummy_discard == [T("souffle"), M("sludge")]
    assert after.round == 2 and after.current == "b" and len(after.tables) == 3
    end = after.announcements[-2]
    assert "🗑️ The dummy table A · 🍮 Sludge Soufflé is discarded with 🤢 Sludge Eater" in (
        end.description
    )


def test_two_player_round_does_not_end_after_one_clear() -> None:
    state = build(
        ("a", "b"),
        removed=("toenail", "lint"),
        tables=[(T("souffle"), [M("sludge")]), (T("brains"), []), (T("spaghetti"), [])],
    )
    after = clear(state, "a", T("souffle"))
    assert after.round == 1 and after.current == "b" and len(after.tables) == 2
    assert after.dummy_discard == []


@pytest.mark.parametrize("count", [2, 3, 4])
def test_four_rounds_then_the_game_ends(count: int) -> None:
    state = GAME.setup([f"p{i}" for i in range(count)], options(), 3)
    rounds_seen = {state.round}
    while GAME.outcome(state) is None:
        (pid,) = GAME.active_players(state)
        legal = GAME.legal_actions(state, pid)
        clears = [a for a in legal if isinstance(a, Clear)]
        state = play(state, pid, clears[0] if clears else legal[0])
        rounds_seen.add(state.round)
    assert rounds_seen == {1, 2, 3, 4}
    assert state.over and state.table_deck == [] and GAME.clock(state) is None
    assert GAME.active_players(state) == set()
    assert sum(len(c.tables) for c in state.collections.values()) == 4 * count
    titles = [a.title for a in state.announcements]
    assert titles.count("🏆 Monster Café — final scores") == 1
    assert [t for t in titles if t.startswith("🧹")] == [
        f"🧹 Round {r}/4 is over" for r in range(1, 5)
    ]
    with pytest.raises(IllegalAction, match="over"):
        apply(GAME, state, "p0", Draw())


def test_ties_share_the_win() -> None:
    state = build(
        ("a", "b"),
        removed=("toenail", "lint"),
        collections={
            "a": ([M("eyeball")], [T("spaghetti"), T("brains"), T("roadkill")]),
            "b": ([M("brain")], [T("brains", 1), T("sockstew"), T("souffle")]),
        },
        tables=[(T("dustbunnies"), [M("dustbunny")]), (T("roadkill", 1), [])],
        taken=[("a", T("sockstew", 1), [])],
        dummy_discard=[T("spaghetti", 1), T("souffle", 1), T("dustbunnies", 1)],
        deck_rest=False,
        current="b",
        round_no=4,
    )
    end = clear(state, "b", T("roadkill", 1))
    outcome = GAME.outcome(end)
    assert outcome is not None
    assert outcome.scores == {"a": 1, "b": 1} and outcome.winners == ["a", "b"]
    assert "win with 1 pt" in end.announcements[-1].description


# -- timeouts ------------------------------------------------------------------------------------


def test_options_default_choices_and_bounds() -> None:
    assert MonsterCafeOptions().turn_timeout == 86400
    schema = MonsterCafeOptions.model_json_schema()["properties"]["turn_timeout"]
    assert schema["choices"]["1 min"] == 60 and schema["choices"]["7 days"] == 604800
    assert schema["choices"] == TIMEOUT_CHOICES, "the lobby offers one list of timers everywhere"
    for bad in (59, 604801):
        with pytest.raises(ValidationError):
            MonsterCafeOptions(turn_timeout=bad)
    with pytest.raises(IllegalAction, match="turn_timeout"):
        GAME.parse_options({"turn_timeout": 5})
    state = GAME.setup(["a", "b"], options(turn_timeout=300), 1)
    clock = GAME.clock(state)
    assert clock is not None and clock.seconds == 300


def test_clock_key_changes_every_turn_including_the_last_diners_run() -> None:
    state = build(
        tables=[(T("souffle"), [M("sludge")])],
        current="d",
        taken=[("a", T("spaghetti"), []), ("b", T("brains"), []), ("c", T("roadkill"), [])],
    )
    keys = []
    for _ in range(3):
        clock = GAME.clock(state)
        assert clock is not None
        keys.append(clock.key)
        drawn = play(state, "d", Draw())
        assert GAME.clock(drawn) == clock, "drawing and seating are one turn"
        if drawn.drawn is None:
            state = drawn
            continue
        state = play(drawn, "d", GAME.legal_actions(drawn, "d")[0])
    assert len(set(keys)) == 3


def test_timeout_draws_and_seats_where_it_fits_best() -> None:
    state = build(
        tables=[
            (T("spaghetti"), []),
            (T("brains"), [M("brain")]),
            (T("sockstew"), []),
            (T("bblt"), []),
        ],
        deck_top=[M("sock", 1)],
        collections={"a": ([M("sock")], [])},
    )
    after, moves = play_timeout(GAME, state, "a")
    assert [m.type for m in moves] == ["draw", "seat"] and all(m.auto for m in moves)
    sock_table = after.table(T("sockstew"))
    assert sock_table is not None and sock_table.seats == [M("sock", 1)]
    assert after.current == "b"
    auto = [a for a in after.announcements if a.title == "⏰ Time's up"]
    assert len(auto) == 1 and "Stinky Sock Eater" in auto[0].description
    assert "{p:a} ran out of time" in auto[0].description


def test_timeout_clears_the_fullest_table_when_no_seat_is_free() -> None:
    tables = [
        (T("spaghetti"), [M("eyeball", i) for i in range(4)]),
        (T("brains"), [M("brain", i) for i in range(4)]),
    ]
    state = build(
        tables=tables,
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
        collections={"a": ([M("brain", 4)], [])},
    )
    move = GAME.on_timeout(state, "a")
    assert move == Clear(table=T("brains"), auto=True), "ties go to the best fit"
    state2 = build(
        tables=[(T("spaghetti"), [M("eyeball")]), (T("brains"), [M("brain"), M("brain", 1)])],
        taken=[("c", T("roadkill"), []), ("d", T("sockstew"), [])],
        deck_rest=False,
    )
    assert GAME.on_timeout(state2, "a") == Clear(table=T("brains"), auto=True)
    after, _ = play_timeout(GAME, state2, "a")
    assert after.cleared()[-1] == "a" and after.announcements[-2].title == "⏰ Time's up"


def test_timeout_sorbet_discards_the_type_that_hurts_least() -> None:
    mine = [M("brain", 0), M("brain", 1), M("eyeball"), M("sludge")]
    state = build(
        tables=FOUR_EMPTY,
        collections={"a": (mine, [T("brains", 0), T("brains", 1), T("souffle", 1)])},
        drawn=M(SORBET),
        round_no=4,
    )
    # eyeball is unfed (-1): losing it raises the score; brains (+4) and sludge (+1) hurt.
    assert GAME.on_timeout(state, "a") == Sorbet(kind="eyeball", auto=True)
    after, _ = play_timeout(GAME, state, "a")
    assert M("eyeball") in after.discard and after.current == "b"


def test_auto_flag_does_not_change_legality() -> None:
    state = build(tables=FOUR_EMPTY)
    assert GAME.is_legal(state, "a", Draw(auto=True))
    assert not GAME.is_legal(state, "a", Clear(table=T("bblt"), auto=True))
    manual = play(state, "a", Draw())
    assert manual.announcements == state.announcements


# -- panels --------------------------------------------------------------------------------------


def test_table_panel_shows_seats_collections_and_scores() -> None:
    state = build(
        tables=[(T("spaghetti"), [M("eyeball"), M("anything")]), (T("brains"), [])],
        collections={"b": ([M("sock"), M("sock", 1)], [T("sockstew")])},
        taken=[("c", T("roadkill"), [M("roadkill")]), ("d", T("bblt"), [])],
        round_no=2,
    )
    assert seats_text(state.tables[0]) == "👁️ Eyeball, 🃏 Anything ▫️▫️"
    panel = GAME.panel(state, None)
    assert panel_problems(panel) == []
    assert GAME.panel(state, "b") == private_panel(), "everything is public: no private panel"
    fields = {f.name: f.value for f in panel.fields}
    assert fields["A · 🍝 Spaghetti"] == "👁️ Eyeball, 🃏 Anything ▫️▫️"
    assert fields["B · 🍲 Brains"] == "▫️▫️▫️▫️"
    assert fields["{p:b} · 📈 now: 2"] == "🍽️ 🥘 Sock Stew\n👾 🧦 Sock ×2"
    c_score = score(state.collections["c"].monsters, state.collections["c"].tables).total
    assert "✅ took C · 🍖 Roadkill" in fields[f"{{p:c}} · 📈 now: {c_score}"]
    d_score = score(state.collections["d"].monsters, state.collections["d"].tables).total
    assert "✅ took D · 🥪 B.B.L.T." in fields[f"{{p:d}} · 📈 now: {d_score}"]
    a_score = score(state.collections["a"].monsters, state.collections["a"].tables).total
    assert f"▶️ {{p:a}} · 📈 now: {a_score}" in fields, "whose turn it is, with their score"
    assert "round 2/4" in panel.title and "🎴 Deck: " in panel.description
    assert "▶️ {p:a}'s turn" in panel.description
    labels = [c.label for c in panel.controls if isinstance(c, Button)]
    assert labels[0].startswith("Draw a monster")
    assert labels[1:] == ["Clear A · Spaghetti and Eyeballs ×2"]


def test_many_choices_become_a_select() -> None:
    options = [
        Option(label=f"Discard {i}", action={"type": "sorbet", "kind": str(i)}) for i in range(11)
    ]
    (select,) = choice_controls(options, "Pick", max_buttons=10)
    assert isinstance(select, Select) and len(select.options) == 11
    buttons = choice_controls(options[:9], "Pick", max_buttons=10)
    assert [(b.label, b.action) for b in buttons if isinstance(b, Button)] == [
        (o.label, o.action) for o in options[:9]
    ]


def test_view_hides_only_the_deck_order() -> None:
    state = GAME.setup(["a", "b", "c"], options(), 5)
    view = GAME.view(state, None).model_dump_json()
    assert state.deck[0] not in view and state.table_deck[0] not in view
    assert all(t.card in view for t in state.tables)
    assert GAME.view(state, "a") == GAME.view(state, None)


# -- random play ---------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(2, 4),
    strategy=st.sampled_from(["random", "greedy", "timeout"]),
)
def test_random_play_keeps_every_card_in_one_place(seed: int, count: int, strategy: str) -> None:
    rng = Rng(seed=seed)
    state = GAME.setup([f"p{i}" for i in range(count)], options(), seed)
    pick = GAME.strategies().get(strategy)
    steps = 0
    while GAME.outcome(state) is None:
        steps += 1
        assert steps < 1000
        (pid,) = GAME.active_players(state)
        panel = GAME.panel(state, None)
        assert panel_problems(panel) == []
        offered = [GAME.parse_action(c.action) for c in panel.controls if isinstance(c, Button)]
        offered += [
            GAME.parse_action(o.action)
            for c in panel.controls
            if isinstance(c, Select)
            for o in c.options
        ]
        assert offered == list(GAME.legal_actions(state, pid))
        if strategy == "random" or pick is None:
            action = rng.choice(list(GAME.legal_actions(state, pid)))
        else:
            action = pick(state, pid, rng)  # type: ignore[assignment]
        before = state
        state = play(state, pid, action)
        # One ping when a turn starts for someone new (or a new round), none otherwise.
        if state.over:
            assert pings(before, state) == []
        elif (state.current, state.round) != (before.current, before.round):
            assert pings(before, state) == [[state.current]]
        else:
            assert pings(before, state) == []
        assert GAME.load_state(state.model_dump_json()) == state
    assert panel_problems(GAME.panel(state, None)) == []
    assert all(panel_problems(a) == [] for a in state.announcements)
    outcome = GAME.outcome(state)
    assert outcome is not None and set(outcome.scores) == set(state.players)
    for pid in state.players:
        assert (
            outcome.scores[pid]
            == score(state.collections[pid].monsters, state.collections[pid].tables).total
        )
