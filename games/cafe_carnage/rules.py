"""The rules of Café Carnage as pure functions on a (mutable, private) state.

Dealing: for each course, the deck's top cards go to the players in seat order, three each, so a
test can stack a deck by putting each player's menu at its front in seat order.
"""

from __future__ import annotations

from games.cafe_carnage.cards import (
    ACTION_KINDS,
    COURSE_CARDS,
    COURSES,
    IOU_AMOUNT,
    MENU_SIZE,
    MONEY_TOTAL,
    ROUNDS,
    START_BUDGET,
    ActionKind,
    Course,
    action_cards,
    action_kind,
    dish,
)
from games.cafe_carnage.state import (
    CafeOptions,
    CafeState,
    DishRecord,
    PlayerRound,
    RoundRecord,
    Standing,
    Verdict,
)
from games.engine import PlayerId
from games.rng import Rng

# -- setup and dealing ----------------------------------------------------------------------------


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
        eaten_by={p: [] for p in players},
    )
    deal_round(state)
    return state


def deal_round(state: CafeState) -> None:
    """Deal every player 3 cards of each course from the top of the decks.

    A deck that cannot deal 3 to every player first gets that course's eaten cards from earlier
    rounds shuffled back in.
    """
    need = MENU_SIZE * len(state.players)
    state.menus = {p: {} for p in state.players}
    for course in COURSES:
        deck = state.decks[course]
        if len(deck) < need:
            deck.extend(state.eaten[course])
            state.eaten[course] = []
            state.rng.shuffle(deck)
        for p in state.players:
            state.menus[p][course] = deck[:MENU_SIZE]
            del deck[:MENU_SIZE]
    state.picks = {p: {} for p in state.players}
    state.played = {}
    state.confirmed = []
    state.auto_played = []


# -- choices --------------------------------------------------------------------------------------


def already_eaten(state: CafeState, player: PlayerId, card: str) -> bool:
    """Under no_repeats: the player ate this dish in an earlier round (it would give 0 GP)."""
    return state.options.no_repeats and dish(card).name in state.eaten_by[player]


def default_dish(state: CafeState, player: PlayerId, course: Course) -> str:
    """The timeout's dish: the cheapest; among equals one that still gives GP, then menu order."""
    menu = state.menus[player][course]
    return min(menu, key=lambda c: (dish(c).value, already_eaten(state, player, c), menu.index(c)))


def default_card(state: CafeState, player: PlayerId) -> str:
    """The timeout's ballot: Each Pay Separately if held, else Split, else RUN!."""
    hand = state.hands[player]
    for kind in ("separate", "split", "run"):
        for card in hand:
            if action_kind(card) == kind:
                return card
    raise AssertionError(f"{player} has no action card")  # a hand is never empty


def missing(state: CafeState, player: PlayerId) -> list[str]:
    """What the player still has to choose before confirming: courses, then "action card"."""
    gaps: list[str] = [course for course in COURSES if course not in state.picks[player]]
    if player not in state.played:
        gaps.append("action card")
    return gaps


# -- the round ------------------------------------------------------------------------------------


def missing_words(gaps: list[str]) -> str:
    """["main", "action card"] -> "a main and an action card"."""
    words = [("an " if gap[0] in "aeiou" else "a ") + gap for gap in gaps]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def ceil_div(total: int, parts: int) -> int:
    return -(-total // parts)


def caught_runners(meals: dict[PlayerId, int]) -> list[PlayerId]:
    """Which runners security catches, given each runner's meal value (in seat order).

    One runner, or runners whose meals are all equal: nobody. Otherwise the most expensive meal(s):
    1 runner for 2-4 runners, 2 for 5 or more; everyone tied at the boundary is caught too.
    """
    values = sorted(meals.values(), reverse=True)
    if len(values) < 2 or values[0] == values[-1]:
        return []
    guards = 1 if len(values) <= 4 else 2
    boundary = values[guards - 1]
    return [p for p, value in meals.items() if value >= boundary]


def pay(state: CafeState, player: PlayerId, amount: int) -> int:
    """Pay ``amount`` into the supply, taking $5 IOUs (−5 GP each) until the budget covers it.

    Returns the number of IOUs taken.
    """
    draws = 0
    while state.budget[player] < amount:
        state.budget[player] += IOU_AMOUNT
        state.supply -= IOU_AMOUNT
        state.gp[player] -= IOU_AMOUNT
        draws += 1
    state.budget[player] -= amount
    state.supply += amount
    state.iou_draws[player] += draws
    return draws


def resolve_round(state: CafeState) -> RoundRecord:
    """Steps 3-7 once everyone has confirmed: serve, check, settle, IOUs, clear the table."""
    players = state.players
    # 3. Dinner is served.
    dishes: dict[PlayerId, list[DishRecord]] = {}
    for p in players:
        records = []
        for course in COURSES:
            d = dish(state.picks[p][course])
            gp = 0 if already_eaten(state, p, state.picks[p][course]) else d.value
            records.append(DishRecord(course=course, name=d.name, value=d.value, gp=gp))
        dishes[p] = records
    meals = {p: sum(d.value for d in dishes[p]) for p in players}
    gained = {p: sum(d.gp for d in dishes[p]) for p in players}
    for p in players:
        state.gp[p] += gained[p]
        state.eaten_by[p].extend(d.name for d in dishes[p])

    # 4. Check, please!
    kinds: dict[PlayerId, ActionKind] = {}
    for p in players:
        kind = action_kind(state.played[p])
        assert kind is not None
        kinds[p] = kind
    runners = [p for p in players if kinds[p] == "run"]
    caught = caught_runners({p: meals[p] for p in runners})
    escaped = [p for p in runners if p not in caught]
    owed: dict[PlayerId, int] = {}
    runners_total = sum(meals[p] for p in runners)
    caught_share = ceil_div(runners_total, len(caught)) if caught else 0
    for p in caught:
        owed[p] = caught_share

    # 5. Settle up (an anonymous tally of the remaining players' cards).
    remaining = [p for p in players if p not in runners]
    split_votes = sum(1 for p in remaining if kinds[p] == "split")
    separate_votes = len(remaining) - split_votes
    verdict: Verdict
    split_share = 0
    unpaid = 0 if caught else sum(meals[p] for p in escaped)
    if not remaining:
        verdict = "nobody"
    elif split_votes > separate_votes:
        verdict = "split"
        split_share = ceil_div(sum(meals[p] for p in remaining) + unpaid, len(remaining))
        unpaid = 0
        for p in remaining:
            owed[p] = split_share
    else:
        verdict = "separate" if separate_votes > split_votes else "tie"
        for p in remaining:
            owed[p] = meals[p]

    # 6. IOUs, as each player pays.
    draws = {p: pay(state, p, owed[p]) if p in owed else 0 for p in players}

    # 7. Clear the table: ballots to the (anonymous) discard, escaped runners lose RUN!.
    for p in players:
        card = state.played[p]
        if p in caught:
            continue  # the caught runner takes RUN! back (it never left the hand)
        state.hands[p].remove(card)
        if p in escaped:
            state.run_discarded.append(p)
        else:
            state.ballot_discard[kinds[p]] += 1
    for course in COURSES:
        for p in players:
            chosen = state.picks[p][course]
            state.eaten[course].append(chosen)
            state.decks[course].extend(c for c in state.menus[p][course] if c != chosen)
        state.rng.shuffle(state.decks[course])

    record = RoundRecord(
        round=state.round,
        players={
            p: PlayerRound(
                dishes=dishes[p],
                meal=meals[p],
                gp_gained=gained[p],
                role="caught" if p in caught else "escaped" if p in escaped else "stayed",
                owed=owed.get(p, 0),
                iou_draws=draws[p],
                budget_after=state.budget[p],
                gp_after=state.gp[p],
            )
            for p in players
        },
        runners_total=runners_total,
        caught_share=caught_share,
        split_votes=split_votes,
        separate_votes=separate_votes,
        verdict=verdict,
        split_share=split_share,
        unpaid=unpaid,
        auto_played=list(state.auto_played),
    )
    state.history.append(record)
    state.menus = {}
    state.picks = {p: {} for p in players}
    state.played = {}
    state.confirmed = []
    state.auto_played = []
    if state.round >= ROUNDS:
        finish(state)
    else:
        state.round += 1
        deal_round(state)
    return record


def finish(state: CafeState) -> None:
    """End of game: +1 GP per $ left for players without an IOU; rank by GP, then budget."""
    before = dict(state.gp)
    for p in state.players:
        if state.iou_draws[p] == 0:
            state.gp[p] += state.budget[p]
    order = sorted(state.players, key=lambda p: (-state.gp[p], -state.budget[p]))
    standings: list[Standing] = []
    for index, p in enumerate(order):
        prev = standings[-1] if standings else None
        same = prev is not None and (prev.gp, prev.budget) == (state.gp[p], state.budget[p])
        standings.append(
            Standing(
                player=p,
                rank=prev.rank if same and prev is not None else index + 1,
                gp_before_bonus=before[p],
                bonus=state.gp[p] - before[p],
                gp=state.gp[p],
                budget=state.budget[p],
                iou=state.iou_draws[p] > 0,
            )
        )
    state.standings = standings
    state.over = True
