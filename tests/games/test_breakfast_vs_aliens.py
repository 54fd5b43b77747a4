"""Breakfast vs Aliens: the deck, capturing, Mini-Muffin scenarios (stacked decks by hand)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from games.breakfast_vs_aliens import GAME
from games.breakfast_vs_aliens import rules as bva_rules
from games.breakfast_vs_aliens.capture import (
    can_capture,
    capture_options,
    minimal_sets,
    vector,
)
from games.breakfast_vs_aliens.catalogue import ALL_CARDS, CARDS, COLOURS, card
from games.breakfast_vs_aliens.help import HELP_TEXT
from games.breakfast_vs_aliens.scoring import scores, snapshot
from games.breakfast_vs_aliens.state import (
    Action,
    Attach,
    BvaOptions,
    BvaState,
    Capture,
    Draw,
    EscapeStep,
    OfferStep,
    Pass,
)
from games.engine import IllegalAction, Undo, apply, new_game, play_timeout
from games.presentation import Button, Select, panel_problems, table_problems
from games.rng import Rng
from tests.playing import apply_checked

# Heroes (traits), aliens (traits, points), treasures (colour bar), disasters (colour bar).
CAPTAIN, SIR_TOAST, BACON = "H01", "H02", "H03"  # R
WAFFLE, PORRIDGE, ORACLE = "H04", "H05", "H06"  # B
PLUM, EARL, CROISSANT = "H07", "H08", "H09"  # P
BAGEL, HASH, ED = "H10", "H11", "H12"  # Y
FRENCH_RB, CINNAMON_RB, SUNNY_RP, HONEY_RP = "H13", "H14", "H15", "H16"
SAUSAGE_RY, MUESLI_RY, GRANOLA_BP, BARON_BP = "H17", "H18", "H19", "H20"
YOGI_BY, MARMALADE_BY, SCONE_PY, DONUT_PY = "H21", "H22", "H23", "H24"
ZORP_R, QUARK_R, FLIB_B, SNIB_B, RORG_P, BLORP_P, LUMPO_Y, ZOT_Y = [f"A0{i}" for i in range(1, 9)]
GLOOP_RB, SNERK_RP, YONK_RY, TRAX_BP, LURK_BY, GRUB_PY = [f"A{i:02d}" for i in range(9, 15)]
CRINGE_RBP, BLURGH_RBY, DROOL_BPY, ZLORG = "A15", "A16", "A17", "A18"
JAM_R, JAM_B, SPATULA_Y, SPATULA_P, SHIELD_R, SHIELD_B = [f"T0{i}" for i in range(1, 7)]
TOASTER_Y, COMPASS_P, RUSH_R, RUSH_B = "T07", "T08", "T09", "T10"
BURNT_R, BURNT_Y, MILK_B, MILK_P, REINF_R, REINF_B, FIRE_P, FIRE_Y = [f"D0{i}" for i in range(1, 9)]

DAY = 86400


# -- helpers (also used by test_breakfast_vs_aliens_full.py) ----------------------------------------


def build(
    players: Sequence[str] = ("a", "b", "c"),
    *,
    mode: str = "mini-muffin",
    heroes: dict[str, list[str]] | None = None,
    deck: Sequence[str] = (),
    play: Sequence[str] = (),
    attached: dict[str, list[str]] | None = None,
    waiting: dict[str, list[str]] | None = None,
    jails: dict[str, list[str]] | None = None,
    beside: Sequence[str] = (),
    escaped: Sequence[str] = (),
    jam: dict[str, str] | None = None,
    current: str | None = None,
    rest_to_deck: bool = False,
    turn_timeout: int = DAY,
) -> BvaState:
    """A hand-built table at the start of ``current``'s turn. Cards not placed go to the discard
    pile (or under ``deck`` with ``rest_to_deck``)."""
    hands = {p: list((heroes or {}).get(p, [])) for p in players}
    treasures = dict(attached or {})
    waits = {p: list((waiting or {}).get(p, [])) for p in players}
    jailed = {p: list((jails or {}).get(p, [])) for p in players}
    placed = [*deck, *play, *beside, *escaped]
    for p in players:
        placed += hands[p] + waits[p] + jailed[p]
    placed += [t for ts in treasures.values() for t in ts]
    assert len(placed) == len(set(placed)), "a card placed twice"
    rest = [c for c in ALL_CARDS if c not in placed]
    state = BvaState(
        players=list(players),
        rng=Rng(seed=1),
        options=BvaOptions(mode=mode, turn_timeout=turn_timeout),
        deck=[*deck, *(rest if rest_to_deck else [])],
        play=list(play),
        heroes=hands,
        attached=treasures,
        waiting=waits,
        jails=jailed,
        jam=dict(jam or {}),
        beside=list(beside),
        escaped=list(escaped),
        discard=[] if rest_to_deck else rest,
        current=current or players[0],
        stage="draw",
    )
    snapshot(state)
    bva_rules.begin_turn(state, state.current)
    bva_rules.advance(state)
    GAME.check_invariants(state)
    return state


def act(state: BvaState, pid: str, action: Action) -> BvaState:
    """Apply through the central check; the input is untouched and invariants hold after."""
    new: BvaState = apply_checked(GAME, state, pid, action)
    GAME.check_invariants(new)
    return new


def events(state: BvaState, since: int = 0) -> str:
    return "\n".join(
        f"{a.title} {a.description}" for a in state.announcements[since:] if a.kind == "event"
    )


# -- the deck -------------------------------------------------------------------------------------


def test_the_sixty_cards_are_the_rules_files_deck() -> None:
    assert len(ALL_CARDS) == 60 and len(set(ALL_CARDS)) == 60
    kinds = Counter(c.kind for c in CARDS.values())
    assert kinds == {"hero": 24, "alien": 18, "treasure": 10, "disaster": 8}
    heroes = [c for c in CARDS.values() if c.kind == "hero"]
    singles = Counter(c.traits for c in heroes if len(c.traits) == 1)
    assert singles == {(c,): 3 for c in COLOURS}
    pairs = Counter(frozenset(c.traits) for c in heroes if len(c.traits) == 2)
    assert len(pairs) == 6 and set(pairs.values()) == {2}
    assert all(len(set(c.traits)) == len(c.traits) for c in heroes)
    assert len({c.name for c in heroes}) == 24, "playful and distinct names"
    aliens = [c for c in CARDS.values() if c.kind == "alien"]
    by_points = Counter((len(c.traits), c.points) for c in aliens)
    assert by_points == {(1, 1): 8, (2, 3): 6, (3, 5): 3, (4, 8): 1}
    assert Counter(c.traits for c in aliens if len(c.traits) == 1) == {(c,): 2 for c in COLOURS}
    assert all(len(set(c.traits)) == len(c.traits) for c in aliens), "different traits"
    treasures = [c for c in CARDS.values() if c.kind == "treasure"]
    assert Counter(c.name for c in treasures) == {
        "Jam Jar": 2,
        "Golden Spatula": 2,
        "Syrup Shield": 2,
        "Magic Toaster": 1,
        "Cereal Compass": 1,
        "Breakfast Rush": 2,
    }
    assert all(2 <= n <= 3 for n in Counter(c.bar for c in treasures).values())
    assert set(Counter(c.bar for c in treasures)) == set(COLOURS)
    disasters = [c for c in CARDS.values() if c.kind == "disaster"]
    assert Counter(c.bar for c in disasters) == {c: 2 for c in COLOURS}
    assert set(Counter(c.name for c in disasters).values()) == {2}
    assert len({c.effect for c in disasters}) == 4


def test_the_test_names_match_the_catalogue() -> None:
    assert card(SIR_TOAST).name == "Sir Toast" and card(SIR_TOAST).traits == ("R",)
    assert card(FRENCH_RB).traits == ("R", "B") and card(YOGI_BY).traits == ("B", "Y")
    assert card(GLOOP_RB).traits == ("R", "B") and card(ZLORG).points == 8
    assert card(JAM_R).name == "Jam Jar" and card(JAM_R).bar == "R"
    assert card(TOASTER_Y).effect == "magic_toaster" and card(COMPASS_P).effect == "cereal_compass"
    assert card(BURNT_Y).name == "Burnt Toast" and card(BURNT_Y).bar == "Y"
    assert card(MILK_P).effect == "spilled_milk" and card(FIRE_Y).effect == "kitchen_fire"
    assert card(REINF_B).effect == "alien_reinforcements" and card(RUSH_B).name == "Breakfast Rush"


def test_options_defaults_and_choices() -> None:
    options = BvaOptions()
    assert options.mode == "mini-muffin" and options.turn_timeout == DAY
    assert BvaOptions(mode="full-pancake").mode == "full-pancake"
    with pytest.raises(ValidationError):
        BvaOptions(mode="waffle")
    schema = BvaOptions.model_json_schema()["properties"]
    assert schema["turn_timeout"]["choices"]["24 h"] == DAY
    assert GAME.timer_option == "turn_timeout"


def test_help_text_fits_and_has_sections() -> None:
    assert len(HELP_TEXT) <= 3500
    headings = [line for line in HELP_TEXT.splitlines() if line.startswith("## ")]
    assert len(headings) >= 5
    for decision in ("Stalemate", "45 s", "2 min", "fewest heroes", "Jam Jar", "skipped"):
        assert decision in HELP_TEXT


@pytest.mark.parametrize("count", [2, 3, 4, 5])
@pytest.mark.parametrize("mode", ["mini-muffin", "full-pancake"])
def test_setup_deals_three_heroes_and_the_play_cards(count: int, mode: str) -> None:
    ids = [f"p{i}" for i in range(count)]
    state = new_game(GAME, ids, BvaOptions(mode=mode), seed=count)
    GAME.check_invariants(state)
    assert all(len(state.heroes[p]) == 3 for p in ids)
    assert all(card(h).kind == "hero" for p in ids for h in state.heroes[p])
    assert len(state.play) == (3 if mode == "full-pancake" else 0)
    assert all(card(c).kind != "disaster" for c in state.play)
    assert len(state.deck) == 60 - 3 * count - len(state.play)
    assert GAME.active_players(state) == {state.current}
    turn = [a for a in state.announcements if a.kind == "turn"]
    assert len(turn) == 1 and turn[0].ping == [state.current]
    with pytest.raises(IllegalAction, match="2–5 players; 6 are seated"):
        new_game(GAME, [*ids, "x", "y", "z", "w"][:6], BvaOptions(), seed=1)


def test_the_first_player_is_random() -> None:
    firsts = {GAME.setup(["a", "b", "c"], BvaOptions(), seed).current for seed in range(30)}
    assert firsts == {"a", "b", "c"}


# -- capturing ------------------------------------------------------------------------------------


def test_capture_proposal_fewest_heroes_then_fewest_wasted_traits() -> None:
    state = build(
        ("a", "b"),
        heroes={"a": [SIR_TOAST, WAFFLE, SUNNY_RP, GRANOLA_BP]},
        deck=[CRINGE_RBP],
    )
    sets = minimal_sets(state, "a", vector(["R", "B", "P"]))
    # Pairs first; among them the ones wasting nothing, earlier heroes first; the pair wasting a
    # trait (Sunny Side Squire + Granola Guru have 🟥🟪🟦🟪) last.
    assert sets == [
        (SIR_TOAST, GRANOLA_BP),
        (WAFFLE, SUNNY_RP),
        (SUNNY_RP, GRANOLA_BP),
    ]
    # A hero that is not needed never appears: (SIR_TOAST, WAFFLE, ...) needs a purple.
    assert all(len(s) == 2 for s in sets)


def test_proposal_prefers_no_waste_and_another_set_can_be_chosen() -> None:
    # French Toast Knight carries a red Jam Jar: 🟥🟥🟦 wastes a trait on Glitch Gloop 🟥🟦.
    state = build(
        ("a", "b"),
        heroes={"a": [FRENCH_RB, CAPTAIN, WAFFLE, CINNAMON_RB], "b": [BAGEL]},
        attached={FRENCH_RB: [JAM_R]},
        deck=[GLOOP_RB, ZOT_Y],
    )
    state = act(state, "a", Draw())
    assert state.pending == OfferStep(player="a", queue=["b"])
    options = capture_options(state, "a", GLOOP_RB, spatula=False)
    assert [o.heroes for o in options] == [[CINNAMON_RB], [FRENCH_RB], [CAPTAIN, WAFFLE]]
    panel = GAME.panel(state, None)
    buttons = [c for c in panel.controls if isinstance(c, Button)]
    # A phone shows each set whole: the heroes by their last names, the 🚔 says "capture".
    assert buttons[0].label == "Glitch Gloop: Sage" and buttons[0].emoji == "🚔"
    assert buttons[0].action == Capture(alien=GLOOP_RB, heroes=[CINNAMON_RB]).model_dump()
    assert any(b.label == "Pass" for b in buttons)
    # The other sets fit as buttons too (one tap each), no select.
    assert not [c for c in panel.controls if isinstance(c, Select)]
    assert [b.label for b in buttons[1:3]] == [
        "Glitch Gloop: Knight",
        "Glitch Gloop: Pancake + Wizard",
    ]
    # Choose another set: Captain Pancake + Waffle Wizard go, the others stay.
    state = act(state, "a", Capture(alien=GLOOP_RB, heroes=[CAPTAIN, WAFFLE]))
    assert state.heroes["a"] == [FRENCH_RB, CINNAMON_RB]
    assert state.jails["a"] == [GLOOP_RB] and scores(state)["a"] == 3
    assert {CAPTAIN, WAFFLE} <= set(state.discard)


def test_any_covering_set_is_legal_but_not_a_set_that_misses_a_trait() -> None:
    state = build(
        ("a", "b"),
        heroes={"a": [FRENCH_RB, CAPTAIN, WAFFLE], "b": []},
        deck=[GLOOP_RB, ZOT_Y],
    )
    state = act(state, "a", Draw())
    # A superset wastes heroes but covers the alien: allowed (not proposed).
    wasteful = Capture(alien=GLOOP_RB, heroes=[FRENCH_RB, CAPTAIN])
    assert wasteful not in GAME.legal_actions(state, "a")
    assert GAME.is_legal(state, "a", wasteful)
    for bad in (
        Capture(alien=GLOOP_RB, heroes=[CAPTAIN]),
        Capture(alien=GLOOP_RB, heroes=[CAPTAIN, CAPTAIN, WAFFLE]),
        Capture(alien=GLOOP_RB, heroes=[BAGEL, FRENCH_RB]),
        Capture(alien=ZOT_Y, heroes=[FRENCH_RB]),
        Capture(alien=GLOOP_RB, heroes=[FRENCH_RB], ignore="R"),
    ):
        assert not GAME.is_legal(state, "a", bad), bad
    with pytest.raises(IllegalAction, match="don't cover"):
        apply(GAME, state, "a", Capture(alien=GLOOP_RB, heroes=[CAPTAIN]))


# -- Mini-Muffin ----------------------------------------------------------------------------------


def test_a_two_red_alien_needs_two_red_traits() -> None:
    # A red disaster stacks 🟥 on Shivery Zorp 🟥: it needs two red traits.
    state = build(
        ("a", "b"),
        heroes={"a": [SIR_TOAST, WAFFLE], "b": [HONEY_RP, CAPTAIN]},
        deck=[BURNT_R, ZORP_R, ZOT_Y],
    )
    state = act(state, "a", Draw())
    assert state.beside == [BURNT_R] and state.current == "b"
    state = act(state, "b", Draw())
    assert state.alien == ZORP_R and state.alien_disasters == [BURNT_R]
    # a has one red trait only and is skipped; b (who drew it) has two.
    assert state.pending == OfferStep(player="b", queue=["a"])
    assert not can_capture(state, "a", ZORP_R, spatula=False)
    assert not GAME.is_legal(state, "b", Capture(alien=ZORP_R, heroes=[HONEY_RP]))
    assert GAME.legal_actions(state, "b")[0] == Capture(alien=ZORP_R, heroes=[HONEY_RP, CAPTAIN])
    state = act(state, "b", Capture(alien=ZORP_R, heroes=[HONEY_RP, CAPTAIN]))
    assert state.jails["b"] == [ZORP_R, BURNT_R]
    assert scores(state) == {"a": 0, "b": 2}, "1 for the alien, 1 for its disaster"
    assert state.progress[-1] == {"a": 0, "b": 2}
    assert "captured Shivery Zorp 🟥🟥" in events(state)


def test_a_treasure_adds_the_colour_that_completes_a_capture() -> None:
    state = build(
        ("a", "b"),
        heroes={"a": [WAFFLE, PLUM], "b": [BAGEL]},
        deck=[JAM_R, GLOOP_RB, ZOT_Y],
    )
    state = act(state, "a", Draw())  # a red-bar Jam Jar: a chooses the hero
    assert GAME.active_players(state) == {"a"}
    assert GAME.legal_actions(state, "a") == [Attach(hero=WAFFLE), Attach(hero=PLUM)]
    state = act(state, "a", Attach(hero=WAFFLE))
    assert state.attached == {WAFFLE: [JAM_R]} and state.current == "b"
    state = act(state, "b", Draw())  # Glitch Gloop 🟥🟦: b can't, a can with Waffle Wizard 🟦+🟥
    assert state.pending == OfferStep(player="a", queue=[])
    state = act(state, "a", Capture(alien=GLOOP_RB, heroes=[WAFFLE]))
    assert state.jails["a"] == [GLOOP_RB]
    assert JAM_R in state.discard and WAFFLE in state.discard, "discarded with its treasure"
    assert WAFFLE not in state.attached


def test_a_treasure_with_no_hero_waits_for_the_next_hero() -> None:
    state = build(("a", "b"), heroes={"b": [BAGEL]}, deck=[JAM_B, HASH])
    state = act(state, "a", Draw())
    assert state.waiting["a"] == [JAM_B] and state.pending is None
    state = act(state, "b", Draw())  # b draws Hash Brown Hustler
    assert state.heroes["b"] == [BAGEL, HASH] and not state.waiting["b"]
    state = build(
        ("a", "b"), heroes={"b": [BAGEL]}, waiting={"a": [JAM_B]}, deck=[SIR_TOAST, ZOT_Y]
    )
    state = act(state, "a", Draw())
    assert state.heroes["a"] == [SIR_TOAST] and state.attached == {SIR_TOAST: [JAM_B]}
    assert state.waiting["a"] == []


def test_stacked_disasters_add_colours_and_are_captured_for_a_point_each() -> None:
    state = build(
        ("a", "b"),
        heroes={"a": [SAUSAGE_RY, PLUM], "b": [CAPTAIN]},
        deck=[BURNT_Y, MILK_P, ZORP_R, ZOT_Y],
    )
    state = act(state, "a", Draw())
    state = act(state, "b", Draw())
    assert state.beside == [BURNT_Y, MILK_P]
    assert "Stacked for the next alien: 🟪🟨" in GAME.panel(state, None).description
    state = act(state, "a", Draw())  # Shivery Zorp 🟥 + 🟨 + 🟪
    assert state.beside == [] and state.alien_disasters == [BURNT_Y, MILK_P]
    # b's Captain Pancake 🟥 alone no longer does; a's two heroes do.
    assert state.pending == OfferStep(player="a", queue=["b"])
    assert GAME.legal_actions(state, "a") == [
        Capture(alien=ZORP_R, heroes=[SAUSAGE_RY, PLUM]),
        Pass(),
    ]
    state = act(state, "a", Capture(alien=ZORP_R, heroes=[SAUSAGE_RY, PLUM]))
    assert state.jails["a"] == [ZORP_R, BURNT_Y, MILK_P] and scores(state)["a"] == 3


def test_an_alien_goes_round_the_table_and_the_third_player_captures_it() -> None:
    state = build(
        ("a", "b", "c"),
        heroes={"a": [BAGEL], "b": [FRENCH_RB], "c": [CINNAMON_RB]},
        deck=[GLOOP_RB, ZOT_Y, LUMPO_Y],
    )
    state = act(state, "a", Draw())
    assert state.pending == OfferStep(player="b", queue=["c"]), "a can't capture: skipped"
    offer = state.announcements[-1]
    assert offer.kind == "turn" and offer.ping == ["b"] and "Glitch Gloop" in offer.description
    clock = GAME.clock(state)
    assert clock is not None and clock.seconds == 120 and not clock.remind
    first_key = clock.key
    state = act(state, "b", Pass())
    assert state.pending == OfferStep(player="c", queue=[])
    assert state.announcements[-1].ping == ["c"]
    clock = GAME.clock(state)
    assert clock is not None and clock.key != first_key
    state = act(state, "c", Capture(alien=GLOOP_RB, heroes=[CINNAMON_RB]))
    assert state.jails == {"a": [], "b": [], "c": [GLOOP_RB]}
    # Play goes on clockwise from the player who drew it.
    assert state.current == "b" and GAME.active_players(state) == {"b"}
    assert state.announcements[-1].kind == "turn" and state.announcements[-1].ping == ["b"]


def test_an_alien_nobody_captures_escapes_and_its_disasters_are_discarded() -> None:
    state = build(
        ("a", "b"),
        heroes={"a": [BAGEL], "b": [WAFFLE]},
        deck=[FIRE_P, ZORP_R, ZOT_Y],
    )
    state = act(state, "a", Draw())
    state = act(state, "b", Draw())
    assert state.escaped == [ZORP_R] and state.alien is None and state.pending is None
    assert FIRE_P in state.discard and state.current == "a"
    assert "Shivery Zorp 🟥🟪 (1 pt) escaped" in events(state)
    # An offered alien may be passed even by the drawer; then it goes on (here: escapes).
    state = build(("a", "b"), heroes={"a": [CAPTAIN], "b": [WAFFLE]}, deck=[ZORP_R, ZOT_Y])
    state = act(state, "a", Draw())
    state = act(state, "a", Pass())
    assert state.escaped == [ZORP_R]


def test_the_escape_pile_endgame() -> None:
    state = build(
        ("a", "b", "c"),
        heroes={"a": [BAGEL], "b": [FRENCH_RB, CAPTAIN], "c": [WAFFLE, PLUM]},
        escaped=[GLOOP_RB, ZORP_R, FLIB_B, ZLORG],
        deck=[LUMPO_Y],
    )
    state = act(state, "a", Draw())  # the last card; a captures it
    state = act(state, "a", Capture(alien=LUMPO_Y, heroes=[BAGEL]))
    # Escape pile: clockwise from b, one alien each, the most valuable proposed first.
    assert state.stage == "escape" and state.pending == EscapeStep(player="b")
    assert state.announcements[-1].ping == ["b"]
    assert GAME.legal_actions(state, "b")[0] == Capture(alien=GLOOP_RB, heroes=[FRENCH_RB])
    state = act(state, "b", Capture(alien=GLOOP_RB, heroes=[FRENCH_RB]))
    assert state.pending == EscapeStep(player="c")
    state = act(state, "c", Pass())
    # a has no hero left: skipped; b again.
    assert state.pending == EscapeStep(player="b")
    state = act(state, "b", Capture(alien=ZORP_R, heroes=[CAPTAIN]))
    # a and b can't; c can (Fibbing Flib) and does.
    assert state.pending == EscapeStep(player="c")
    state = act(state, "c", Capture(alien=FLIB_B, heroes=[WAFFLE]))
    # Nobody can capture Emperor Zlorg: the game ends.
    assert state.over and GAME.active_players(state) == set()
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == {"a": 1, "b": 4, "c": 1} and outcome.winners == ["b"]
    assert state.escaped == [ZLORG]
    assert [sum(p.values()) for p in outcome.progress] == [0, 1, 4, 5, 6]
    assert "Game over" in state.announcements[-1].title


def test_the_escape_round_ends_after_a_full_round_without_a_capture_and_ties_share() -> None:
    state = build(
        ("a", "b"),
        heroes={"a": [CAPTAIN], "b": [SIR_TOAST]},
        escaped=[ZORP_R, QUARK_R],
        deck=[ZOT_Y],
    )
    state = act(state, "a", Draw())  # Snoozy Zot: nobody can; it escapes too
    assert state.pending == EscapeStep(player="b")
    state = act(state, "b", Pass())
    state = act(state, "a", Pass())
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.scores == {"a": 0, "b": 0}
    assert outcome.winners == ["a", "b"], "ties share the win"
    assert any("shared" in line for line in outcome.summary)


def test_no_escaped_alien_means_the_game_ends_with_the_deck() -> None:
    state = build(("a", "b"), heroes={"a": [CAPTAIN]}, deck=[ZORP_R])
    state = act(state, "a", Draw())
    state = act(state, "a", Capture(alien=ZORP_R, heroes=[CAPTAIN]))
    assert state.over and GAME.outcome(state) is not None


# -- timeouts, clocks, undo -----------------------------------------------------------------------


def test_an_absent_player_draws_and_declines_the_capture() -> None:
    state = build(
        ("a", "b"),
        heroes={"a": [CAPTAIN, WAFFLE], "b": [SIR_TOAST]},
        deck=[ZORP_R, JAM_R, ZOT_Y],
    )
    clock = GAME.clock(state)
    assert clock is not None and clock.seconds == DAY and clock.remind
    state, played = play_timeout(GAME, state, "a")
    # Drew Shivery Zorp, passed on it (same turn clock); then b's quick offer takes over.
    assert played == [Draw(), Pass()]
    assert state.pending == OfferStep(player="b", queue=[])
    state, played = play_timeout(GAME, state, "b")
    assert played == [Pass()] and state.escaped == [ZORP_R] and state.current == "b"
    state = build(("a", "b"), heroes={"a": [CAPTAIN, WAFFLE]}, deck=[JAM_R, ZOT_Y])
    state, played = play_timeout(GAME, state, "a")
    assert played == [Draw(), Attach(hero=CAPTAIN)], "a treasure goes to the first hero"


def test_a_quick_step_never_outlasts_a_short_turn_timer() -> None:
    state = build(
        ("a", "b"),
        heroes={"b": [CAPTAIN]},
        deck=[ZORP_R, ZOT_Y],
        turn_timeout=60,
    )
    state = act(state, "a", Draw())
    clock = GAME.clock(state)
    assert clock is not None and clock.seconds == 60


def test_undo_is_by_consent_for_an_attachment_and_never_for_a_draw() -> None:
    state = build(("a", "b"), heroes={"a": [CAPTAIN, WAFFLE]}, deck=[JAM_R, ZOT_Y])
    drawn = act(state, "a", Draw())
    assert GAME.undo_policy(state, drawn, "a", Draw()) == Undo.NEVER
    attached = act(drawn, "a", Attach(hero=WAFFLE))
    assert GAME.undo_policy(drawn, attached, "a", Attach(hero=WAFFLE)) == Undo.CONSENT


def test_mini_muffin_ignores_card_texts() -> None:
    # A Golden Spatula is only a yellow bar here: Sir Toast 🟥🟨 can't ignore Glitch Gloop's 🟦.
    state = build(
        ("a", "b"),
        heroes={"a": [SIR_TOAST], "b": [CAPTAIN]},
        attached={SIR_TOAST: [SPATULA_Y]},
        deck=[GLOOP_RB, BURNT_R, ZOT_Y],
    )
    state = act(state, "a", Draw())
    assert state.escaped == [GLOOP_RB] and state.pending is None, "no capture offer"
    state = act(state, "b", Draw())
    assert state.beside == [BURNT_R] and state.heroes["b"] == [CAPTAIN], "nothing burns"


def test_refusals_are_precise() -> None:
    state = build(("a", "b"), heroes={"a": [CAPTAIN]}, deck=[ZOT_Y, ZORP_R])
    with pytest.raises(IllegalAction, match="waiting for"):
        apply(GAME, state, "b", Draw())
    with pytest.raises(IllegalAction, match="no alien to capture"):
        apply(GAME, state, "a", Capture(alien=ZOT_Y, heroes=[CAPTAIN]))
    with pytest.raises(IllegalAction, match="hero"):
        apply(GAME, state, "a", Attach(hero=CAPTAIN))


# -- the table ------------------------------------------------------------------------------------


def test_a_crowded_five_player_table_fits_discord() -> None:
    heroes = [h for h in ALL_CARDS if h.startswith("H")]
    players = ["9100000001", "9200000002", "9300000003", "9400000004", "9500000005"]
    treasures = [t for t in ALL_CARDS if t.startswith("T")]
    state = build(
        players,
        heroes={p: heroes[i * 4 : i * 4 + 4] for i, p in enumerate(players)},
        attached={h: [t] for h, t in zip(heroes[:10], treasures, strict=True)},
        escaped=[a for a in ALL_CARDS if a.startswith("A")][:10],
        jails={players[0]: [a for a in ALL_CARDS if a.startswith("A")][10:]},
        beside=[BURNT_R, BURNT_Y, MILK_B],
        deck=[MILK_P, DONUT_PY],
    )
    table = GAME.table(state)
    assert table_problems(table) == [], table_problems(table)
    panel = table[0]
    assert panel_problems(panel) == []
    assert len(panel.fields) == 6 and "🛸 Escape pile" in [f.name for f in panel.fields]
    assert "🟥 R red" in panel.footer, "a colour legend with letters"
    assert "Sir Toast 🟥" in panel.fields[0].value
    text = panel.model_dump_json()
    assert MILK_P not in text and DONUT_PY not in text, "deck cards are never shown"
