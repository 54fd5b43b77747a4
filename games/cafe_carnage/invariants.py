"""Conservation and consistency checks, run by the tests after every move."""

from __future__ import annotations

from games.cafe_carnage.catalogue import (
    CARDS_PER_COURSE,
    COURSE_CARDS,
    COURSES,
    HAND_SIZE,
    MONEY_TOTAL,
    action_cards,
    run_card,
)
from games.cafe_carnage.choices import missing, offered
from games.cafe_carnage.state import CafeState


def check_invariants(state: CafeState) -> None:
    players = state.players
    # Dish cards: each in exactly one place, of the right course.
    for course in COURSES:
        places = list(state.decks[course]) + list(state.eaten[course])
        for p in state.menus:
            places.extend(state.menus[p][course])
        assert sorted(places) == sorted(COURSE_CARDS[course]), f"{course} cards not conserved"
        assert len(places) == CARDS_PER_COURSE
    if state.over:
        assert not state.menus and not state.played and not state.confirmed
    else:
        assert set(state.menus) == set(players)
        for p in players:
            for course, card in state.picks[p].items():
                assert card in state.menus[p][course], f"{p} picked {card} off their menu"
                assert card in offered(state, p, course), f"{p} picked {card}, not on offer"
            if p in state.played:
                assert state.played[p] in state.hands[p], f"{p} played a card not in hand"
            if p in state.confirmed:
                assert not missing(state, p), f"{p} confirmed an incomplete order"
    # Action cards: in a hand, in the anonymous discard, or a discarded RUN!.
    in_hands = 0
    for p in players:
        hand = state.hands[p]
        assert len(set(hand)) == len(hand) and set(hand) <= set(action_cards(p))
        assert (run_card(p) in hand) == (p not in state.run_discarded)
        in_hands += len(hand)
    assert state.ballot_discard.get("run", 0) == 0
    total = in_hands + sum(state.ballot_discard.values()) + len(state.run_discarded)
    assert total == HAND_SIZE * len(players), "action cards not conserved"
    assert len(state.run_discarded) == len(set(state.run_discarded))
    # Money: players' $ + the supply is the box's total; nobody is in debt.
    assert sum(state.budget.values()) + state.supply == MONEY_TOTAL, "money not conserved"
    assert state.supply >= 0 and all(v >= 0 for v in state.budget.values())
    # Confirmed and auto-played players are seated, each once.
    assert len(set(state.confirmed)) == len(state.confirmed)
    assert set(state.auto_played) <= set(state.confirmed)
    assert len(state.history) == (state.round if state.over else state.round - 1)
