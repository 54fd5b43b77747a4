"""A bot player's level: ``easy`` (random legal moves), ``normal`` (the game's own strategy) or
``hard`` (a search, :mod:`games.search`, with ``normal`` playing its rollouts).

Every function here decides from the seat's view (``bot.core.seat_view.as_seen_by``), never from
the real state; the callers (the bot players, the arena) make that view.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from games import REGISTRY
from games.engine import Game, GameState, PlayerId, Strategy
from games.rng import Rng
from games.search import (
    CannotDeterminize,
    Determinizer,
    Universe,
    generic_determinizer,
    hidden_universe,
)
from games.search import search as run_search


class Level(StrEnum):
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


DEFAULT_LEVEL = Level.NORMAL


def parse_level(text: str) -> Level:
    try:
        return Level(text.strip().lower())
    except ValueError:
        raise ValueError(
            f"There is no bot level {text!r}: pick one of {', '.join(Level)}."
        ) from None


def easy_strategy(game: Game[Any, Any]) -> Strategy:
    """A random legal move; ending a step is drawn no more often than any other move, so a
    random player may dither, but every game's moves run out (the property tests play it)."""

    def random_move(state: Any, player: PlayerId, rng: Rng) -> BaseModel:
        moves: list[BaseModel] = list(game.legal_actions(state, player))
        return rng.choice(moves)

    return random_move


def normal_strategy(game: Game[Any, Any], user_id: str, number: int = 1) -> tuple[str, Strategy]:
    """The game's greedy player where it has one; else its named players in turn (``number``:
    the seat's bot number, so two bots at one table may play differently); else random."""
    named = {k: v for k, v in game.strategies().items() if k != "timeout"}
    if "greedy" in named:
        return "greedy", named["greedy"]
    if named:
        name = sorted(named)[(number - 1) % len(named)]
        return name, named[name]
    return "random", easy_strategy(game)


@functools.lru_cache(maxsize=64)
def _universe(game_id: str, players: tuple[PlayerId, ...], options_json: str) -> Universe:
    game = REGISTRY[game_id]
    options = game.parse_options(json.loads(options_json))
    return hidden_universe(game, list(players), options)


def determinizer(game: Game[Any, Any], players: list[PlayerId], options: BaseModel) -> Determinizer:
    """The game's own determinizer where it has one, else the generic one."""
    universe = _universe(game.id, tuple(players), json.dumps(options.model_dump(mode="json")))
    generic = generic_determinizer(universe)

    def determinize(seen: GameState, player: PlayerId, rng: Rng) -> GameState:
        own = game.determinize(seen, player, rng)
        return own if own is not None else generic(seen, player, rng)

    return determinize


@dataclass(frozen=True)
class Plan:
    """A hard seat's decision: the moves it means to play in a row (the first now, each next one
    while nobody else has seen a move of it yet, each checked again before it is played: Café
    Carnage's whole order), and how many simulations chose them. ``compared`` False: the search
    had no time to compare its plans, so the move is the normal player's, whose turn it then
    goes on with."""

    moves: list[BaseModel]
    simulations: int
    compared: bool = True


def hard_plan(
    game: Game[Any, Any],
    seen: GameState,
    player: PlayerId,
    *,
    options: BaseModel,
    policy: Strategy,
    seed: int,
    simulations: int,
    stop: Callable[[], bool] | None = None,
) -> Plan:
    """The search's plan from the seat's view ``seen``; the normal move when the view cannot be
    filled in. A game with a search of its own (``Game.search_move``) plays that instead, one
    move at a time."""
    if game.searchable(seen, player):
        own = game.search_move(seen, player, simulations=simulations, stop=stop)
        if own is not None:
            return Plan([own[0]], own[1])
    try:
        result = run_search(
            game,
            seen,
            player,
            policy=policy,
            determinize=determinizer(game, seen.players, options),
            seed=seed,
            simulations=simulations,
            stop=stop,
        )
    except CannotDeterminize:
        return Plan([policy(seen, player, Rng(seed=seed))], 0, compared=False)
    return Plan(result.plan or [result.action], result.simulations, result.compared)


def plan_moves(game: Game[Any, Any], seen: GameState, player: PlayerId) -> int:
    """How many of the seat's moves one search decides: its longest plan's (Café Carnage at a
    round's start: three picks, a ballot and Confirm), else one. A search's budget is so many
    moves' worth, so a plan is thought out as long as its moves were one by one."""
    plans = game.search_hints().plans
    if plans is None or not game.searchable(seen, player):
        return 1
    return max((len(plan) for plan in plans(seen, player)), default=1)


Planner = Callable[[Any, PlayerId, Rng], Plan]


def hard_planner(
    game: Game[Any, Any],
    policy: Strategy,
    *,
    options: BaseModel,
    simulations: int,
    stop: Callable[[], bool] | None = None,
) -> Planner:
    """A hard seat's planner (view, player, rng) → :class:`Plan`, ``policy`` playing its
    rollouts, ``simulations`` for each move the plan decides (:func:`plan_moves`)."""

    def plan(seen: Any, player: PlayerId, rng: Rng) -> Plan:
        return hard_plan(
            game,
            seen,
            player,
            options=options,
            policy=policy,
            seed=rng.randint(0, (1 << 62) - 1),
            simulations=simulations * plan_moves(game, seen, player),
            stop=stop,
        )

    return plan


def level_strategy(
    game: Game[Any, Any],
    level: Level,
    user_id: str,
    *,
    number: int = 1,
    options: BaseModel | None = None,
    simulations: int = 200,
    stop: Callable[[], bool] | None = None,
) -> Strategy:
    """A strategy (view, player, rng) → move for one seat at ``level``."""
    if level is Level.EASY:
        return easy_strategy(game)
    _, normal = normal_strategy(game, user_id, number)
    if level is Level.NORMAL:
        return normal
    opts = options if options is not None else game.parse_options({})
    planner = hard_planner(game, normal, options=opts, simulations=simulations, stop=stop)

    def hard(seen: Any, player: PlayerId, rng: Rng) -> BaseModel:
        return planner(seen, player, rng).moves[0]

    return hard
