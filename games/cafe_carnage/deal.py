"""Setting the table: the first state, and each round's menus.

Dealing: for each course, the deck's top cards go to the players in seat order, three each, so a
test can stack a deck by putting each player's menu at its front in seat order.
"""

from __future__ import annotations

from games.cafe_carnage.catalogue import (
    ACTION_KINDS,
    COURSE_CARDS,
    COURSES,
    MENU_SIZE,
    MONEY_TOTAL,
    START_BUDGET,
    Course,
    action_cards,
)
from games.cafe_carnage.state import CafeOptions, CafeState
from games.engine import PlayerId
from games.rng import Rng


def new_state(players: list[PlayerId], options: CafeOptions, seed: int) -> CafeState:
    rng = Rng(seed=seed)
    decks: dict[Course, list[str]] = {}
    for course in COURSES:
        deck = list(COURSE_CARDS[course])
        rng.shuffle(deck)
        decks[course] = deck
    state = CafeState(
        players=list(players),
        rng=rng,
        options=options,
        decks=decks,
        eaten={course: [] for course in COURSES},
        menus={},
        picks={p: {} for p in players},
        hands={p: action_cards(p) for p in players},
        played={},
        ballot_discard={kind: 0 for kind in ACTION_KINDS if kind != "run"},
        budget={p: START_BUDGET for p in players},
        supply=MONEY_TOTAL - START_BUDGET * len(players),
        gp={p: 0 for p in players},
        iou_draws={p: 0 for p in players},
        # The rest too: with every field set, ``evolve`` can share the set of fields set.
        announcements=[],
        round=1,
        over=False,
        confirmed=[],
        auto_played=[],
        run_discarded=[],
        history=[],
        standings=[],
    )
    deal_round(state)
    return state


def deal_round(state: CafeState) -> None:
    """Deal every player 3 cards of each course from the top of the decks, in place: only for a
    state nobody else holds (a new one, or the end of a round's private copy).

    A deck that cannot deal 3 to every player first gets that course's eaten cards from earlier
    rounds shuffled back in.
    """
    need = MENU_SIZE * len(state.players)
    menus: dict[PlayerId, dict[Course, list[str]]] = {p: {} for p in state.players}
    for course in COURSES:
        deck = state.decks[course]
        if len(deck) < need:
            deck.extend(state.eaten[course])
            state.eaten[course] = []
            state.rng.shuffle(deck)
        for p in state.players:
            menus[p][course] = deck[:MENU_SIZE]
            del deck[:MENU_SIZE]
    state.menus = menus
    state.picks = {p: {} for p in state.players}
    state.played = {}
    state.confirmed = []
    state.auto_played = []
