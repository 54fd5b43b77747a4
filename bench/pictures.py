"""Milliseconds per render and bytes per image of every game that draws pictures.

Pictures come from the panels of random legal games (the table's and each private panel's), so
the specs are the ones players would see; each distinct spec is drawn REPEAT times.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import REGISTRY
from games.engine import Game, apply
from games.rng import Rng

GAMES_PER_CASE = 3
REPEAT = 3
SAMPLE_EVERY = 15  # actions between sampled states


def sample_specs(game: Game[Any, Any], players: int, seed: int) -> list[dict[str, Any]]:
    """The picture specs of the panels seen during one random game, sampled along the way."""
    rng = Rng(seed=seed)
    ids = [f"p{i}" for i in range(players)]
    state = game.setup(ids, game.Options(), seed)
    specs: list[dict[str, Any]] = []
    step = 0
    while True:
        if step % SAMPLE_EVERY == 0 or game.outcome(state) is not None:
            panels = game.table(state) + [game.panel(state, p) for p in ids]
            specs += [p.image.spec for p in panels if p.image is not None]
        if game.outcome(state) is not None:
            return specs
        player = rng.choice(sorted(game.active_players(state)))
        state = apply(game, state, player, rng.choice(list(game.legal_actions(state, player))))
        step += 1


def main() -> None:
    print(
        f"{'game':<16}{'players':>8}{'images':>8}{'ms/render':>11}{'max ms':>9}{'bytes':>9}{'max':>9}"
    )
    for game in REGISTRY.values():
        if type(game).draw is Game.draw:
            continue
        for players in range(game.min_players, game.max_players + 1):
            unique: dict[str, dict[str, Any]] = {}
            for seed in range(GAMES_PER_CASE):
                for spec in sample_specs(game, players, seed):
                    unique[json.dumps(spec, sort_keys=True)] = spec
            times: list[float] = []
            sizes: list[int] = []
            for spec in unique.values():
                for _ in range(REPEAT):
                    started = time.perf_counter()
                    png = game.draw(spec)
                    times.append(1000 * (time.perf_counter() - started))
                sizes.append(len(png))
            print(
                f"{game.id:<16}{players:>8}{len(unique):>8}{statistics.mean(times):>11.1f}"
                f"{max(times):>9.1f}{statistics.mean(sizes):>9.0f}{max(sizes):>9}"
            )


if __name__ == "__main__":
    main()
