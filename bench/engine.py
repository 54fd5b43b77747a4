"""Full random games per second, for each registered game and player count (pure engine)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import REGISTRY
from games.engine import apply
from games.rng import Rng

SECONDS_PER_CASE = 2.0


def main() -> None:
    print(
        f"{'game':<16}{'players':>8}{'games':>8}{'games/s':>10}{'actions/game':>14}{'µs/action':>11}"
    )
    for game in REGISTRY.values():
        for players in range(game.min_players, game.max_players + 1):
            ids = [f"p{i}" for i in range(players)]
            games = actions = 0
            started = time.perf_counter()
            while time.perf_counter() - started < SECONDS_PER_CASE:
                rng = Rng(seed=games)
                state = game.setup(ids, game.Options(), games)
                while game.outcome(state) is None:
                    player = rng.choice(sorted(game.active_players(state)))
                    state = apply(
                        game, state, player, rng.choice(list(game.legal_actions(state, player)))
                    )
                    actions += 1
                games += 1
            elapsed = time.perf_counter() - started
            print(
                f"{game.id:<16}{players:>8}{games:>8}{games / elapsed:>10.1f}"
                f"{actions / games:>14.0f}{1e6 * elapsed / actions:>11.0f}"
            )


if __name__ == "__main__":
    main()
