"""Replay pages of a long game: milliseconds to draw one step (the Replay screen's click), and
to replay the stored record once (its first opening; later ones reuse it).

Plays a game of at least 900 moves through the session service (random legal moves, 8 seats of
Café Carnage, or Alien Café), then draws pages across it as a click would: the step as the
viewer may see it (bot/core/replays.py) and its embeds and buttons (bot/adapter/replays.py).
Run by hand:
    .venv/bin/python bench/replay.py [--moves 900] [--repeat 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.adapter.items import Handlers, make_items
from bot.adapter.replays import replay_page
from bot.core.sessions import Session, SessionService
from bot.core.store.sqlite import SqliteStore
from games import REGISTRY
from games.engine import apply, new_game
from games.rng import Rng

GUILD = 1


def long_seed(game_id: str, players: int, moves: int) -> int | None:
    """A seed whose random game (same move choices as play()) lasts at least ``moves``."""
    game = REGISTRY[game_id]
    ids = [str(1000 + n) for n in range(players)]
    for seed in range(1, 60):
        rng, state, played = Rng(seed=seed), new_game(game, ids, game.Options(), seed), 0
        while game.outcome(state) is None:
            player = rng.choice(sorted(p for p in state.players if p in game.active_players(state)))
            state = apply(game, state, player, rng.choice(list(game.legal_actions(state, player))))
            played += 1
        if played >= moves:
            return seed
    return None


async def play(service: SessionService, game_id: str, players: int, seed: int) -> Session:
    ids = [str(1000 + n) for n in range(players)]
    s = await service.create(
        game_id=game_id, channel_id=1, guild_id=GUILD, host_id=ids[0], host_name="P0", seed=seed
    )
    for n, pid in enumerate(ids[1:], start=1):
        await service.join(s.id, pid, f"P{n}")
    s = await service.start(s.id, ids[0])
    rng, game = Rng(seed=seed), s.game
    while s.status == "active":
        assert s.state is not None
        player = rng.choice(sorted(p for p in s.state.players if p in game.active_players(s.state)))
        action = rng.choice(list(game.legal_actions(s.state, player)))
        s = (await service.act(s.id, player, action.model_dump(mode="json"))).session
    return s


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=900)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    async def nothing(*_: Any) -> None:
        return None

    items = make_items(
        Handlers(
            *([nothing] * 9),
            on_error=nothing,
            replay_button=nothing,  # type: ignore[arg-type]
            replay_round=nothing,
            replay_pick=nothing,
        )
    )
    for game_id, players in (("cafe-carnage", 8), ("alien-cafe", 4)):
        seed = long_seed(game_id, players, args.moves)
        if seed is None:
            print(f"{game_id}: no game of {args.moves} moves in 60 seeds")
            continue
        with tempfile.TemporaryDirectory(prefix="cafebot-replay-") as tmp:
            store = await SqliteStore.open(Path(tmp) / "replay.sqlite3", "OFF")
            try:
                service = SessionService(store)
                s = await play(service, game_id, players, seed)
                started = time.perf_counter()
                replay = await service.replay_of(s.id, GUILD)
                first = (time.perf_counter() - started) * 1000
                viewer = "1001"
                steps = [round(i * replay.last / (args.repeat - 1)) for i in range(args.repeat)]
                replay_page(replay, 0, viewer, items)  # warm-up
                times = []
                for step in steps:
                    t = time.perf_counter()
                    replay_page(replay, step, viewer, items)
                    times.append((time.perf_counter() - t) * 1000)
                times.sort()
                print(
                    f"{game_id} ({players} seats, {replay.last} moves): replayed once in "
                    f"{first:.0f} ms; a page: median {statistics.median(times):.2f} ms, "
                    f"p95 {times[int(len(times) * 0.95)]:.2f} ms, max {times[-1]:.2f} ms"
                )
            finally:
                await store.close()


if __name__ == "__main__":
    asyncio.run(main())
