"""The bot under load: 100 concurrent Café Carnage sessions against the local Discord emulator.

The bot runs as its own process (`python -m bot`, as in production); this process runs the
emulator and plays every seat, each player clicking their picks and Confirm as fast as the
clicks are acknowledged. Prints interactions/s, latency from INTERACTION_CREATE to the
callback (p50/p99), REST calls per round per player by kind, the bot processes' CPU seconds
per 1,000 interactions, and the same clicks sent to a bare discord.py bot that only
acknowledges them (the library's own limit). Run by hand:
    .venv/bin/python bench/bot.py [--sessions 100] [--players 4] [--rounds 2]
        [--database-url sqlite | embedded | postgresql://…] [--processes 2] [--via mixed]
``--processes 2``: a cluster of two bot processes (one shard each) on one PostgreSQL;
``--via mixed``: the players of every other table play in the channel (/game hand), so their
clicks reach the guild's shard while DM clicks reach shard 0 (compare 1 and 2 processes with
it: the same clicks either way).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cluster import bare_baseline, cpu_seconds, database, play_seat_in_channel  # noqa: E402
from emulator import DiscordEmulator, EmulatorError, RestCall  # noqa: E402

CONFIRM = "Confirm order & ballot"


def kind_of(call: RestCall, dm_channels: set[str]) -> str:
    method, path = call.method, call.path
    if "/callback" in path:
        return "interaction callback"
    if path.startswith("/webhooks/"):
        return "followup"
    if path.endswith("/users/@me/channels"):
        return "open DM channel"
    channel = path.split("/")[3] if path.startswith("/api/") else path.split("/")[2]
    where = "DM" if channel in dm_channels else "channel"
    if method == "POST" and path.endswith("/messages"):
        return f"{where} message sent"
    if method == "PATCH":
        return f"{where} message edited"
    return f"{method} {path.split('?')[0]}"


def new_menu(emu: DiscordEmulator, user: int, played: set[int]) -> int | None:
    for message in reversed(emu.dm_messages(user)):
        if message.id not in played and emu.get_message(message.id).selects():
            return message.id
    return None


class Pace:
    """Open-loop arrivals: clicks leave at ``rate`` per second in all (0: as fast as acked)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.next_slot = 0.0

    async def wait(self) -> None:
        if self.rate <= 0:
            return
        now = time.perf_counter()
        slot = max(now, self.next_slot)
        self.next_slot = slot + 1 / self.rate
        await asyncio.sleep(slot - now)


PACE = Pace(0)


async def play_seat(
    emu: DiscordEmulator, user: int, played: set[int], latencies: list[float]
) -> None:
    """Order and confirm in the player's new menu."""
    message_id = new_menu(emu, user, played)
    assert message_id is not None
    played.add(message_id)
    message = emu.get_message(message_id)
    for index in range(4):
        custom_id, options = emu.get_message(message.id).selects()[index]
        await PACE.wait()
        result = await emu.select(user, message.id, custom_id, [options[0][1]])
        latencies.append(result.latency)
        if result.type != 6:
            print("refused:", result.message.current_text()[:200] if result.message else result)

    def confirm_enabled() -> bool:
        buttons = emu.get_message(message.id).buttons()
        return any(label == CONFIRM and not disabled for label, _, disabled in buttons)

    # As a player would: Confirm once the DM shows all four choices made.
    await emu.wait_until(confirm_enabled, timeout=60)
    await PACE.wait()
    result = await emu.click(user, message.id, emu.get_message(message.id).button(CONFIRM))
    latencies.append(result.latency)


async def wait_for_menus(emu: DiscordEmulator, users: list[int], played: set[int]) -> None:
    await emu.wait_until(lambda: all(new_menu(emu, u, played) for u in users), timeout=120)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--in-flight",
        choices=["session", "player"],
        default="session",
        help="session: one click in flight per session (the players of a table take turns); "
        "player: every player clicks at once",
    )
    parser.add_argument(
        "--rate", type=float, default=0, help="clicks per second in all (0: as fast as acked)"
    )
    parser.add_argument("--database-url", default="sqlite", help="sqlite, embedded or a URL")
    parser.add_argument("--processes", type=int, choices=[1, 2], default=1)
    parser.add_argument("--via", choices=["dm", "mixed"], default="dm")
    parser.add_argument("--no-baseline", action="store_true", help="skip the bare bot")
    args = parser.parse_args()
    if args.processes > 1 and args.database_url == "sqlite":
        parser.error("several bot processes need PostgreSQL: --database-url embedded")

    async with DiscordEmulator(shard_count=args.processes) as emu:
        guild = emu.add_guild("Bench")
        guilds = [guild]
        if args.processes > 1 or args.via == "mixed":  # a guild on the last shard too
            guilds.append(emu.add_guild("Bench B", shard=args.processes - 1))
        tables = []
        for n in range(args.sessions):
            where = guilds[n % len(guilds)]
            channel = emu.add_text_channel(where, f"table-{n}")
            users = [emu.add_user(f"p{n}-{i}", guild=where) for i in range(args.players)]
            tables.append((channel, users))
        in_channel = {c for n, (c, _) in enumerate(tables) if args.via == "mixed" and n % 2}
        with (
            tempfile.TemporaryDirectory(prefix="cafebot-bench-") as tmp,
            database(args.database_url, Path(tmp)) as url,
        ):
            env = {
                k: v for k, v in os.environ.items() if not k.startswith(("CAFEBOT_", "DISCORD_"))
            }
            env |= emu.env() | {
                "CAFEBOT_DATABASE_URL": url,
                "CAFEBOT_GUILD_READY_TIMEOUT": "0.05",
                "CAFEBOT_LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "WARNING"),
                "PYTHONPATH": str(ROOT),
            }
            if len(guilds) == 1:
                env["CAFEBOT_DEV_GUILD_ID"] = str(guild)
            profile = os.environ.get("BENCH_PROFILE")  # a path: run the bot under cProfile
            bots = []
            for index in range(args.processes):
                command = ["-m", "bot"]
                if profile:
                    out = profile if args.processes == 1 else f"{profile}.{index}"
                    command = ["-m", "cProfile", "-o", out, *command]
                cluster = {"CAFEBOT_CLUSTER_INDEX": str(index)} if args.processes > 1 else {}
                if cluster:
                    cluster["CAFEBOT_CLUSTER_COUNT"] = str(args.processes)
                bots.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable, *command, cwd=tmp, env=env | cluster
                    )
                )
            try:
                await emu.wait_for_bot_ready(timeout=60)

                async def open_table(channel: int, users: list[int]) -> None:
                    result = await emu.slash(
                        users[0], channel, "game new", {"game": "cafe-carnage"}
                    )
                    table = await result.final()
                    for user in users[1:]:
                        await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
                    await emu.click(users[0], table.id, emu.get_message(table.id).button("Start"))

                await asyncio.gather(*(open_table(c, u) for c, u in tables))
                everyone = [u for _, users in tables for u in users]
                played: set[int] = set()
                await wait_for_menus(emu, everyone, played)
                dm_channels = {str(emu.dm_channel_id(u)) for u in everyone}

                PACE.rate = args.rate
                latencies: list[float] = []
                calls_before = len(emu.rest_calls)
                pids = [b.pid for b in bots]
                cpu_before = cpu_seconds(pids)
                started = time.perf_counter()

                async def seat(channel: int, user: int) -> None:
                    if channel not in in_channel:
                        await play_seat(emu, user, played, latencies)
                        return
                    menu = new_menu(emu, user, played)  # shown by DM, played in the channel
                    assert menu is not None
                    played.add(menu)
                    await play_seat_in_channel(emu, user, channel, latencies)

                for round_number in range(1, args.rounds + 1):
                    if args.in_flight == "player":
                        await asyncio.gather(*(seat(c, u) for c, users in tables for u in users))
                    else:

                        async def play_table(channel: int, users: list[int]) -> None:
                            for user in users:
                                await seat(channel, user)

                        await asyncio.gather(*(play_table(c, users) for c, users in tables))
                    if round_number < args.rounds:
                        await wait_for_menus(emu, everyone, played)
                elapsed = time.perf_counter() - started
                cpu = cpu_seconds(pids) - cpu_before
                # Let the last round's reveals, table edits and new DMs go out.
                await wait_for_menus(emu, everyone, played)
                await asyncio.sleep(1.0)
                calls = emu.rest_calls[calls_before:]
                # The bare bot's clicks: on each table's next menu, one in flight per table
                # (per player with --in-flight player), as many as the bot got.
                menus = [
                    (u, m)
                    for _, users in tables
                    for u in (users if args.in_flight == "player" else users[:1])
                    if (m := new_menu(emu, u, played)) is not None
                ]
            finally:
                for bot in bots:
                    bot.send_signal(signal.SIGINT)  # a clean stop (writes the profile, if any)
                for bot in bots:
                    await bot.wait()
        clicks = len(latencies)
        bare: tuple[float, float] | None = None
        if not args.no_baseline:
            bare = await bare_baseline(emu, menus, clicks, args.processes)
        unclean: EmulatorError | None = None
        try:
            emu.assert_clean()
        except EmulatorError as exc:  # raised after the figures are printed
            unclean = exc

    seats = len(everyone) * args.rounds
    kinds = Counter(kind_of(c, dm_channels) for c in calls)
    pace = f"clicks arriving at {args.rate:.0f}/s" if args.rate else "clicks as fast as acked"
    print(
        f"{args.sessions} sessions × {args.players} players × {args.rounds} rounds, bot in its own "
        f"process, one click in flight per {args.in_flight}, {pace}"
    )
    print(f"interactions: {clicks} in {elapsed:.1f} s = {clicks / elapsed:.0f}/s")
    q = statistics.quantiles(latencies, n=100)
    print(
        f"INTERACTION_CREATE → callback: p50 {q[49] * 1000:.1f} ms, p99 {q[98] * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
    )
    print(
        f"REST calls per round per player: {len(calls) / seats:.2f} ({len(calls)} in all), of which:"
    )
    for kind, count in kinds.most_common():
        print(f"  {kind:<28}{count / seats:6.2f}")
    print(
        f"clicks per round per player: {clicks / seats:.0f} (so callbacks alone are {clicks / seats:.0f})"
    )
    kind = "SQLite" if url.startswith("sqlite") else "PostgreSQL"
    print(
        f"bot process(es): {args.processes} on {kind}, clicks {args.via}; CPU {cpu:.1f} s = "
        f"{1000 * cpu / clicks:.2f} CPU s per 1,000 interactions"
    )
    if bare is not None:
        rate, bare_cpu = bare
        print(
            f"bare discord.py bot (acknowledges only, same clicks): {rate:.0f} interactions/s, "
            f"{bare_cpu:.2f} CPU s per 1,000; ours = {100 * clicks / elapsed / rate:.0f}% of its rate"
        )
    if unclean is not None:
        raise unclean


if __name__ == "__main__":
    asyncio.run(main())
