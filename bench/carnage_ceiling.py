"""How much of Café Carnage is luck: a seat that peeks, against easy or normal bots.

The "oracle" seat orders last each round, after seeing every other order of the round (their
dishes and ballots). No fair player knows as much, so its win share is a ceiling for any level at
the same table: if even the oracle wins only so often, a level's target above that is out of
reach. Three oracles, each knowing more or thinking further:

- ``--knows runs``: it sees only whether someone else runs this round, and otherwise plays as the
  normal player: RUN! when nobody else runs, never Split while someone does. What the others' runs
  alone are worth.
- ``--knows orders --plan 0``: it sees the orders; RUN! when nobody else runs (or every other
  runner ate dearer), Split when its vote carries the bill and nobody runs, the dearest meal
  (in the last round the one that wastes least money, as the normal player).
- ``--knows orders --plan K`` (the default, K = 12): as above in the later rounds, but each round
  it plans: every order it could make now (each ballot kind with its dearest meal, and a RUN!
  with a meal cheaper than, or as dear as, the cheapest other runner's), each followed by K games
  played out to the end (the later deals drawn anew: it peeks at this round only), and it makes
  the order that wins most of them.

And a seat that peeks at nothing: ``--knows nothing`` seats the hard bot's search (deciding
from its seat's view only; as the bot, it compares whole orders of a round, here searched once,
at the round's first move, and played out) on the arena's games and seats (``--seed``, seats
rotating), against easy bots. ``--model normal`` imagines the others as the hard bot does, as
normal players; ``--model random`` as what easy bots are, random diners (a random dish of each
course and a random card of the hand, their orders already made this round too). ``--paired``
compares the orders in the same sampled worlds; ``--orders near`` only Split and Separate with
the dearest meal and RUN! with each meal total (all orders in the last round), so that a budget
compares fewer orders better. It then prints where its orders differed from the normal player's.
What a fair seat reaches against random players, as far as this search sees.

Usage: python bench/carnage_ceiling.py [--players N] [--games K] [--seed S] [--against easy|normal]
       [--knows runs|orders|nothing] [--plan K]
       [--model random|normal] [--simulations K] [--paired] [--orders all|near]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic import BaseModel

from bot.core.arena import wilson
from bot.core.levels import determinizer, easy_strategy, normal_strategy
from bot.core.seat_view import as_seen_by
from games import REGISTRY
from games.cafe_carnage.catalogue import COURSES, ROUNDS, ActionKind, action_kind, dish
from games.cafe_carnage.choices import offered
from games.cafe_carnage.planning import determinize, plans
from games.cafe_carnage.shrewd import order
from games.cafe_carnage.state import CafeState, Confirm, Pick, Play
from games.engine import PlayerId, SearchHints, Strategy, apply, new_game
from games.kit import evolve
from games.rng import Rng
from games.search import search

GAME = REGISTRY["cafe-carnage"]


def _meal(state: CafeState, player: str) -> int:
    return sum(dish(card).value for card in state.picks[player].values())


def _moves(state: CafeState, me: str, dishes: dict[str, str], kind: ActionKind) -> list[BaseModel]:
    card = next(c for c in state.hands[me] if action_kind(c) == kind)
    return [*(Pick(card=dishes[course]) for course in COURSES), Play(card=card), Confirm()]


def knows_runs(state: CafeState, me: str) -> list[BaseModel]:
    """The normal player's order, told only whether someone else runs this round."""
    dishes, kind = order(state, me)
    hand = {action_kind(c) for c in state.hands[me]}
    company = any(action_kind(state.played[p]) == "run" for p in state.players if p != me)
    if "run" in hand and not company:
        kind = "run"
    elif company and kind != "separate" and len(hand) > 1:
        kind = "separate" if "separate" in hand else "split"
    return _moves(state, me, dishes, kind)


def knows_orders(state: CafeState, me: str) -> list[BaseModel]:
    """RUN! when it escapes, Split when the vote carries and nobody runs; else Separate."""
    dishes, _ = order(state, me)
    meal = sum(dish(dishes[course]).value for course in COURSES)
    have: Counter[ActionKind] = Counter()
    for card in state.hands[me]:
        have[action_kind(card) or "separate"] += 1
    others = [p for p in state.players if p != me]
    kinds = {p: action_kind(state.played[p]) for p in others}
    runners = [p for p in others if kinds[p] == "run"]
    stayers = [p for p in others if kinds[p] != "run"]
    splits = sum(kinds[p] == "split" for p in stayers)
    kind: ActionKind
    if len(have) == 1:
        kind = next(iter(have))
    elif have["run"] and all(_meal(state, p) > meal for p in runners):
        kind = "run"
    elif have["split"] and not runners and splits + 1 > len(stayers) - splits:
        kind = "split"
    else:
        kind = "separate" if have["separate"] else "split" if have["split"] else "run"
    return _moves(state, me, dishes, kind)


def candidates(state: CafeState, me: str) -> list[Sequence[BaseModel]]:
    """The orders worth weighing: each kind with its dearest meal, and RUN! with the dearest meal
    cheaper than (and as dear as) the cheapest other runner's."""
    if state.round == ROUNDS:  # nothing left to chance: every order
        return plans(state, me)
    others = [p for p in state.players if p != me]
    runs = [_meal(state, p) for p in others if action_kind(state.played[p]) == "run"]
    best: dict[ActionKind, tuple[int, Sequence[BaseModel]]] = {}
    under: dict[int, tuple[int, Sequence[BaseModel]]] = {}
    for plan in plans(state, me):
        kind = next(action_kind(m.card) for m in plan if isinstance(m, Play))
        assert kind is not None
        total = sum(dish(m.card).value for m in plan if isinstance(m, Pick))
        if kind not in best or total > best[kind][0]:
            best[kind] = (total, plan)
        if kind == "run" and runs:
            for edge, fits in ((0, total < min(runs)), (1, total == min(runs))):
                if fits and (edge not in under or total > under[edge][0]):
                    under[edge] = (total, plan)
    return [plan for _, plan in (*best.values(), *under.values())]


def play_out(state: CafeState, me: str, other: Strategy, rng: Rng) -> float:
    """The rest of the game, the oracle playing ``knows_orders``: its share of the win."""
    while not state.over:
        waiting = [p for p in state.players if p in GAME.active_players(state) and p != me]
        if waiting:
            state = apply(GAME, state, waiting[0], other(state, waiting[0], rng))
            continue
        for move in knows_orders(state, me):
            state = apply(GAME, state, me, move)
    return share(state, me)


def planned(state: CafeState, me: str, other: Strategy, rng: Rng, rollouts: int) -> list[object]:
    """The candidate order that wins most of ``rollouts`` games played out after it."""
    best: tuple[float, list[object]] | None = None
    for plan in candidates(state, me):
        after = state
        for move in plan:
            after = apply(GAME, after, me, move)
        tries = 1 if after.over else rollouts
        won = 0.0
        for _ in range(tries):
            # The later deals drawn anew: the oracle peeks at this round only.
            world = evolve(after, rng=Rng(seed=rng.randint(0, (1 << 62) - 1)))
            won += play_out(world, me, other, rng)
        if best is None or won / tries > best[0]:
            best = (won / tries, list(plan))
    assert best is not None
    return best[1]


def random_diner(state: CafeState, player: PlayerId, rng: Rng) -> BaseModel:
    """An easy bot's order in five moves: its last pick of each course and its last card are
    uniform over what it may choose, so a random dish of each and a random card of the hand."""
    for course in COURSES:
        if course not in state.picks[player]:
            return Pick(card=rng.choice(offered(state, player, course)))
    if player not in state.played:
        return Play(card=rng.choice(state.hands[player]))
    return Confirm()


class Modelled:
    """The game as the search sees it: the hard bot's own hints, or (``random``) the others
    imagined as random diners: their later moves, and their choices already made this round (a
    random dish of each dealt menu and a random card of the dealt hand, where the hard bot redoes
    them as a normal player). ``paired``: each round's orders compared in the same worlds.
    ``near``: only the orders near the normal player's (below)."""

    def __init__(self, model: str, paired: bool, near: bool) -> None:
        self.model = model
        others = random_diner if model == "random" else None
        hints = replace(GAME.search_hints(), others=others, paired=paired)
        self.hints = replace(hints, plans=near_orders) if near else hints

    def __getattr__(self, name: str) -> object:
        return getattr(GAME, name)

    def search_hints(self) -> SearchHints:
        return self.hints

    def determinize(self, seen: CafeState, player: PlayerId, rng: Rng) -> CafeState | None:
        world = determinize(seen, player, rng)
        if world is None or self.model != "random":
            return world
        picks = dict(world.picks)
        played = dict(world.played)
        for p in world.players:
            if p == player or p not in world.menus:
                continue
            picks[p] = {c: rng.choice(offered(world, p, c)) for c in world.picks.get(p, {})}
            if p in played:
                played[p] = rng.choice(world.hands[p])
        return evolve(world, picks=picks, played=played)


def _kind_total(order: Sequence[BaseModel]) -> tuple[ActionKind | None, int]:
    kind = next((action_kind(m.card) for m in order if isinstance(m, Play)), None)
    return kind, sum(dish(m.card).value for m in order if isinstance(m, Pick))


def near_orders(state: CafeState, me: PlayerId) -> list[Sequence[BaseModel]]:
    """Fewer orders, so that a budget compares them well: Split and Separate with the dearest
    meal, RUN! with each meal total on offer (all orders in the last round)."""
    every = plans(state, me)
    if state.round == ROUNDS or me in state.played or state.picks.get(me):
        return every
    dearest = max(_kind_total(order)[1] for order in every)
    return [o for o in every if _kind_total(o)[0] == "run" or _kind_total(o)[1] == dearest]


# What the search chose against what the normal player would have: (round, normal's ballot,
# the search's ballot, the search's meal below normal's) → times.
CHOICES: Counter[tuple[int, str, str, int]] = Counter()


def searched_order(
    game: Modelled, seen: CafeState, me: PlayerId, normal: Strategy, seed: int, simulations: int
) -> list[BaseModel]:
    """The round's whole order the search prefers (searched once, at the round's first move)."""
    orders = list(game.hints.plans(seen, me)) if game.hints.plans else plans(seen, me)
    if len(orders) == 1:
        return list(orders[0])
    result = search(
        game,  # type: ignore[arg-type]
        seen,
        me,
        policy=normal,
        determinize=determinizer(game, seen.players, seen.options),  # type: ignore[arg-type]
        seed=seed,
        simulations=simulations,
    )
    if len(result.visits) < len(orders):  # not every order tried: the normal player's
        return [normal(seen, me, Rng(seed=seed))]
    if game.hints.paired:
        best = max(result.values, key=lambda i: result.values[i])
    else:
        best = max(result.visits, key=lambda i: (result.visits[i], result.values[i]))
    want, kind = order(seen, me)
    chosen, total = _kind_total(orders[best])
    meal = sum(dish(want[course]).value for course in COURSES)
    CHOICES[(seen.round, kind, str(chosen), meal - total)] += 1
    return list(orders[best])


def unpeeking(
    players: int, seed: int, seat: int, model: str, paired: bool, near: bool, simulations: int
) -> float:
    """One arena game (its seed and seat): the hard bot in ``seat``, easy bots elsewhere."""
    ids = [f"bot-{i + 1}" for i in range(players)]
    me = ids[seat]
    state = new_game(GAME, ids, GAME.parse_options({}), seed)
    assert isinstance(state, CafeState)
    game = Modelled(model, paired, near)
    _, normal = normal_strategy(GAME, me)
    easy = easy_strategy(GAME)
    rng = Rng(seed=seed)
    planned: list[BaseModel] = []
    while not state.over:
        mover = next(p for p in state.players if p in GAME.active_players(state))
        seen = as_seen_by(GAME, state, mover, rng.randint(0, (1 << 62) - 1))
        if mover != me:
            state = apply(GAME, state, mover, easy(seen, mover, rng))
            continue
        if not planned:
            assert isinstance(seen, CafeState)
            seed_ = rng.randint(0, (1 << 62) - 1)
            planned = searched_order(game, seen, me, normal, seed_, simulations)
        state = apply(GAME, state, me, planned.pop(0))
    return share(state, me)


def share(state: CafeState, me: str) -> float:
    outcome = GAME.outcome(state)
    assert outcome is not None
    return 1 / len(outcome.winners) if me in outcome.winners else 0.0


def play(players: int, seed: int, other: Strategy, seat: int, knows: str, plan: int) -> float:
    ids = [f"bot-{i + 1}" for i in range(players)]
    me = ids[seat]
    state = new_game(GAME, ids, GAME.parse_options({}), seed)
    assert isinstance(state, CafeState)
    rng = Rng(seed=seed)
    while not state.over:
        active = GAME.active_players(state)
        waiting = [p for p in state.players if p in active and p != me]
        if waiting:  # the others order first: the oracle sees their orders
            state = apply(GAME, state, waiting[0], other(state, waiting[0], rng))
            continue
        if knows == "runs":
            moves: Sequence[object] = knows_runs(state, me)
        elif plan:
            moves = planned(state, me, other, rng, plan)
        else:
            moves = knows_orders(state, me)
        for move in moves:
            state = apply(GAME, state, me, move)
    return share(state, me)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", choices=("easy", "normal"), default="easy")
    parser.add_argument("--knows", choices=("runs", "orders", "nothing"), default="orders")
    parser.add_argument("--plan", type=int, default=12, help="games played out per order")
    parser.add_argument("--model", choices=("random", "normal"), default="random")
    parser.add_argument("--simulations", type=int, default=200, help="a round's search budget")
    parser.add_argument("--paired", action="store_true", help="compare orders in the same worlds")
    parser.add_argument("--orders", choices=("all", "near"), default="all")
    args = parser.parse_args()
    if args.knows == "nothing":
        return bound(args)
    other = easy_strategy(GAME) if args.against == "easy" else normal_strategy(GAME, "bot-2")[1]
    wins = sum(
        play(
            args.players,
            args.seed * 1_000_003 + k,
            other,
            k % args.players,
            args.knows,
            args.plan,
        )
        for k in range(args.games)
    )
    low, high = wilson(wins, args.games)
    what = (
        "that knows whether another runs"
        if args.knows == "runs"
        else "that sees the round's other orders"
        + (f" and plans (each order played out {args.plan} times)" if args.plan else "")
    )
    print(
        f"Café Carnage ({args.players}p): a seat {what}, against {args.against}: "
        f"{100 * wins / args.games:.1f} % [{100 * low:.1f}–{100 * high:.1f}] "
        f"of {args.games} games (fair share {100 / args.players:.0f} %)"
    )


def bound(args: argparse.Namespace) -> None:
    """``--knows nothing``: the hard bot against easy bots, on the arena's games and seats (game
    k seats the levels shifted by k)."""
    wins = 0.0
    for k in range(args.games):
        wins += unpeeking(
            args.players,
            args.seed * 1_000_003 + k,
            -k % args.players,
            args.model,
            args.paired,
            args.orders == "near",
            args.simulations,
        )
        if (k + 1) % 25 == 0:
            print(f"  {k + 1} games: {100 * wins / (k + 1):.1f} %", flush=True)
    low, high = wilson(wins, args.games)
    print(
        f"Café Carnage ({args.players}p): the hard bot (peeking at nothing, {args.simulations} "
        f"simulations a round{', paired' if args.paired else ''}, {args.orders} orders, the "
        f"others imagined as {args.model} players), against easy: "
        f"{100 * wins / args.games:.1f} % [{100 * low:.1f}–{100 * high:.1f}] of {args.games} "
        f"games (fair share {100 / args.players:.0f} %)"
    )
    print("Its orders against the normal player's (round, normal, search, meal cheaper by):")
    for (round_, normal, chosen, cheaper), times in sorted(CHOICES.items()):
        print(f"  round {round_}: {normal:>8} → {chosen:>8} {cheaper:+d}: {times}")


if __name__ == "__main__":
    main()
