"""Milliseconds per render and bytes per image of every game that draws pictures, and what the
bot's picture cache saves.

Pictures come from the panels of random legal games (the table's and each private panel's), so
the specs are the ones players would see; each distinct spec is drawn REPEAT times. The cache
line asks the bot's cache (bot.adapter.pictures) for each distinct spec of the largest table
twice, as a move asks for a player's picture on their DM and again on the table: draws made,
and ms per ask.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.adapter.pictures import PictureRef, Pictures
from games import REGISTRY
from games.engine import Game, apply
from games.presentation import Picture
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


async def through_cache(game: Game[Any, Any], players: int, specs: list[dict[str, Any]]) -> str:
    """Each spec asked for twice from a fresh cache: draws made, ms per first and second ask."""
    pictures = Pictures(capacity=len(specs) + 1)
    refs = [PictureRef.of(Picture(name="p.png", alt="", spec=spec)) for spec in specs]
    seconds = []
    for _ in range(2):
        started = time.perf_counter()
        for ref in refs:
            await pictures.png(game, ref)
        seconds.append(time.perf_counter() - started)
    stats = pictures.stats
    first, second = (1000 * s / len(refs) for s in seconds)
    return (
        f"{game.id}, {players} players: {2 * len(refs)} asks for {len(refs)} specs (each twice) -> "
        f"{stats.renders} draws, {stats.cache_hits} cache hits; "
        f"{first:.1f} ms per first ask, {second:.3f} ms per second"
    )


def main() -> None:
    print(
        f"{'game':<16}{'players':>8}{'images':>8}{'ms/render':>11}{'max ms':>9}{'bytes':>9}{'max':>9}"
    )
    cache_lines: list[str] = []
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
        cache_lines.append(asyncio.run(through_cache(game, players, list(unique.values()))))
    print("\nthe bot's picture cache (bot.adapter.pictures):")
    for line in cache_lines:
        print(f"  {line}")


if __name__ == "__main__":
    main()
