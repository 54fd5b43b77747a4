"""What Café Carnage tells the searching bot (``games/search.py``): compare whole orders.

A round's decision is one order — a starter, a main, a dessert and a ballot — made in four moves
and confirmed. Searched move by move, the first pick would be judged with the rest of the order
left to the rollout player (who runs with the priciest meal), so a plain meal and a ballot that
go together were never tried together. The search compares whole orders instead: every
combination of the dishes still to pick and of the ballot kinds in hand, one per meal total and
ballot kind (dishes of one value cost and score alike; under no repeats the names count). The bot
plays the best order whole: its picks and ballot, which nobody else sees, and its Confirm, as one
run (``bot.core.robots``), so a round costs one search and one transaction.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from pydantic import BaseModel

from games.cafe_carnage.catalogue import (
    COURSE_CARDS,
    COURSES,
    Course,
    action_cards,
    action_kind,
    dish,
    run_card,
)
from games.cafe_carnage.choices import offered
from games.cafe_carnage.shrewd import order, shrewd
from games.cafe_carnage.state import CafeState, Confirm, Pick, Play
from games.engine import PlayerId, SearchHints
from games.kit import evolve
from games.rng import Rng


def plans(state: CafeState, player: PlayerId) -> list[Sequence[BaseModel]]:
    """Every distinct order still open to ``player``, as the moves that make and confirm it."""
    if player not in state.menus or player in state.confirmed:
        return []
    picked = state.picks.get(player, {})
    choices: list[list[BaseModel]] = []
    for course in COURSES:
        if course in picked:
            continue
        distinct: dict[object, str] = {}
        for card in offered(state, player, course):
            d = dish(card)
            key = (d.name, d.value) if state.options.no_repeats else d.value
            distinct.setdefault(key, card)
        choices.append([Pick(card=card) for card in distinct.values()])
    if player not in state.played:
        kinds: dict[object, str] = {}
        for card in state.hands[player]:
            kinds.setdefault(action_kind(card), card)
        choices.append([Play(card=card) for card in kinds.values()])
    if not choices:
        return [[Confirm()]]
    found: dict[object, list[BaseModel]] = {}
    for moves in itertools.product(*choices):
        # Only a meal's total counts (its points, its price, who is caught running): one order
        # per total and ballot kind — but under no repeats each dish's name counts too.
        same: object = tuple(m.model_dump_json() for m in moves)
        if not state.options.no_repeats:
            total = sum(dish(m.card).value for m in moves if isinstance(m, Pick))
            same = (total, *(action_kind(m.card) for m in moves if isinstance(m, Play)))
        found.setdefault(same, [*moves, Confirm()])
    return list(found.values())


def determinize(seen: CafeState, player: PlayerId, rng: Rng) -> CafeState | None:
    """The seat's view with its tokens dealt: the dish cards it has not seen shuffled into the
    others' menus and the decks, and each other's hand drawn from their own action cards — with
    their RUN! card exactly when they never escaped (escapes are public). The others' choices
    already made this round are the normal player's with the dealt menu and hand (a random card
    of a dealt menu would make a runner's meal a lottery). None when the view does not fit this
    reading (the generic determinizer then does)."""
    mapping: dict[str, str] = {}
    for course in COURSES:
        shown = set(seen.eaten[course]).union(seen.menus.get(player, {}).get(course, []))
        pool = [card for card in COURSE_CARDS[course] if card not in shown]
        tokens = [t for p in seen.players if p != player for t in _menu(seen, p, course)]
        tokens += seen.decks[course]
        if len(tokens) != len(pool):
            return None
        rng.shuffle(pool)
        mapping.update(zip(tokens, pool, strict=True))
    for p in seen.players:
        if p == player:
            continue
        tokens = seen.hands[p]
        run = run_card(p)
        holds_run = p not in seen.run_discarded
        rest = [card for card in action_cards(p) if card != run]
        rng.shuffle(rest)
        hand = rest[: len(tokens) - holds_run] + ([run] if holds_run else [])
        if len(hand) != len(tokens):
            return None
        order = action_cards(p)  # a hand keeps the cards' own order
        hand.sort(key=order.index)
        mapping.update(zip(tokens, hand, strict=True))
    get = mapping.get
    world = evolve(
        seen,
        menus={
            p: {course: [get(c, c) for c in cards] for course, cards in menu.items()}
            for p, menu in seen.menus.items()
        },
        picks={p: {course: get(c, c) for course, c in ps.items()} for p, ps in seen.picks.items()},
        played={p: get(c, c) for p, c in seen.played.items()},
        hands={p: [get(c, c) for c in cards] for p, cards in seen.hands.items()},
        decks={course: [get(c, c) for c in cards] for course, cards in seen.decks.items()},
    )
    return _as_normal_would(world, player)


def _as_normal_would(world: CafeState, player: PlayerId) -> CafeState:
    """The others' choices already made this round (hidden: the dealt cards say nothing of
    them), redone as the normal player would make them with the dealt menu and hand."""
    picks = dict(world.picks)
    played = dict(world.played)
    for p in world.players:
        if p == player or p not in world.menus:
            continue
        if not picks.get(p) and p not in played:
            continue
        want, kind = order(world, p)
        picks[p] = {course: want[course] for course in picks.get(p, {})}
        if p in played:
            played[p] = next(c for c in world.hands[p] if action_kind(c) == kind)
    return evolve(world, picks=picks, played=played)


def _menu(state: CafeState, player: PlayerId, course: Course) -> list[str]:
    return state.menus.get(player, {}).get(course, [])


# The searcher's own later rounds are played by the normal player too (the shrewd diner runs
# early and splits on dear meals); the cheapskate that played them before spent its RUN! only in
# the last round, so a RUN! kept for later looked worth little.
HINTS = SearchHints(plans=plans, own=shrewd)
