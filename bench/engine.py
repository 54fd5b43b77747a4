"""Full random games per second, for each registered game and player count (pure engine).

Each step of a random game has two parts, timed apart:
- the bench's own overhead: choosing a random legal action (``sorted(active_players)``,
  ``legal_actions``, ``Rng.choice``);
- ``games.engine.apply`` itself (the central checks and the game's ``apply_action``).
"apply µs" is the engine's cost per action; "panels µs" drawing, after each action, the panels it
changed as the bot draws them (``views_touched``: the mover's private panel, the table, or every
panel; private panels only where the game has them); "games/s apply" counts apply time only,
"games/s all" the whole loop (setup and drawing included). "serialise µs" is ``state.model_dump_json()`` of a
mid-game state (the first game's state halfway through its actions); "store JSON µs" what the
session service spends per move to encode the new state for the store (bot/core/state_json.py:
only the fields the move replaced; copy-on-write games only).

Games are seeded as new games are (``--rng 2``, the default: games.rng's version-2 seeds); ``--rng
1`` seeds them as games stored before it were (Mersenne Twister seeded afresh for each draw).

Usage: python bench/engine.py [GAME_ID ...] [--seconds S] [--rng 1|2]
       (default: every game, 2 s a case, version-2 seeds)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core.state_json import StateJson
from games import REGISTRY
from games.engine import ALL_VIEWS, Game, GameState, PrivatePanel, apply
from games.rng import V2_SEEDS, Rng

SECONDS_PER_CASE = 2.0
COLUMNS = [
    ("game", "<16"),  # widened to the longest game id in main()
    ("players", ">8"),
    ("games", ">7"),
    ("actions/game", ">13"),
    ("apply µs", ">10"),
    ("overhead µs", ">12"),
    ("panels µs", ">10"),
    ("games/s apply", ">14"),
    ("games/s all", ">12"),
    ("serialise µs", ">13"),
    ("store JSON µs", ">14"),
]


def row(values: list[str]) -> str:
    return "".join(f"{value:{align}}" for value, (_, align) in zip(values, COLUMNS, strict=True))


def serialise_us(state: GameState, repeats: int = 300) -> float:
    """Best of three batches: µs for one ``model_dump_json()``."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(repeats):
            state.model_dump_json()
        best = min(best, (time.perf_counter() - started) / repeats)
    return 1e6 * best


def store_json_us(game: Game[Any, Any], ids: list[str]) -> float:
    """Best of three passes: µs per move for the store's JSON of each state of one random game
    (seed 0), in order, as the session service writes it (only the fields a move replaced)."""
    rng = Rng(seed=0)
    states: list[GameState] = [game.setup(ids, game.Options(), 0)]
    while game.outcome(states[-1]) is None:
        player, action = random_action(game, states[-1], rng)
        states.append(apply(game, states[-1], player, action))
    best = float("inf")
    for _ in range(3):
        encoder = StateJson()
        encoder.dump(1, states[0])
        started = time.perf_counter()
        for state in states[1:]:
            encoder.dump(1, state)
        best = min(best, (time.perf_counter() - started) / (len(states) - 1))
    return 1e6 * best


def random_action(game: Game[Any, Any], state: GameState, rng: Rng) -> tuple[str, Any]:
    """The bench's own overhead: a random awaited player and a random legal action."""
    player = rng.choice(sorted(game.active_players(state)))
    return player, rng.choice(list(game.legal_actions(state, player)))


def mid_game(game: Game[Any, Any], ids: list[str]) -> GameState:
    """The state halfway through the actions of one random game (seed 0), played untimed."""
    rng = Rng(seed=0)
    states: list[GameState] = [game.setup(ids, game.Options(), 0)]
    while game.outcome(states[-1]) is None:
        player, action = random_action(game, states[-1], rng)
        states.append(apply(game, states[-1], player, action))
    return states[len(states) // 2]


def draw_touched(game: Game[Any, Any], before: GameState, after: GameState, player: str) -> None:
    """The panels a move changed, drawn as the bot draws them after it."""
    touched = game.views_touched(before, after, player)
    private = game.private_panel is not PrivatePanel.NEVER
    if touched is ALL_VIEWS:
        touched = {None, *after.players} if private else {None}
    for viewer in touched:
        if viewer is None:
            game.table(after)
        elif private:
            game.panel(after, viewer)


def bench_case(game: Game[Any, Any], players: int, seconds: float, seed_base: int) -> list[str]:
    ids = [f"p{i}" for i in range(players)]
    games = actions = 0
    applying = drawing = 0.0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        rng = Rng(seed=seed_base + games)
        state = game.setup(ids, game.Options(), seed_base + games)
        while game.outcome(state) is None:
            player, action = random_action(game, state, rng)
            before = time.perf_counter()
            after = apply(game, state, player, action)
            applied = time.perf_counter()
            draw_touched(game, state, after, player)
            applying += applied - before
            drawing += time.perf_counter() - applied
            state = after
            actions += 1
        games += 1
    elapsed = time.perf_counter() - started
    return [
        game.id,
        str(players),
        str(games),
        f"{actions / games:.0f}",
        f"{1e6 * applying / actions:.1f}",
        f"{1e6 * (elapsed - applying - drawing) / actions:.1f}",
        f"{1e6 * drawing / actions:.1f}",
        f"{games / applying:.1f}",
        f"{games / elapsed:.1f}",
        f"{serialise_us(mid_game(game, ids)):.1f}",
        f"{store_json_us(game, ids):.1f}" if game.copy_on_write else "-",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="game ids (default: every registered game)")
    parser.add_argument("--seconds", type=float, default=SECONDS_PER_CASE, help="per case")
    parser.add_argument("--rng", type=int, choices=(1, 2), default=2, help="generator version")
    args = parser.parse_args()
    chosen = [REGISTRY[g] for g in args.games] if args.games else list(REGISTRY.values())
    COLUMNS[0] = ("game", f"<{max(16, 2 + max(len(game.id) for game in chosen))}")
    seed_base = V2_SEEDS if args.rng == 2 else 0
    print(row([name for name, _ in COLUMNS]))
    for game in chosen:
        for players in range(game.min_players, game.max_players + 1):
            print(row(bench_case(game, players, args.seconds, seed_base)), flush=True)


if __name__ == "__main__":
    main()
