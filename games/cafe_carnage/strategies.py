"""Named players for the simulator ("random" is supplied by the simulator itself)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from games.cafe_carnage.catalogue import COURSES, action_kind, dish
from games.cafe_carnage.choices import default_card, default_dish, offered
from games.cafe_carnage.state import CafeState, Confirm, Pick, Play
from games.engine import PlayerId
from games.rng import Rng


def cheapskate(state: Any, player: PlayerId, rng: Rng) -> BaseModel:
    """The cheapest dish of each course, Each Pay Separately if held (else Split, else RUN!)."""
    assert isinstance(state, CafeState)
    for course in COURSES:
        want = default_dish(state, player, course)
        have = state.picks[player].get(course)
        if have is None or dish(have).value > dish(want).value:
            return Pick(card=want)
    want_card = default_card(state, player)
    played = state.played.get(player)
    if played is None or action_kind(played) != action_kind(want_card):
        return Play(card=want_card)
    return Confirm()


def glutton(state: Any, player: PlayerId, rng: Rng) -> BaseModel:
    """The priciest dishes on offer; runs while it can, otherwise votes to split the bill."""
    assert isinstance(state, CafeState)
    for course in COURSES:
        menu = offered(state, player, course)
        want = max(menu, key=lambda c: (dish(c).value, -menu.index(c)))
        have = state.picks[player].get(course)
        if have is None or dish(have).value < dish(want).value:
            return Pick(card=want)
    hand = state.hands[player]
    preference = ("run", "split", "separate")
    want_card = min(hand, key=lambda c: preference.index(action_kind(c) or "separate"))
    played = state.played.get(player)
    if played is None or action_kind(played) != action_kind(want_card):
        return Play(card=want_card)
    return Confirm()


# The bot players' normal level plays "greedy": the glutton, the stronger of the two (in
# `python -m bot arena --game cafe-carnage --players 3 --seats normal,easy,easy --mode …`, 60
# games: the glutton won 48 % of its games against two random players, the cheapskate 13 %).
STRATEGIES = {"cheapskate": cheapskate, "glutton": glutton, "greedy": glutton}
