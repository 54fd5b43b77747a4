"""Breakfast vs Aliens, Full Pancake: play cards, every treasure and disaster text, the Syrup
Shield reaction, peeks (and that they never leak), the end of the game (stacked decks by hand)."""

from __future__ import annotations

import json

from games.breakfast_vs_aliens import GAME, effects
from games.breakfast_vs_aliens.scoring import scores
from games.breakfast_vs_aliens.state import (
    Arrange,
    Attach,
    AttachStep,
    Burn,
    BurnStep,
    BvaState,
    Capture,
    Draw,
    DrawnStep,
    Give,
    JamColour,
    JamStep,
    Keep,
    MilkStep,
    Pass,
    PeekStep,
    PutBack,
    Shield,
    ShieldStep,
    Take,
    Use,
)
from games.engine import play_timeout
from games.presentation import Button, Select
from tests.games.test_breakfast_vs_aliens import (
    BAGEL,
    BLURGH_RBY,
    BURNT_R,
    BURNT_Y,
    CAPTAIN,
    COMPASS_P,
    CRINGE_RBP,
    DROOL_BPY,
    ED,
    FIRE_P,
    FLIB_B,
    FRENCH_RB,
    GLOOP_RB,
    HASH,
    JAM_B,
    JAM_R,
    LUMPO_Y,
    MILK_B,
    PLUM,
    REINF_B,
    REINF_R,
    RUSH_B,
    RUSH_R,
    SHIELD_B,
    SHIELD_R,
    SIR_TOAST,
    SPATULA_Y,
    SUNNY_RP,
    TOASTER_Y,
    WAFFLE,
    ZLORG,
    ZORP_R,
    ZOT_Y,
    act,
    build,
    events,
)

FULL = "full-pancake"
FAR_AWAY = [ZLORG, CRINGE_RBP, BLURGH_RBY]  # play cards nobody in these tests can capture


def full(**kwargs: object) -> BvaState:
    kwargs.setdefault("players", ("a", "b"))
    players = kwargs.pop("players")
    return build(players, mode=FULL, **kwargs)  # type: ignore[arg-type]


def public_texts(state: BvaState) -> str:
    return (
        GAME.view(state, None).model_dump_json()
        + GAME.panel(state, None).model_dump_json()
        + json.dumps([a.model_dump(mode="json") for a in state.announcements])
    )


# -- play cards and the turn ----------------------------------------------------------------------


def test_a_disaster_drawn_for_the_play_cards_at_setup_goes_to_the_bottom() -> None:
    state = full(play=[CAPTAIN, WAFFLE, PLUM], deck=[BURNT_R, SIR_TOAST, BURNT_Y, ZORP_R, JAM_R])
    state.discard += state.play
    state.play = []
    effects.refill_like_setup(state)
    assert state.play == [SIR_TOAST, ZORP_R, JAM_R]
    assert state.deck == [BURNT_R, BURNT_Y]
    GAME.check_invariants(state)


def test_a_turn_refills_the_play_cards_then_takes_one_action() -> None:
    state = full(heroes={"a": [CAPTAIN]}, play=[ZORP_R, SIR_TOAST], deck=[WAFFLE, HASH, ED, BAGEL])
    assert state.play == [ZORP_R, SIR_TOAST, WAFFLE] and state.stage == "action"
    assert GAME.legal_actions(state, "a") == [
        Capture(alien=ZORP_R, heroes=[CAPTAIN]),
        Take(card=SIR_TOAST),
        Take(card=WAFFLE),
        Draw(),
    ]
    state = act(state, "a", Take(card=SIR_TOAST))
    assert state.heroes["a"] == [CAPTAIN, SIR_TOAST]
    # b's turn: the refill takes Hash Brown Hustler.
    assert state.current == "b" and state.play == [ZORP_R, WAFFLE, HASH]
    state = act(state, "b", Draw())
    assert state.heroes["b"] == [ED] and state.current == "a"
    state = act(state, "a", Capture(alien=ZORP_R, heroes=[CAPTAIN]))
    assert state.jails["a"] == [ZORP_R] and state.current == "b"


def test_a_disaster_drawn_while_refilling_happens_and_ends_the_turn() -> None:
    state = full(play=[ZLORG, CRINGE_RBP], deck=[REINF_R, HASH, ED])
    assert state.beside == [REINF_R], "no Syrup Shield anywhere: it happens at once"
    assert state.current == "b" and state.play == [ZLORG, CRINGE_RBP, HASH]
    assert "Alien Reinforcements" in events(state)


def test_a_drawn_alien_is_captured_or_put_at_the_bottom() -> None:
    state = full(heroes={"a": [CAPTAIN]}, play=FAR_AWAY, deck=[ZORP_R, HASH, ED])
    state = act(state, "a", Draw())
    assert state.pending == DrawnStep(player="a")
    assert GAME.legal_actions(state, "a") == [Capture(alien=ZORP_R, heroes=[CAPTAIN]), PutBack()]
    state = act(state, "a", PutBack())
    assert state.deck == [HASH, ED, ZORP_R] and state.current == "b"
    # One you can't capture goes under at once.
    state = full(heroes={"a": [CAPTAIN]}, play=FAR_AWAY, deck=[FLIB_B, HASH])
    state = act(state, "a", Draw())
    assert state.pending is None and state.deck == [HASH, FLIB_B] and state.current == "b"


# -- treasures ------------------------------------------------------------------------------------


def test_jam_jar_colour_then_hero_then_it_counts() -> None:
    state = full(
        heroes={"a": [CAPTAIN, WAFFLE], "b": [PLUM]},
        play=[JAM_R, LUMPO_Y, ZLORG],
        deck=[ED, SIR_TOAST, BAGEL],
    )
    state = act(state, "a", Take(card=JAM_R))
    assert state.pending == JamStep(player="a", treasure=JAM_R)
    assert [m.colour for m in GAME.legal_actions(state, "a")] == ["R", "B", "P", "Y"]  # type: ignore[union-attr]
    assert GAME.on_timeout(state, "a") == JamColour(colour="P"), "the colour a has least of"
    state = act(state, "a", JamColour(colour="Y"))
    assert state.pending == AttachStep(player="a", treasure=JAM_R)
    state = act(state, "a", Attach(hero=WAFFLE))
    assert state.jam == {JAM_R: "Y"} and state.attached == {WAFFLE: [JAM_R]}
    assert "Waffle Wizard 🟦🟨 (💎 Jam Jar 🟨)" in GAME.panel(state, None).fields[0].value
    state = act(state, "b", Draw())
    # Lazy Lumpo 🟨: Waffle Wizard can now capture it (the colour bar 🟥 is ignored).
    assert GAME.legal_actions(state, "a")[0] == Capture(alien=LUMPO_Y, heroes=[WAFFLE])
    state = act(state, "a", Capture(alien=LUMPO_Y, heroes=[WAFFLE]))
    assert state.jails["a"] == [LUMPO_Y] and state.jam == {}


def test_a_jam_jar_with_no_hero_keeps_its_colour_until_the_next_hero() -> None:
    state = full(play=[JAM_B, SIR_TOAST, ZLORG], deck=[HASH, ED, CAPTAIN])
    state = act(state, "a", Take(card=JAM_B))
    state = act(state, "a", JamColour(colour="P"))
    assert state.waiting["a"] == [JAM_B] and state.jam == {JAM_B: "P"}
    state = act(state, "b", Draw())
    state = act(state, "a", Take(card=SIR_TOAST))
    assert state.attached == {SIR_TOAST: [JAM_B]}
    assert "Sir Toast 🟥🟪" in GAME.panel(state, None).fields[0].value


def test_golden_spatula_ignores_one_trait_and_is_discarded() -> None:
    state = full(
        heroes={"a": [SIR_TOAST, PLUM]},
        attached={PLUM: [SPATULA_Y]},
        play=[GLOOP_RB, ZORP_R, ZLORG],
        deck=[HASH, ED],
    )
    legal = GAME.legal_actions(state, "a")
    # Glitch Gloop 🟥🟦 (3 pts) first: only with the spatula ignoring its blue.
    assert legal[0] == Capture(alien=GLOOP_RB, heroes=[SIR_TOAST], ignore="B")
    assert Capture(alien=ZORP_R, heroes=[SIR_TOAST]) in legal
    button = GAME.panel(state, None).controls[0]
    assert isinstance(button, Button) and button.label == "Glitch Gloop: Toast"
    state = act(state, "a", Capture(alien=GLOOP_RB, heroes=[SIR_TOAST], ignore="B"))
    assert state.jails["a"] == [GLOOP_RB] and scores(state)["a"] == 3
    assert SPATULA_Y in state.discard and state.heroes["a"] == [PLUM]
    assert PLUM not in state.attached, "Polite Plum Muffin stays, without the spatula"
    assert "Golden Spatula ignored one blue trait" in events(state)


def test_a_spatula_alone_captures_a_one_trait_alien() -> None:
    state = full(waiting={"a": [SPATULA_Y]}, play=[ZOT_Y, ZLORG, CRINGE_RBP], deck=[HASH, ED])
    move = Capture(alien=ZOT_Y, heroes=[], ignore="Y")
    assert move in GAME.legal_actions(state, "a")
    state = act(state, "a", move)
    assert state.jails["a"] == [ZOT_Y] and state.waiting["a"] == []


def test_syrup_shield_cancels_a_disaster_as_it_is_revealed() -> None:
    state = full(
        heroes={"a": [CAPTAIN, WAFFLE], "b": [PLUM]},
        attached={PLUM: [SHIELD_R]},
        play=FAR_AWAY,
        deck=[BURNT_R, HASH, ED],
    )
    state = act(state, "a", Draw())
    assert state.pending == ShieldStep(waiting=["b"], refill=False)
    assert GAME.active_players(state) == {"b"} and state.disaster == BURNT_R
    assert state.announcements[-1].ping == ["b"]
    clock = GAME.clock(state)
    assert clock is not None and clock.seconds == 45 and not clock.remind
    labels = [c.label for c in GAME.panel(state, None).controls if isinstance(c, Button)]
    assert labels == ["Use Syrup Shield", "Let it happen"]
    state = act(state, "b", Shield(use=True))
    assert state.heroes["a"] == [CAPTAIN, WAFFLE], "Burnt Toast did nothing"
    assert {BURNT_R, SHIELD_R} <= set(state.discard) and PLUM not in state.attached
    assert state.current == "b", "the draw was a's action: the turn is over"
    assert "cancelled 🌪️ Burnt Toast" in events(state)


def test_the_shield_window_times_out_to_let_it_happen() -> None:
    state = full(
        heroes={"a": [CAPTAIN, SUNNY_RP], "b": [PLUM]},
        attached={PLUM: [SHIELD_R]},
        waiting={"a": []},
        play=FAR_AWAY,
        deck=[BURNT_R, HASH, ED],
    )
    state = act(state, "a", Draw())
    key = GAME.clock(state)
    state, played = play_timeout(GAME, state, "b")
    assert played == [Shield(use=False)]
    assert state.pending == BurnStep(player="a") and GAME.clock(state) != key
    assert SHIELD_R in state.attached[PLUM], "the shield was not spent"
    assert GAME.on_timeout(state, "a") == Burn(hero=CAPTAIN), "the weakest hero"
    state = act(state, "a", Burn(hero=SUNNY_RP))
    assert state.heroes["a"] == [CAPTAIN] and SUNNY_RP in state.discard


def test_no_reaction_window_when_nobody_holds_a_shield() -> None:
    state = full(heroes={"a": [CAPTAIN, WAFFLE]}, play=FAR_AWAY, deck=[BURNT_R, HASH, ED])
    state = act(state, "a", Draw())
    assert state.pending == BurnStep(player="a")
    assert state.announcements[-1].ping == ["a"]


def test_every_holder_may_answer_and_a_cancelled_refill_disaster_lets_the_turn_go_on() -> None:
    state = full(
        players=("a", "b", "c"),
        heroes={"a": [CAPTAIN], "b": [PLUM], "c": [WAFFLE]},
        attached={PLUM: [SHIELD_R], WAFFLE: [SHIELD_B]},
        play=[ZLORG, CRINGE_RBP],
        deck=[FIRE_P, HASH, ED],
    )
    # Kitchen Fire revealed while refilling a's play cards: b and c hold shields.
    assert state.pending == ShieldStep(waiting=["b", "c"], refill=True)
    state = act(state, "b", Shield(use=False))
    assert GAME.active_players(state) == {"c"}
    state = act(state, "c", Shield(use=True))
    assert state.current == "a" and state.stage == "action", "a's turn goes on"
    assert state.play == [ZLORG, CRINGE_RBP, HASH], "the refill went on"
    assert state.announcements[-1].kind == "turn" and state.announcements[-1].ping == ["a"]
    assert SHIELD_R in state.attached[PLUM] and SHIELD_B in state.discard


def test_magic_toaster_peek_is_private_and_keeps_a_hero() -> None:
    state = full(
        heroes={"a": [CAPTAIN], "b": [PLUM]},
        attached={CAPTAIN: [TOASTER_Y]},
        play=FAR_AWAY,
        deck=[ZORP_R, SIR_TOAST, HASH, ED],
    )
    assert Use(card=TOASTER_Y) in GAME.legal_actions(state, "a")
    state = act(state, "a", Use(card=TOASTER_Y))
    assert state.pending == PeekStep(player="a", tool="magic_toaster")
    assert state.peek == [ZORP_R, SIR_TOAST]
    assert GAME.private_decision(state, "a") and not GAME.private_decision(state, "b")
    assert GAME.secrets(state, "a") == {ZORP_R, SIR_TOAST}
    assert GAME.secrets(state, "b") == set() and GAME.secrets(state, None) == {HASH, ED}
    # Only a's private panel shows them (names and ids), with a Keep control for the hero.
    others = public_texts(state) + GAME.panel(state, "b").model_dump_json()
    others += GAME.view(state, "b").model_dump_json()
    for secret in (ZORP_R, SIR_TOAST, "Shivery Zorp", "Sir Toast"):
        assert secret not in others
    mine = GAME.panel(state, "a")
    assert "Shivery Zorp" in mine.description and "Sir Toast" in mine.description
    assert [c.label for c in mine.controls if isinstance(c, Button)] == ["Keep Sir Toast"]
    assert GAME.panel(state, None).controls == [], "the table waits"
    assert GAME.on_timeout(state, "a") == Keep(card=SIR_TOAST)
    state = act(state, "a", Keep(card=SIR_TOAST))
    assert state.heroes["a"] == [CAPTAIN, SIR_TOAST] and state.deck == [HASH, ED, ZORP_R]
    assert state.attached[CAPTAIN] == [TOASTER_Y], "the toaster is kept: reusable"
    assert "kept Sir Toast" in events(state) and "Shivery Zorp" not in public_texts(state)
    assert state.current == "b" and GAME.secrets(state, "a") == set()


def test_magic_toaster_with_nothing_to_keep_or_one_card_left() -> None:
    state = full(
        heroes={"a": [CAPTAIN]},
        attached={CAPTAIN: [TOASTER_Y]},
        play=FAR_AWAY,
        deck=[ZORP_R, BURNT_R, HASH],
    )
    state = act(state, "a", Use(card=TOASTER_Y))
    assert GAME.legal_actions(state, "a") == [Keep(card=None)]
    state = act(state, "a", Keep(card=None))
    assert state.deck == [HASH, ZORP_R, BURNT_R], "under, in order; the disaster never happens"
    assert state.heroes["a"] == [CAPTAIN]
    # One card left: the toaster shows it; keeping it draws the last card and ends the game.
    state = full(
        heroes={"a": [CAPTAIN]},
        attached={CAPTAIN: [TOASTER_Y]},
        play=FAR_AWAY,
        deck=[SIR_TOAST],
    )
    state = act(state, "a", Use(card=TOASTER_Y))
    assert state.peek == [SIR_TOAST]
    state = act(state, "a", Keep(card=SIR_TOAST))
    assert state.over and state.heroes["a"] == [CAPTAIN, SIR_TOAST]


def test_cereal_compass_puts_the_top_three_back_in_any_order() -> None:
    state = full(
        heroes={"a": [CAPTAIN]},
        attached={CAPTAIN: [COMPASS_P]},
        play=FAR_AWAY,
        deck=[ZORP_R, SIR_TOAST, HASH, ED],
    )
    state = act(state, "a", Use(card=COMPASS_P))
    assert state.peek == [ZORP_R, SIR_TOAST, HASH] and state.deck == [ED]
    assert len(GAME.legal_actions(state, "a")) == 6
    (select,) = GAME.panel(state, "a").controls
    assert isinstance(select, Select) and len(select.options) == 6
    assert GAME.on_timeout(state, "a") == Arrange(order=[ZORP_R, SIR_TOAST, HASH])
    assert not GAME.is_legal(state, "a", Arrange(order=[ZORP_R, ZORP_R, HASH]))
    state = act(state, "a", Arrange(order=[HASH, ZORP_R, SIR_TOAST]))
    assert state.deck == [HASH, ZORP_R, SIR_TOAST, ED]
    assert "put the 3 card(s) back" in events(state) and "Shivery" not in public_texts(state)


def test_breakfast_rush_drawn_gives_another_turn_but_not_from_the_play_cards() -> None:
    state = full(
        heroes={"a": [CAPTAIN]}, play=[RUSH_B, ZLORG, CRINGE_RBP], deck=[RUSH_R, HASH, ED, BAGEL]
    )
    state = act(state, "a", Draw())
    assert state.attached == {CAPTAIN: [RUSH_R]}, "kept (on the only hero)"
    assert state.current == "a" and state.turn == 2, "another turn"
    assert state.announcements[-1].title == "⚡ Breakfast Rush: another turn"
    state = act(state, "a", Take(card=RUSH_B))
    assert state.current == "b", "a Breakfast Rush taken from the play cards is a treasure"


def test_breakfast_rush_drawn_while_refilling() -> None:
    state = full(
        heroes={"a": [CAPTAIN, WAFFLE]}, play=[ZLORG, CRINGE_RBP], deck=[RUSH_R, HASH, ED, BAGEL]
    )
    assert state.pending == AttachStep(player="a", treasure=RUSH_R)
    state = act(state, "a", Attach(hero=WAFFLE))
    assert state.play == [ZLORG, CRINGE_RBP, HASH] and state.stage == "action"
    state = act(state, "a", Draw())
    assert state.current == "a" and state.extra_turns == 0


# -- disasters ------------------------------------------------------------------------------------


def test_burnt_toast_with_no_hero_or_one_hero() -> None:
    state = full(play=FAR_AWAY, deck=[BURNT_R, HASH, ED])
    state = act(state, "a", Draw())
    assert state.pending is None and "no hero to lose" in events(state)
    state = full(
        heroes={"a": [CAPTAIN]},
        attached={CAPTAIN: [JAM_R]},
        jam={JAM_R: "B"},
        play=FAR_AWAY,
        deck=[BURNT_R, HASH, ED],
    )
    state = act(state, "a", Draw())
    assert state.heroes["a"] == [] and {CAPTAIN, JAM_R} <= set(state.discard)
    assert state.jam == {}


def test_spilled_milk_with_five_players() -> None:
    state = full(
        players=("a", "b", "c", "d", "e"),
        heroes={
            "a": [CAPTAIN, WAFFLE],
            "b": [PLUM],
            "d": [BAGEL, HASH, ED],
            "e": [FRENCH_RB, SUNNY_RP],
        },
        attached={WAFFLE: [JAM_B]},
        jam={JAM_B: "B"},
        waiting={"c": [TOASTER_Y]},
        play=FAR_AWAY,
        deck=[MILK_B, SIR_TOAST, ZOT_Y],
    )
    state = act(state, "a", Draw())
    assert state.pending == MilkStep(chosen={"b": PLUM}, waiting=["a", "d", "e"])
    assert GAME.active_players(state) == {"a", "d", "e"}, "c has no hero: skipped"
    clock = GAME.clock(state)
    assert clock is not None and clock.key.startswith("m") and clock.seconds == 120
    selects = [c for c in GAME.panel(state, None).controls if isinstance(c, Select)]
    assert [s.placeholder for s in selects] == [
        "{p:a}: pass a hero to your left",
        "{p:d}: pass a hero to your left",
        "{p:e}: pass a hero to your left",
    ]
    assert len(state.announcements[-1].ping) == 3
    state = act(state, "a", Give(hero=WAFFLE))
    # The table shows who chose, not what.
    assert GAME.view(state, None).milk_chosen == ["a", "b"]  # type: ignore[attr-defined]
    assert "milk_choice" not in GAME.view(state, None).model_dump_json()
    assert GAME.view(state, "a").milk_choice == WAFFLE  # type: ignore[attr-defined]
    assert GAME.view(state, "d").milk_choice is None  # type: ignore[attr-defined]
    assert "Waffle Wizard" in GAME.panel(state, "a").description
    state = act(state, "d", Give(hero=ED))
    assert GAME.on_timeout(state, "e") == Give(hero=SUNNY_RP), "the weakest, latest hero"
    state, played = play_timeout(GAME, state, "e")
    assert played == [Give(hero=SUNNY_RP)]
    assert state.heroes == {
        "a": [CAPTAIN, SUNNY_RP],
        "b": [WAFFLE],
        "c": [PLUM],
        "d": [BAGEL, HASH],
        "e": [FRENCH_RB, ED],
    }
    assert state.attached[WAFFLE] == [JAM_B], "a hero travels with its treasures"
    assert state.attached[PLUM] == [TOASTER_Y], "a waiting treasure joins the new hero"
    assert "🥛 {p:a} → {p:b}: Waffle Wizard" in events(state)
    assert state.current == "b"


def test_alien_reinforcements_add_two_points_to_the_next_capture_and_stack() -> None:
    state = full(
        heroes={"a": [HASH], "b": [CAPTAIN]},
        beside=[REINF_R],
        play=[ZORP_R, ZLORG, CRINGE_RBP],
        deck=[REINF_B, ED, BAGEL],
    )
    state = act(state, "a", Draw())
    assert state.beside == [REINF_R, REINF_B]
    assert "+4 pts" in GAME.panel(state, None).description
    state = act(state, "b", Capture(alien=ZORP_R, heroes=[CAPTAIN]))
    assert state.jails["b"] == [ZORP_R, REINF_R, REINF_B]
    assert scores(state)["b"] == 5 and state.beside == []
    assert "Alien Reinforcements: +4 pts" in events(state)


def test_kitchen_fire_burns_and_refills_the_play_cards() -> None:
    state = full(
        heroes={"a": [CAPTAIN]},
        play=[ZORP_R, SIR_TOAST, JAM_R],
        deck=[FIRE_P, BURNT_R, HASH, ED, DROOL_BPY, BAGEL],
    )
    state = act(state, "a", Draw())
    assert {ZORP_R, SIR_TOAST, JAM_R, FIRE_P} <= set(state.discard)
    assert state.play == [HASH, ED, DROOL_BPY] and state.deck == [BAGEL, BURNT_R]
    assert state.current == "b"


# -- the end --------------------------------------------------------------------------------------


def test_the_game_ends_after_the_turn_that_draws_the_last_card() -> None:
    state = full(heroes={"a": [CAPTAIN]}, play=FAR_AWAY, deck=[ZORP_R])
    state = act(state, "a", Draw())
    assert state.pending == DrawnStep(player="a") and not state.over
    state = act(state, "a", PutBack())
    assert state.over and state.deck == [ZORP_R], "an alien put back under doesn't matter"
    assert "last card" in state.end_reason


def test_the_last_card_drawn_while_refilling_leaves_one_action() -> None:
    state = full(heroes={"a": [CAPTAIN]}, play=[ZLORG, CRINGE_RBP], deck=[HASH])
    assert state.stage == "action" and not state.deck
    assert GAME.legal_actions(state, "a") == [Take(card=HASH), Pass()]
    assert GAME.on_timeout(state, "a") == Pass()
    state = act(state, "a", Pass())
    assert state.over


def test_a_stalemate_ends_the_game() -> None:
    state = full(play=FAR_AWAY, deck=[DROOL_BPY, GLOOP_RB], jails={"b": [ZORP_R]})
    for turn in range(4):
        assert not state.over, turn
        state = act(state, state.current, Draw())
    assert state.over and "Stalemate" in state.end_reason
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == ["b"]


def test_an_absent_player_draws_and_puts_a_drawn_alien_back() -> None:
    state = full(heroes={"a": [CAPTAIN]}, play=FAR_AWAY, deck=[ZORP_R, HASH, ED])
    state, played = play_timeout(GAME, state, "a")
    assert played == [Draw(), PutBack()] and state.current == "b"


def test_a_breakfast_rush_kept_with_the_toaster_gives_another_turn() -> None:
    state = full(
        heroes={"a": [CAPTAIN]},
        attached={CAPTAIN: [TOASTER_Y]},
        play=FAR_AWAY,
        deck=[ZORP_R, RUSH_R, HASH, ED],
    )
    state = act(state, "a", Use(card=TOASTER_Y))
    state = act(state, "a", Keep(card=RUSH_R))
    assert state.attached[CAPTAIN] == [TOASTER_Y, RUSH_R]
    assert state.current == "a" and state.deck == [HASH, ED, ZORP_R]
