"""`python -m bot arena`: bot levels play seeded games against each other through the engine, in
parallel worker processes, and each level's win share (a cooperative game: its tables' success
rate) is printed with a 95 % interval.

Seats rotate from game to game (game k seats the levels shifted by k), so no level keeps the
first seat. Every seat decides from its own view (``seat_view``), as a bot player does, and a
hard seat plays its plan as a bot player does (:func:`play_plan`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from bot.core.levels import (
    Level,
    Plan,
    Planner,
    hard_planner,
    level_strategy,
    normal_strategy,
    parse_level,
)
from bot.core.runs import run_goes_on
from bot.core.seat_view import as_seen_by
from games import REGISTRY
from games.engine import Game, GameState, PlayerId, Strategy, apply, new_game
from games.rng import Rng

MAX_MOVES = 20_000


@dataclass(frozen=True)
class Match:
    """One arena game: which level sits in which seat, and with what."""

    game_id: str
    levels: tuple[Level, ...]  # by seat
    seed: int
    mode: str | None  # the game's named strategy that plays `normal` (None: the bot's own)
    simulations: int
    options: str = "{}"  # the game's options (JSON; "{}": its defaults)


@dataclass
class Tally:
    seats: int = 0
    wins: float = 0.0  # shares of wins (a shared win of k players: 1/k each)

    @property
    def share(self) -> float:
        return self.wins / self.seats if self.seats else 0.0


@dataclass
class ArenaResult:
    game_id: str
    players: int
    mode: str | None
    options: dict[str, Any] = field(default_factory=dict)  # those not left at their defaults
    cooperative: bool = False
    games: int = 0
    unfinished: int = 0
    by_level: dict[Level, Tally] = field(default_factory=dict)

    def lines(self) -> list[str]:
        title = REGISTRY[self.game_id].title
        mode = f", {self.mode}" if self.mode else ""
        mode += "".join(f", {k}={v}" for k, v in self.options.items())
        what = "tables that succeed" if self.cooperative else "win share"
        out = [f"{title} ({self.players}p{mode}): {self.games} games, {what} by level"]
        for level, tally in self.by_level.items():
            low, high = wilson(tally.wins, tally.seats)
            fair = "" if self.cooperative else f" (fair share {100 / self.players:.0f} %)"
            unit = "tables" if self.cooperative else "seats"
            out.append(
                f"  {level.value:<6} {100 * tally.share:5.1f} %  "
                f"[{100 * low:.1f}–{100 * high:.1f}] over {tally.seats} {unit}{fair}"
            )
        if self.unfinished:
            out.append(f"  ({self.unfinished} games did not end within {MAX_MOVES} moves)")
        return out


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_match(match: Match) -> tuple[list[float], bool, bool]:
    """Play one game; each seat's share of the win, whether it ended, whether cooperative."""
    game = REGISTRY[match.game_id]
    ids = [f"bot-{i + 1}" for i in range(len(match.levels))]
    options = game.parse_options(json.loads(match.options))
    strategies: dict[str, Strategy] = {}
    planners: dict[str, Planner] = {}
    for i, (pid, level) in enumerate(zip(ids, match.levels, strict=True)):
        strategies[pid] = _strategy(game, level, pid, i + 1, match, options)
        if level is Level.HARD:
            planners[pid] = hard_planner(
                game, strategies[pid], options=options, simulations=match.simulations
            )
    state = new_game(game, ids, options, match.seed)
    rng = Rng(seed=match.seed)
    for _ in range(MAX_MOVES):
        outcome = game.outcome(state)
        if outcome is not None:
            shares = [(1 / len(outcome.winners)) if pid in outcome.winners else 0.0 for pid in ids]
            if outcome.cooperative:
                shares = [1.0 if outcome.winners else 0.0] * len(ids)
            return shares, True, outcome.cooperative
        active = game.active_players(state)
        mover = next(p for p in state.players if p in active)
        seen = as_seen_by(game, state, mover, rng.randint(0, (1 << 62) - 1))
        try:
            if mover in planners:
                plan = planners[mover](seen, mover, rng)
                state = play_plan(game, state, mover, plan, strategies[mover], rng)
            else:
                move = strategies[mover](seen, mover, rng)
                state = apply(game, state, mover, move)
        except Exception:
            # As a bot player does (bot.core.robots): a strategy that fails on its view (it
            # reached for a token) or picks a refused move gets the rules' default move.
            state = apply(game, state, mover, game.on_timeout(state, mover))
    return [0.0] * len(ids), False, False


def play_plan(
    game: Game[Any, Any],
    state: GameState,
    player: PlayerId,
    plan: Plan,
    normal: Strategy,
    rng: Rng,
) -> GameState:
    """A hard seat's plan played as a bot player plays it (``bot.core.robots``): its first
    move, then the next ones in a row while each move so far changed no view but the seat's own
    and the seat is still awaited (the last may be seen by all), each still legal; past the end
    of a plan whose search compared nothing, the normal player's moves. A plan cut short is
    searched again at the seat's next move."""
    moves = plan.moves
    after = apply(game, state, player, moves[0])  # refused: the caller's default move
    touched = game.views_touched(state, after, player)
    state, played = after, 1
    while touched is not None and run_goes_on(game, state, player, touched, played):
        if played < len(moves):
            move = moves[played]
        elif plan.compared:
            break  # the plan is played: the seat searches again
        else:
            seen = as_seen_by(game, state, player, rng.randint(0, (1 << 62) - 1))
            move = normal(seen, player, rng)
        if not game.is_legal(state, player, move):
            break  # it no longer fits: the seat searches again
        after = apply(game, state, player, move)
        more = game.views_touched(state, after, player)
        touched = None if more is None else touched | more
        state, played = after, played + 1
    return state


def _strategy(
    game: Game[Any, Any], level: Level, pid: str, number: int, match: Match, options: Any
) -> Strategy:
    """The seat's player: easy's, or the normal one (a hard seat's rollouts and fallbacks)."""
    if level is Level.EASY:
        return level_strategy(game, level, pid)
    if match.mode is None:
        return level_strategy(game, Level.NORMAL, pid, number=number, options=options)
    named = game.strategies()
    if match.mode not in named:
        raise ValueError(f"{game.title} has no player called {match.mode!r}")
    return named[match.mode]


def matches(
    game_id: str,
    players: int,
    seats: Sequence[Level],
    *,
    games: int,
    seed: int,
    mode: str | None,
    simulations: int,
    options: dict[str, Any] | None = None,
) -> list[Match]:
    """The arena's games: the seat levels cycled to ``players`` seats, rotated each game."""
    game = REGISTRY[game_id]
    levels = [seats[i % len(seats)] for i in range(players)]
    cooperative_probe = play_probe_is_cooperative(game)
    chosen = json.dumps(options or {}, sort_keys=True)
    out = []
    for k in range(games):
        if cooperative_probe:
            # A cooperative table is judged whole: level j's tables seat only level j.
            level = seats[k % len(seats)]
            table = tuple([level] * players)
        else:
            shift = k % players
            table = tuple(levels[shift:] + levels[:shift])
        out.append(Match(game_id, table, seed * 1_000_003 + k, mode, simulations, chosen))
    return out


def play_probe_is_cooperative(game: Game[Any, Any]) -> bool:
    """Whether the game is cooperative (its outcomes say so; one quick game tells)."""
    ids = [f"p{i}" for i in range(game.min_players)]
    state = new_game(game, ids, game.parse_options({}), 1)
    rng = Rng(seed=1)
    _, normal = normal_strategy(game, ids[0])
    for _ in range(MAX_MOVES):
        outcome = game.outcome(state)
        if outcome is not None:
            return outcome.cooperative
        active = game.active_players(state)
        mover = next(p for p in state.players if p in active)
        state = apply(game, state, mover, normal(state, mover, rng))
    return False


def run_arena(
    game_id: str,
    players: int,
    seats: Sequence[Level],
    *,
    games: int,
    seed: int = 1,
    mode: str | None = None,
    simulations: int = 200,
    workers: int = 2,
    options: dict[str, Any] | None = None,
    run: Callable[[Callable[[Match], Any], list[Match]], list[Any]] | None = None,
) -> ArenaResult:
    """Play the games (in ``workers`` processes; ``run`` may map them another way) and tally."""
    todo = matches(
        game_id,
        players,
        seats,
        games=games,
        seed=seed,
        mode=mode,
        simulations=simulations,
        options=options,
    )
    if run is not None:
        results = run(play_match, todo)
    elif workers <= 1:
        results = [play_match(m) for m in todo]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(play_match, todo))
    out = ArenaResult(game_id, players, mode, options=dict(options or {}))
    for level in dict.fromkeys(seats):
        out.by_level[level] = Tally()
    for match, (shares, ended, cooperative) in zip(todo, results, strict=True):
        out.games += 1
        out.cooperative = out.cooperative or cooperative
        if not ended:
            out.unfinished += 1
        if cooperative:
            tally = out.by_level[match.levels[0]]
            tally.seats += 1
            tally.wins += shares[0]
            continue
        for level, share in zip(match.levels, shares, strict=True):
            out.by_level[level].seats += 1
            out.by_level[level].wins += share
    return out


def parse_seats(text: str) -> list[Level]:
    levels = [parse_level(part) for part in text.split(",") if part.strip()]
    if not levels:
        raise ValueError("--seats needs at least one level, e.g. hard,normal")
    return levels
