"""How much of Café Carnage is luck: a seat that peeks, against easy or normal bots.

The "oracle" seat orders last each round, after seeing every other order of the round (their
dishes and ballots), and takes the order that does best this round against them (its gain over
the others', less what the card it spends is worth for later rounds). No fair player knows as
much, so its win share is a ceiling for any level at the same table: if even the oracle wins
only so often, a level's target above that is out of reach.

Usage: python bench/carnage_ceiling.py [--players N] [--games K] [--seed S] [--against easy|normal]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.arena import wilson
from bot.core.levels import easy_strategy, normal_strategy
from games import REGISTRY
from games.cafe_carnage.catalogue import ROUNDS, action_kind
from games.cafe_carnage.planning import plans
from games.cafe_carnage.state import CafeState, Play
from games.engine import Strategy, apply, new_game
from games.rng import Rng

GAME = REGISTRY["cafe-carnage"]
# What a card spent now is worth in the rounds left ($ of gain): RUN! escaped with, a Split.
KEEP_RUN = 4.0
KEEP_SPLIT = 1.5


def oracle_orders(state: CafeState, me: str) -> list[object]:
    """The moves of the order that does best this round, the others' orders known."""
    best: tuple[float, list[object]] | None = None
    for plan in plans(state, me):
        after = state
        for move in plan:
            after = GAME.apply_action(after, me, move)
        record = after.history[-1]
        gain = {p: pr.meal - pr.owed for p, pr in record.players.items()}
        others = [gain[p] for p in state.players if p != me]
        value = gain[me] - (max(others) + sum(others) / len(others)) / 2
        if state.round < ROUNDS:
            kind = next((action_kind(m.card) for m in plan if isinstance(m, Play)), None)
            if kind == "run" and me in after.run_discarded:
                value -= KEEP_RUN
            if kind == "split":
                value -= KEEP_SPLIT
        if best is None or value > best[0]:
            best = (value, list(plan))
    assert best is not None
    return best[1]


def play(players: int, seed: int, other: Strategy, seat: int) -> float:
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
        for move in oracle_orders(state, me):
            state = apply(GAME, state, me, move)  # type: ignore[arg-type]
    outcome = GAME.outcome(state)
    assert outcome is not None
    return 1 / len(outcome.winners) if me in outcome.winners else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", choices=("easy", "normal"), default="easy")
    args = parser.parse_args()
    other = easy_strategy(GAME) if args.against == "easy" else normal_strategy(GAME, "bot-2")[1]
    wins = sum(
        play(args.players, args.seed * 1_000_003 + k, other, k % args.players)
        for k in range(args.games)
    )
    low, high = wilson(wins, args.games)
    print(
        f"Café Carnage ({args.players}p): a seat that sees the round's other orders, against "
        f"{args.against}: {100 * wins / args.games:.1f} % [{100 * low:.1f}–{100 * high:.1f}] "
        f"of {args.games} games (fair share {100 / args.players:.0f} %)"
    )


if __name__ == "__main__":
    main()
