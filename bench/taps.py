"""The tap budget: how many interactions and taps each player needs, per game and per round.

Plays full games of each registered game (pure engine, no Discord): whoever the game awaits asks
the game's own strategy (its first named one, else random) for a move, and the bench looks for
that move among the controls the player sees, as the bot shows them: their private panel (a DM,
or for an "on request" game the ephemeral panel opened by the table's Hand button, one tap more)
and the table's controls. A button is one tap, a select two (open it, pick). A move no control
offers at once is searched one control deeper (a tap that holds a tile, then the cell): the path
counts when it ends in the very state the move gives. Moves no path of two reaches are counted
as "hidden" (then played as the strategy chose, so the game goes on).

Beside the taps: the physical actions the same decisions take at a real table (one per move the
strategy chose: placing a meeple, a tile, a card; saying "done").

Usage: python bench/taps.py [GAME_ID ... | all] [--players N] [--games K] [--seed S] [--by-kind]
           [--strategy NAME]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import REGISTRY
from games.engine import Game, IllegalAction, PrivatePanel, apply, new_game
from games.presentation import Button, Control, Select
from games.rng import Rng

MAX_MOVES = 20_000


@dataclass
class Tally:
    games: int = 0
    rounds: int = 0
    players: int = 0
    moves: int = 0  # physical actions at a table (the strategy's decisions)
    interactions: int = 0  # clicks and picks sent to the bot
    taps: int = 0
    selects: int = 0  # interactions that were a select's pick
    hidden: int = 0  # moves no path of two controls reaches
    by_kind: Counter[str] = field(default_factory=Counter)  # moves per action type
    taps_by_kind: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Step:
    action: dict[str, Any]
    taps: int  # 1 a button, 2 a select's option (+1 when only the private panel offers it)
    select: bool


def _steps(controls: list[Control], extra: int) -> list[Step]:
    steps = []
    for control in controls:
        if isinstance(control, Button):
            if not control.disabled:
                steps.append(Step(control.action, 1 + extra, False))
        elif isinstance(control, Select) and not control.disabled:
            steps += [Step(o.action, 2 + extra, True) for o in control.options]
    return steps


def offered(game: Game[Any, Any], state: Any, pid: str) -> list[Step]:
    """Every move ``pid`` can send now, with its taps (cheapest first when offered twice)."""
    table = [c for panel in game.table(state) for c in panel.controls]
    steps = _steps(table, 0)
    if game.private_panel is PrivatePanel.DM:
        steps += _steps(game.panel(state, pid).controls, 0)
    elif game.private_panel is PrivatePanel.ON_REQUEST:
        # The Hand button opens it, unless the game shows it at once (a private decision).
        extra = 0 if game.private_decision(state, pid) else 1
        steps += _steps(game.panel(state, pid).controls, extra)
    return sorted(steps, key=lambda s: s.taps)


def _key(game: Game[Any, Any], action: dict[str, Any]) -> str | None:
    try:
        return repr(game.parse_action(action))
    except IllegalAction:
        return None


def path_to(game: Game[Any, Any], state: Any, pid: str, move: Any) -> list[Step] | None:
    """The cheapest path of at most two controls that plays ``move`` (or ends where it ends)."""
    target = repr(move)
    first = offered(game, state, pid)
    for step in first:
        if _key(game, step.action) == target:
            return [step]
    after = apply(game, state, pid, move)
    best: list[Step] | None = None
    for step in first:
        if best is not None and step.taps >= best[0].taps + best[1].taps:
            continue
        try:
            middle = apply(game, state, pid, game.parse_action(step.action))
        except IllegalAction:
            continue
        if pid not in game.active_players(middle):
            continue
        for second in offered(game, middle, pid):
            if best is not None and step.taps + second.taps >= best[0].taps + best[1].taps:
                break
            try:
                end = apply(game, middle, pid, game.parse_action(second.action))
            except IllegalAction:
                continue
            if end == after:
                best = [step, second]
                break
    return best


def play(game: Game[Any, Any], players: int, seed: int, tally: Tally, name: str | None) -> None:
    strategies = game.strategies()
    if name in strategies:
        strategy = strategies[name]
    elif strategies:
        strategy = next(iter(strategies.values()))
    else:

        def strategy(state: Any, pid: str, rng: Rng) -> Any:
            return rng.choice(list(game.legal_actions(state, pid)))

    ids = [f"p{i + 1}" for i in range(players)]
    state = new_game(game, ids, game.Options(), seed)
    rng = Rng(seed=seed)
    for _ in range(MAX_MOVES):
        outcome = game.outcome(state)
        if outcome is not None:
            tally.rounds += max(1, len(outcome.progress))
            break
        pid = sorted(game.active_players(state))[0]
        move = strategy(state, pid, rng)
        kind = str(getattr(move, "type", type(move).__name__))
        tally.moves += 1
        tally.by_kind[kind] += 1
        path = path_to(game, state, pid, move)
        if path is None:
            tally.hidden += 1
        else:
            taps = sum(s.taps for s in path)
            tally.interactions += len(path)
            tally.taps += taps
            tally.selects += sum(s.select for s in path)
            tally.taps_by_kind[kind] += taps
        state = apply(game, state, pid, move)
    else:
        raise RuntimeError(f"{game.id}: no end after {MAX_MOVES} moves")
    tally.games += 1
    tally.players = players


def report(game_id: str, t: Tally, by_kind: bool) -> list[str]:
    per = t.games * t.players
    rounds = t.rounds / t.games
    line = (
        f"{game_id:<20} {t.players}p  {rounds:4.1f} rounds  "
        f"per player·game: {t.moves / per:6.1f} table actions, "
        f"{t.interactions / per:6.1f} interactions ({t.selects / per:5.1f} selects), "
        f"{t.taps / per:6.1f} taps  | per round: {t.moves / per / rounds:5.1f} actions, "
        f"{t.taps / per / rounds:5.1f} taps  | taps/action {t.taps / max(1, t.moves):4.2f}"
        + (f"  | hidden {t.hidden}" if t.hidden else "")
    )
    lines = [line]
    if by_kind:
        for kind, count in t.by_kind.most_common():
            lines.append(
                f"    {kind:<14} {count / per:6.1f} actions/player·game, "
                f"{t.taps_by_kind[kind] / count:4.2f} taps each"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=["all"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", dest="count", type=int, default=3, help="games of each")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--by-kind", action="store_true", help="taps per kind of move")
    parser.add_argument(
        "--strategy", help="a strategy's name, for the games that have it (else their first)"
    )
    args = parser.parse_args()
    ids = list(REGISTRY) if args.games in ([], ["all"]) else args.games
    for game_id in ids:
        if game_id not in REGISTRY:
            sys.exit(f"Unknown game {game_id!r}. Known games: {', '.join(REGISTRY)}")
    for game_id in ids:
        game = REGISTRY[game_id]
        players = min(max(args.players, game.min_players), game.max_players)
        tally = Tally()
        for number in range(args.count):
            play(game, players, args.seed * 1000 + number, tally, args.strategy)
        print("\n".join(report(game_id, tally, args.by_kind)), flush=True)


if __name__ == "__main__":
    main()
