"""Alien Café requests and offers: "need 🟢👽" / "have 🍔 to give", shown on the table until met,
withdrawn, Done or the round's end."""

from __future__ import annotations

import pytest

from games.alien_cafe import GAME
from games.alien_cafe.actions import (
    DoneAction,
    GiveAction,
    OfferAction,
    PlaceAction,
    RequestAction,
    WithdrawAction,
)
from games.alien_cafe.catalogue import TILES
from games.alien_cafe.state import AlienCafeState
from games.engine import IllegalAction, apply
from games.presentation import PanelField
from tests.games.test_alien_cafe import P1, P2, P3, alien, order, stack, start


def posts(state: AlienCafeState) -> str:
    """The table's requests-and-offers field ("" when there is none)."""
    fields: list[PanelField] = GAME.panel(state, None).fields
    return next((f.value for f in fields if f.name.startswith("📣")), "")


def test_a_request_shows_on_the_table_and_is_cleared_when_met() -> None:
    state = start([P1, P2, P3])
    green = alien("green", "main")
    stack(state, P2, {}, hand=[green, alien("blue", "main")])
    state = apply(GAME, state, P1, RequestAction(want="green"))
    assert state.seats[P1].request == "green"
    assert posts(state) == "🙋 {p:111} needs 🟢👽 green alien"
    assert GAME.view(state, None).model_dump()["players"][0]["request"] == "green"
    # A tile of another type does not meet it.
    blue = state.seats[P2].hand[1]
    state = apply(GAME, state, P2, GiveAction(tile=blue, to=P1))
    assert state.seats[P1].request == "green" and "needs" in posts(state)
    # Given a green alien: met, so cleared.
    state = apply(GAME, state, P2, GiveAction(tile=state.seats[P2].hand[0], to=P1))
    assert state.seats[P1].request is None and posts(state) == ""
    GAME.check_invariants(state)


def test_an_offer_shows_its_type_only_and_is_cleared_when_given() -> None:
    state = start([P1, P2])
    stack(state, P1, {}, hand=[order("main", "blue"), order("drink", "green")])
    main = state.seats[P1].hand[0]
    state = apply(GAME, state, P1, OfferAction(tile=main))
    assert posts(state) == "🎁 {p:111} has 🍔 main to give"
    public = GAME.panel(state, None).model_dump_json() + GAME.view(state, None).model_dump_json()
    assert main not in public and main not in GAME.panel(state, P2).model_dump_json()
    assert main in GAME.panel(state, P1).model_dump_json()  # its owner's controls name it
    state = apply(GAME, state, P1, GiveAction(tile=main, to=P2))
    assert state.seats[P1].offer is None and posts(state) == ""


def test_an_offer_is_cleared_when_the_tile_is_placed_and_can_be_withdrawn() -> None:
    state = start([P1, P2])
    hand = state.seats[P1].hand
    state = apply(GAME, state, P1, OfferAction(tile=hand[0]))
    state = apply(GAME, state, P1, PlaceAction(tile=hand[0], cell=0))
    assert state.seats[P1].offer is None and posts(state) == ""
    state = apply(GAME, state, P1, OfferAction(tile=hand[1]))
    state = apply(GAME, state, P1, OfferAction(tile=hand[2]))  # replaces the first one
    assert state.seats[P1].offer == hand[2] and posts(state).count("to give") == 1
    state = apply(GAME, state, P1, RequestAction(want="drink"))
    state = apply(GAME, state, P1, WithdrawAction(what="offer"))
    assert state.seats[P1].offer is None and "needs 🥤 drink" in posts(state)
    state = apply(GAME, state, P1, WithdrawAction(what="request"))
    assert posts(state) == ""
    with pytest.raises(IllegalAction, match="no open request"):
        apply(GAME, state, P1, WithdrawAction(what="request"))


def test_posts_are_cleared_at_done_and_at_the_round_end() -> None:
    state = start([P1, P2])
    state = apply(GAME, state, P1, RequestAction(want="purple"))
    state = apply(GAME, state, P2, RequestAction(want="main"))
    state = apply(GAME, state, P2, OfferAction(tile=state.seats[P2].hand[0]))
    assert posts(state).count("\n") == 2
    state = apply(GAME, state, P1, DoneAction())  # nobody can give P1 a tile any more
    assert state.seats[P1].request is None and "{p:111}" not in posts(state)
    assert "{p:222} needs" in posts(state)
    state = apply(GAME, state, P2, DoneAction())
    assert state.phase == "levels"
    assert all(s.request is None and s.offer is None for s in state.seats.values())
    GAME.check_invariants(state)


def test_round_end_clears_posts_of_players_still_working() -> None:
    state = start([P1, P2])
    state = apply(GAME, state, P1, RequestAction(want="blue"))
    state = apply(GAME, state, P2, DoneAction())
    assert state.seats[P1].request == "blue"
    state = apply(GAME, state, P1, DoneAction())
    assert state.round == 2 and state.seats[P1].request is None


def test_refusals_solo_special_and_repeats() -> None:
    solo = start([P1])
    with pytest.raises(IllegalAction, match="playing solo"):
        apply(GAME, solo, P1, RequestAction(want="green"))
    assert not any(a.type in ("request", "offer") for a in GAME.legal_actions(solo, P1))
    state = start([P1, P2], levels={P1: 1})
    special = next(t for t in state.seats[P1].hand if TILES[t].special)
    with pytest.raises(IllegalAction, match="Special tiles can't be given"):
        apply(GAME, state, P1, OfferAction(tile=special))
    with pytest.raises(IllegalAction, match="from your hand"):
        apply(GAME, state, P1, OfferAction(tile=state.seats[P2].hand[0]))
    state = apply(GAME, state, P1, RequestAction(want="dessert"))
    with pytest.raises(IllegalAction, match="already asking"):
        apply(GAME, state, P1, RequestAction(want="dessert"))
    state = apply(GAME, state, P1, RequestAction(want="drink"))  # replaces it
    assert state.seats[P1].request == "drink"
