"""The bot as ``python -m bot`` runs it, its new games' seeds drawn in turn from ``BENCH_SEED``:
a benchmark's runs, opening their tables in the same order, play the same games.

    BENCH_SEED=1 .venv/bin/python bench/seeded_bot.py
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path


def main() -> int:
    # Imported here, not above: the hard bots' worker processes start from a process that
    # loads this file, and they need none of it.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bot.app import run_bot
    from bot.core.config import load_settings
    from games.rng import V2_SEEDS

    seeds = random.Random(int(os.environ["BENCH_SEED"]))
    return run_bot(load_settings(), new_seed=lambda: V2_SEEDS | seeds.getrandbits(62))


if __name__ == "__main__":
    sys.exit(main())
