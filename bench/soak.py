"""The long crash soak: the bot as its own process under click load, killed with kill -9 and
restarted many times. Prints what held (see tests/e2e/crashes.py). Run by hand (`make soak`):
    .venv/bin/python bench/soak.py [--sessions 8] [--kills 12] [--moves-between-kills 150]
        [--game monster-cafe]   (any game: those played by DM are played in the DMs)
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

from tests.e2e.crashes import soak  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--moves-between-kills", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", default="monster-cafe")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cafebot-soak-") as tmp:
        started = time.perf_counter()
        result = asyncio.run(
            soak(
                Path(tmp),
                sessions=args.sessions,
                kills=args.kills,
                seed=args.seed,
                game=args.game,
                moves_between_kills=args.moves_between_kills,
            )
        )
        print(result.table())
        print(f"{'seconds':<42}{time.perf_counter() - started:.1f}")
    ok = (
        result.lost == 0
        and result.duplicate_posts == 0
        and result.missing_posts == 0
        and result.replay_mismatches == 0
        and result.integrity == "ok"
        and result.finished == result.sessions
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
