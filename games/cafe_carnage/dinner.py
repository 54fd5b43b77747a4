"""The end of a round, once everyone has confirmed (rulebook steps 3–7): dinner is served, check
please, settle up, IOUs, clear the table; then the next round is dealt or the game ends."""

from __future__ import annotations

from games.cafe_carnage import announce, scoring
from games.cafe_carnage.catalogue import COURSES, IOU_AMOUNT, ROUNDS, ActionKind, action_kind, dish
from games.cafe_carnage.choices import repeats
from games.cafe_carnage.deal import deal_round
from games.cafe_carnage.state import CafeState, PlayerRound, RoundRecord
from games.engine import PlayerId
from games.kit import evolve


def end_round(state: CafeState) -> CafeState:
    """The state after the round's dinner (``state`` itself is left as it is)."""
    new = private_copy(state)
    record = serve(new)
    new.announcements.append(announce.round_announcement(new, record))
    if new.over:
        new.announcements.append(announce.final_announcement(new))
    return new


def private_copy(state: CafeState) -> CafeState:
    """A copy with fresh containers for everything the end of a round changes in place (menus,
    picks and ballots are replaced, never changed in place); the records of earlier rounds and
    the announcements stay shared: nothing changes them."""
    return evolve(
        state,
        rng=state.rng.model_copy(),
        decks={course: list(cards) for course, cards in state.decks.items()},
        eaten={course: list(cards) for course, cards in state.eaten.items()},
        hands={p: list(cards) for p, cards in state.hands.items()},
        ballot_discard=dict(state.ballot_discard),
        run_discarded=list(state.run_discarded),
        budget=dict(state.budget),
        gp=dict(state.gp),
        iou_draws=dict(state.iou_draws),
        history=list(state.history),
        announcements=list(state.announcements),
    )


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
    caught = 1 if len(values) <= 4 else 2
    boundary = values[caught - 1]
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


def serve(state: CafeState) -> RoundRecord:
    """Steps 3-7 on a private copy: serve, check, settle, IOUs, clear the table, deal."""
    players = state.players
    # 3. Dinner is served.
    meals: dict[PlayerId, int] = {}
    gained: dict[PlayerId, int] = {}
    for p in players:
        eaten = repeats(state, p)
        served = [dish(state.picks[p][course]) for course in COURSES]
        meals[p] = sum(d.value for d in served)
        gained[p] = sum(d.value for d in served if d.name not in eaten)
        state.gp[p] += gained[p]

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
    if caught:
        caught_share = ceil_div(sum(meals[p] for p in runners), len(caught))
        for p in caught:
            owed[p] = caught_share

    # 5. Settle up (an anonymous tally of the remaining players' cards).
    remaining = [p for p in players if p not in runners]
    split_votes = sum(1 for p in remaining if kinds[p] == "split")
    separate_votes = len(remaining) - split_votes
    unpaid = 0 if caught else sum(meals[p] for p in escaped)
    if remaining and split_votes > separate_votes:
        split_share = ceil_div(sum(meals[p] for p in remaining) + unpaid, len(remaining))
        for p in remaining:
            owed[p] = split_share
    else:  # each pays separately (a tie too); escaped runners' meals go unpaid
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
                dishes=[dish(state.picks[p][course]).name for course in COURSES],
                gp_gained=gained[p],
                role="caught" if p in caught else "escaped" if p in escaped else "stayed",
                owed=owed.get(p, 0),
                iou_draws=draws[p],
                budget_after=state.budget[p],
                gp_after=state.gp[p],
            )
            for p in players
        },
        split_votes=split_votes,
        separate_votes=separate_votes,
        auto_played=list(state.auto_played),
    )
    state.history.append(record)
    if state.round >= ROUNDS:
        state.menus = {}
        state.picks = {p: {} for p in players}
        state.played = {}
        state.confirmed = []
        state.auto_played = []
        scoring.finish(state)
    else:
        state.round += 1
        deal_round(state)
    return record
