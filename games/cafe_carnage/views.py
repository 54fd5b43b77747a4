"""What each viewer may see (views), and the secrets the tests check never leak.

Public data names dishes, never dish card ids: eaten cards can be shuffled back and dealt to
someone else's (secret) menu later. Ballots appear only as an anonymous tally.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from games.cafe_carnage.catalogue import (
    ACTION_KINDS,
    ACTION_NAME,
    COURSES,
    DISHES,
    ROUNDS,
    ActionKind,
    Course,
    action_kind,
    dish,
)
from games.cafe_carnage.choices import missing, on_offer, repeats
from games.cafe_carnage.state import (
    CafeAction,
    CafeState,
    Confirm,
    Pick,
    Play,
    RoundRecord,
    Standing,
)
from games.engine import PlayerId


class PlayerPublic(BaseModel):
    player: PlayerId
    gp: int
    budget: int
    iou: bool
    iou_draws: int
    run_discarded: bool
    status: str  # "waiting" | "confirmed" | "done" (who is choosing what is nobody's business)
    eaten: list[str]


class PublicView(BaseModel):
    round: int
    rounds: int
    over: bool
    no_repeats: bool
    turn_timeout: int
    players: list[PlayerPublic]
    deck_sizes: dict[Course, int]
    eaten_pile_sizes: dict[Course, int]
    ballot_discard: int  # how many Split/Separate cards were discarded, owners unknown
    history: list[RoundRecord]
    gp_history: dict[PlayerId, list[int]]  # GP after each round
    standings: list[Standing]


class MenuItem(BaseModel):
    card: str
    course: Course
    name: str
    value: int
    gp: int
    already_eaten: bool
    offered: bool  # may be picked (no_repeats leaves out eaten dishes unless all were eaten)


class PrivateView(BaseModel):
    table: PublicView
    player: PlayerId
    menu: dict[Course, list[MenuItem]]
    picks: dict[Course, str]
    hand: list[str]
    hand_counts: dict[ActionKind, int]
    played: str | None
    confirmed: bool
    missing: list[str]


def status(state: CafeState, p: PlayerId) -> str:
    if state.over:
        return "done"
    return "confirmed" if p in state.confirmed else "waiting"


def public_view(state: CafeState) -> PublicView:
    return PublicView(
        round=state.round,
        rounds=ROUNDS,
        over=state.over,
        no_repeats=state.options.no_repeats,
        turn_timeout=state.options.turn_timeout,
        players=[
            PlayerPublic(
                player=p,
                gp=state.gp[p],
                budget=state.budget[p],
                iou=state.iou_draws[p] > 0,
                iou_draws=state.iou_draws[p],
                run_discarded=p in state.run_discarded,
                status=status(state, p),
                eaten=[name for r in state.history for name in r.players[p].dishes],
            )
            for p in state.players
        ],
        deck_sizes={c: len(state.decks[c]) for c in COURSES},
        eaten_pile_sizes={c: len(state.eaten[c]) for c in COURSES},
        ballot_discard=sum(state.ballot_discard.values()),
        history=list(state.history),
        gp_history={p: [r.players[p].gp_after for r in state.history] for p in state.players},
        standings=list(state.standings),
    )


def menu_items(state: CafeState, p: PlayerId, course: Course, eaten: set[str]) -> list[MenuItem]:
    """One course of ``p``'s menu, given the dishes that would be repeats (``repeats()``)."""
    menu = state.menus[p][course]
    on_menu = on_offer(menu, eaten)
    items = []
    for card in menu:
        d = dish(card)
        items.append(
            MenuItem(
                card=card,
                course=course,
                name=d.name,
                value=d.value,
                gp=0 if d.name in eaten else d.value,
                already_eaten=d.name in eaten,
                offered=card in on_menu,
            )
        )
    return items


def hand_counts(state: CafeState, p: PlayerId) -> dict[ActionKind, int]:
    return kind_counts(state.hands[p])


def kind_counts(cards: Sequence[str]) -> dict[ActionKind, int]:
    """How many action cards of each kind ``cards`` holds (every kind listed)."""
    kinds = [action_kind(card) for card in cards]
    return {kind: kinds.count(kind) for kind in ACTION_KINDS}


def private_view(state: CafeState, p: PlayerId) -> PrivateView:
    eaten = repeats(state, p)
    return PrivateView(
        table=public_view(state),
        player=p,
        menu={c: menu_items(state, p, c, eaten) if p in state.menus else [] for c in COURSES},
        picks=dict(state.picks[p]),
        hand=list(state.hands[p]),
        hand_counts=hand_counts(state, p),
        played=state.played.get(p),
        confirmed=p in state.confirmed,
        missing=[] if state.over else missing(state, p),
    )


def secrets(state: CafeState, player: PlayerId | None) -> set[str]:
    """A player's menu, hand and ballot card; for nobody: the face-down decks' cards (dish card
    ids never appear in public: eaten dishes are named, not numbered)."""
    if player is None:
        return {card for deck in state.decks.values() for card in deck}
    found: set[str] = set(state.hands.get(player, []))
    for cards in state.menus.get(player, {}).values():
        found.update(cards)
    if player in state.played:
        found.add(state.played[player])
    return found


def secret_words(secret: str) -> set[str]:
    """A dish card's name, an action card's name."""
    kind = action_kind(secret)
    if kind is not None:
        return {ACTION_NAME[kind]}
    return {dish(secret).name} if secret in DISHES else set()


def private_move(action: CafeAction) -> str:
    """A choice in a player's order, as the table may hear of it."""
    if isinstance(action, Pick):
        return "a dish of their order"
    if isinstance(action, Play):
        return "their ballot"
    if isinstance(action, Confirm):
        return "their confirmed order"
    return "their order"
