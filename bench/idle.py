"""Ten thousand open games: a big server's bot restarted with most of its games idle.

Fills a database with ``--games`` open games of all five kinds, mid-game: ``--templates`` of
them are played through the session service (random legal moves, human and bot seats, until
only people are awaited), the others are copies of those written in bulk (new channels, their
deadlines spread over a week). The local Discord emulator runs in this process, with a channel
per game over ``--guilds`` servers. Then the real bot (``python -m bot``, its own process):

1. *first start*: every game's table message is a placeholder, so the bot shows them all (edits
   every table, sends every DM) and, at its clean stop, records what they show;
2. *restart*, measured: seconds to ready (the gateway's READY) and until the start-up's REST
   calls end, the REST calls it made (beyond the command sync and the gateway), its RSS;
3. *click through* ``--clicks`` games, one click each (a random control offered to a player the
   game awaits, on the table or in their DM), twice over fresh games: RSS after each (flat when
   the caches are bounded);
4. *a tenth played*: clicks arriving at ``--rate`` per second on a tenth of the games: click
   latency (INTERACTION_CREATE to the callback) p50/p99.

Run by hand (the figures are printed):
    .venv/bin/python bench/idle.py [--games 10000] [--clicks 1000] [--rate 40]
        [--bot-root PATH]   (another checkout's bot, e.g. the main branch's: a paired before)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cluster import cpu_seconds  # noqa: E402
from bot.core.seats import is_robot  # noqa: E402
from bot.core.sessions import SessionService  # noqa: E402
from bot.core.store import SessionStatus, open_store  # noqa: E402
from emulator import DiscordEmulator, EmulatorError, Message, RestCall  # noqa: E402
from games import REGISTRY  # noqa: E402
from tests.e2e.harness import controls, press  # noqa: E402

GAMES = ["cafe-carnage", "monster-cafe", "alien-cafe", "breakfast-vs-aliens", "cube-cafe"]
WEEK = 7 * 86400.0
FAILED: list[int] = []  # sessions whose click got no answer
QUIET = 3.0  # seconds without a REST call: the start-up's work is over


@dataclass
class World:
    emu: DiscordEmulator
    guilds: list[int]
    channels: list[tuple[int, int]]  # (guild, channel), one per game
    users: list[int]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def build_world(emu: DiscordEmulator, games: int, guilds: int, users: int) -> World:
    guild_ids = [emu.add_guild(f"Cafe {g}") for g in range(guilds)]
    people = [emu.add_user(f"player{u}", guild=guild_ids[0]) for u in range(users)]
    for guild in guild_ids[1:]:
        for user in people:
            emu.add_member(guild, user)
    channels = []
    for n in range(games):
        guild = guild_ids[n % guilds]
        channels.append((guild, emu.add_text_channel(guild, f"table-{n}")))
    return World(emu, guild_ids, channels, people)


# -- filling --------------------------------------------------------------------------------------
async def template(service: SessionService, world: World, n: int, rng: random.Random) -> int | None:
    """Game ``n`` played for real: a lobby, its seats (some bots), the start, a few random
    moves, then moves until only people are awaited. None: it ended first."""
    game = REGISTRY[GAMES[n % len(GAMES)]]
    guild, channel = world.channels[n]
    seats = rng.randint(max(2, game.min_players), min(4, game.max_players))
    humans = rng.sample(world.users, seats)
    robots = rng.randint(0, seats - 1) if n % 3 == 0 else 0  # a third of the tables: bots too
    host = str(humans[0])
    s = await service.create(
        game_id=game.id,
        channel_id=channel,
        guild_id=guild,
        host_id=host,
        host_name="Host",
        seed=rng.getrandbits(62),
    )
    for user in humans[1 : seats - robots]:
        await service.join(s.id, str(user), f"player{user}")
    for _ in range(robots):
        await service.add_robot(s.id, host)
    s = await service.start(s.id, host)
    moves = rng.randint(1, 12)  # then on until no bot seat is awaited (it would move at start)
    for played in range(200):
        if s.status != SessionStatus.ACTIVE or s.state is None:
            return None
        awaited = sorted(s.game.active_players(s.state))
        if played >= moves and not any(is_robot(p) for p in awaited):
            return s.id
        player = rng.choice(awaited)
        action = rng.choice(list(s.game.legal_actions(s.state, player)))
        s = (await service.act(s.id, player, action.model_dump(mode="json"))).session
    return None


def spread_deadline(rng: random.Random, now: float) -> tuple[float, float]:
    """A deadline somewhere in the week to come, and its reminder (halfway)."""
    deadline = now + rng.uniform(3600, WEEK)
    return deadline, (now + deadline) / 2


async def fill_templates(db: Path, world: World, count: int) -> tuple[list[int], int]:
    """``count`` games played for real, their deadlines spread over the week and their posts
    counted as posted; each table message a placeholder. Returns them and the channels used."""
    store = await open_store(f"sqlite:///{db}")
    service = SessionService(store, cache_size=64)
    rng = random.Random(20261127)
    made: list[int] = []
    n = 0
    while len(made) < count and n < len(world.channels):
        session_id = await template(service, world, n, rng)
        n += 1
        if session_id is not None:
            made.append(session_id)
    await store.close()
    now = time.time()
    con = sqlite3.connect(db)
    with con:
        for t in made:
            deadline, reminder = spread_deadline(rng, now)
            con.execute(
                "UPDATE timers SET due_at = CASE kind WHEN 'deadline' THEN ? ELSE ? END "
                "WHERE session_id = ?",
                (deadline, reminder, t),
            )
        con.execute("UPDATE outbox SET sent_at = ? WHERE sent_at IS NULL", (now,))
        for session_id, guild, channel in con.execute(
            "SELECT id, guild_id, channel_id FROM sessions"
        ).fetchall():
            message = Message(
                id=world.emu.snowflake(),
                channel_id=channel,
                author_id=world.emu.bot_user_id,
                guild_id=guild,
                content="…",
                timestamp="2026-01-01T00:00:00+00:00",
            )
            world.emu._store(message)  # as if the bot had posted it before
            con.execute(
                "UPDATE sessions SET table_message_id = ? WHERE id = ?", (message.id, session_id)
            )
    con.close()
    return made, n


def copied_message(
    emu: DiscordEmulator, source: Message, channel: int, guild: int | None, ids: dict[str, str]
) -> Message:
    """A copy of ``source`` (as the bot posted it) in ``channel``, its text rewritten by
    ``ids`` (the session's id in custom_ids, the deadline's timestamp)."""
    payload = {"content": source.content, "embeds": source.embeds, "components": source.components}
    text = json.dumps(payload)
    for old, new in ids.items():
        text = text.replace(old, new)
    copied = json.loads(text)
    message = replace(
        source,
        id=emu.snowflake(),
        channel_id=channel,
        guild_id=guild,
        history=[],
        **copied,
    )
    emu._store(message)  # as if the bot had posted it before
    return message


def copy_in_bulk(db: Path, world: World, templates: list[int], first: int) -> int:
    """Games ``first``… : copies of the templates as the first start showed them: their rows
    (state, seats, log), their messages (table and DMs, in their own channel), what the bot
    remembers of them (pictures, digests, the version shown), each with its own deadline in
    the week to come. Returns how many."""
    emu = world.emu
    now = time.time()
    con = sqlite3.connect(db)
    rng = random.Random(1)
    cols = [r[1] for r in con.execute("PRAGMA table_info(sessions)") if r[1] != "id"]
    source = {
        t: dict(
            zip(
                cols,
                con.execute(
                    f"SELECT {', '.join(cols)} FROM sessions WHERE id = ?", (t,)
                ).fetchone(),
                strict=True,
            )
        )
        for t in templates
    }
    players = {
        t: con.execute(
            "SELECT user_id, seat, name, dm_channel_id, dm_message_id, dm_stamp, dm_digest "
            "FROM players WHERE session_id = ?",
            (t,),
        ).fetchall()
        for t in templates
    }
    actions = {
        t: con.execute(
            "SELECT seq, player, action, source, created_at, undoes FROM actions "
            "WHERE session_id = ?",
            (t,),
        ).fetchall()
        for t in templates
    }
    timers = {
        t: con.execute("SELECT kind, key, due_at FROM timers WHERE session_id = ?", (t,)).fetchall()
        for t in templates
    }
    memo = dict(con.execute("SELECT key, value FROM meta WHERE key LIKE 'memo:%'").fetchall())
    next_id = con.execute("SELECT MAX(id) FROM sessions").fetchone()[0] + 1
    session_rows, player_rows, action_rows, timer_rows, meta_rows = [], [], [], [], []
    copies = 0
    for n in range(first, len(world.channels)):
        t = templates[n % len(templates)]
        guild, channel = world.channels[n]
        row = dict(source[t])
        ids = {f'"cb:{k}:{t}:': f'"cb:{k}:{next_id}:' for k in "glaoruq"}
        ids |= {f'"cb:{k}:{t}"': f'"cb:{k}:{next_id}"' for k in "rq"}
        deadline, reminder = spread_deadline(rng, now)
        for kind, _, due in timers[t]:
            if kind == "deadline":
                ids[f"<t:{int(due)}:"] = f"<t:{int(deadline)}:"
        table = copied_message(emu, emu.get_message(row["table_message_id"]), channel, guild, ids)
        pictures = memo.get(f"memo:pictures:{row['table_message_id']}")
        if pictures is not None:
            meta_rows.append((f"memo:pictures:{table.id}", pictures))
        if f"memo:table:{t}" in memo:
            meta_rows.append((f"memo:table:{next_id}", memo[f"memo:table:{t}"]))
        if f"memo:shown:{t}" in memo:
            meta_rows.append((f"memo:shown:{next_id}", memo[f"memo:shown:{t}"]))
        row |= {
            "guild_id": guild,
            "channel_id": channel,
            "table_message_id": table.id,
            "created_at": now,
            "updated_at": now,
        }
        session_rows.append((next_id, *row.values()))
        for user_id, seat, name, dm_channel, dm_message, stamp, digest in players[t]:
            if dm_message is not None:
                dm = copied_message(emu, emu.get_message(dm_message), dm_channel, None, ids)
                pictures = memo.get(f"memo:pictures:{dm_message}")
                if pictures is not None:
                    meta_rows.append((f"memo:pictures:{dm.id}", pictures))
                dm_message = dm.id
            player_rows.append(
                (next_id, user_id, seat, name, dm_channel, dm_message, stamp, digest)
            )
        action_rows += [(next_id, *a) for a in actions[t]]
        for kind, key, _ in timers[t]:
            timer_rows.append((next_id, kind, key, deadline if kind == "deadline" else reminder))
        next_id += 1
        copies += 1
    marks = ", ".join("?" for _ in range(len(cols) + 1))
    with con:
        con.executemany(
            f"INSERT INTO sessions (id, {', '.join(cols)}) VALUES ({marks})", session_rows
        )
        con.executemany(
            "INSERT INTO players (session_id, user_id, seat, name, dm_channel_id, dm_message_id, "
            "dm_stamp, dm_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            player_rows,
        )
        con.executemany(
            "INSERT INTO actions (session_id, seq, player, action, source, created_at, undoes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            action_rows,
        )
        con.executemany(
            "INSERT INTO timers (session_id, kind, key, due_at) VALUES (?, ?, ?, ?)", timer_rows
        )
        con.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta_rows)
    con.close()
    return copies


# -- the bot --------------------------------------------------------------------------------------
class Bot:
    def __init__(self, world: World, db: Path, bot_root: Path, folder: Path) -> None:
        self.world, self.db, self.bot_root, self.folder = world, db, bot_root, folder
        self.process: asyncio.subprocess.Process | None = None
        self.cache: int | None = None  # session_cache_size (None: the bot's default)

    async def start(self) -> float:
        """Start it; the seconds until it is ready (the gateway's READY)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CAFEBOT_", "DISCORD_"))}
        env |= self.world.emu.env() | {
            "CAFEBOT_DATABASE_URL": f"sqlite:///{self.db}",
            "CAFEBOT_GUILD_READY_TIMEOUT": "0.05",
            "CAFEBOT_LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "WARNING"),
            "PYTHONPATH": str(self.bot_root),
        }
        if self.cache is not None:
            env["CAFEBOT_SESSION_CACHE_SIZE"] = str(self.cache)
        started = time.perf_counter()
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=self.folder, env=env
        )
        await self.world.emu.wait_for_bot_ready(timeout=600)
        return time.perf_counter() - started

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def stop(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)  # a clean stop
        await self.process.wait()
        self.process = None


async def settled(emu: DiscordEmulator, pid: int) -> float:
    """Wait until the bot is idle (under 5 % of a core and no REST call, QUIET seconds in a
    row); returns the seconds until it became so."""
    started = time.perf_counter()
    calls, cpu = len(emu.rest_calls), cpu_seconds([pid])
    idle_since: float | None = None
    while True:
        await asyncio.sleep(0.5)
        now_calls, now_cpu = len(emu.rest_calls), cpu_seconds([pid])
        if now_calls == calls and now_cpu - cpu < 0.025:
            if idle_since is None:
                idle_since = time.perf_counter()
            elif time.perf_counter() - idle_since >= QUIET:
                return idle_since - started
        else:
            idle_since = None
        calls, cpu = now_calls, now_cpu


def game_calls(calls: list[RestCall], game_of: dict[str, str] | None = None) -> Counter[str]:
    """The calls about games (not the command sync, the gateway, the bot's own user), by kind
    (and by game, for the channels in ``game_of``)."""
    kinds: Counter[str] = Counter()
    for call in calls:
        if call.path.startswith(("/applications/", "/gateway", "/oauth2", "/users/@me")) and not (
            call.path.endswith("/channels")
        ):
            continue
        channel = call.path.split("/")[2] if call.path.startswith("/channels/") else ""
        where = f" ({game_of[channel]})" if game_of and channel in game_of else ""
        if "/messages/" in call.path and call.method == "PATCH":
            kinds["edit a message" + where] += 1
        elif call.path.endswith("/messages") and call.method == "POST":
            kinds["send a message" + where] += 1
        elif call.path.endswith("/users/@me/channels"):
            kinds["open a DM channel"] += 1
        else:
            kinds[f"{call.method} {call.path.split('/')[1]}"] += 1
    return kinds


# -- clicking -------------------------------------------------------------------------------------
async def one_click(
    world: World, service: SessionService, session_id: int, rng: random.Random
) -> float | None:
    """A player the game awaits clicks a random control offered to them (the table's, or their
    DM's). Returns the click's latency (None: nothing to click)."""
    s = await service.reload(session_id)  # the bot's process changes it: read it anew
    if s.state is None or s.status != SessionStatus.ACTIVE:
        return None
    emu = world.emu
    people = [p for p in sorted(s.game.active_players(s.state)) if not is_robot(p)]
    rng.shuffle(people)
    for player in people:
        seat = s.player(player)
        found = []
        if s.row.table_message_id is not None:
            found += controls(emu.get_message(s.row.table_message_id), s.id)
        if seat is not None and seat.dm_message_id is not None:
            found += controls(emu.get_message(seat.dm_message_id), s.id)
        if found:
            try:
                result = await press(emu, int(player), rng.choice(found))
            except EmulatorError:
                FAILED.append(session_id)
                return None
            return result.latency
    return None


async def click_through(
    world: World, service: SessionService, sessions: list[int], in_flight: int = 8
) -> list[float]:
    rng = random.Random(len(sessions))
    latencies: list[float] = []
    queue = list(sessions)

    async def worker() -> None:
        while queue:
            latency = await one_click(world, service, queue.pop(), rng)
            if latency is not None:
                latencies.append(latency)

    await asyncio.gather(*(worker() for _ in range(in_flight)))
    return latencies


async def played_at_rate(
    world: World, service: SessionService, sessions: list[int], rate: float, clicks: int
) -> list[float]:
    """Clicks arriving at ``rate`` per second (open loop), each on a random game of ``sessions``
    that has no click in flight."""
    rng = random.Random(7)
    latencies: list[float] = []
    busy: set[int] = set()
    tasks: set[asyncio.Task[None]] = set()

    async def click(session_id: int) -> None:
        try:
            latency = await one_click(world, service, session_id, rng)
            if latency is not None:
                latencies.append(latency)
        finally:
            busy.discard(session_id)

    started = time.perf_counter()
    for n in range(clicks):
        await asyncio.sleep(max(0.0, started + n / rate - time.perf_counter()))
        free = [s for s in rng.sample(sessions, min(len(sessions), 20)) if s not in busy]
        if not free:
            continue
        busy.add(free[0])
        task = asyncio.create_task(click(free[0]))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks)
    return latencies


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- the run --------------------------------------------------------------------------------------
async def run(args: argparse.Namespace) -> None:
    # Discord's 3 s to acknowledge, stretched: a loaded machine must not end the run (the clicks
    # answered later than 3 s are counted and printed).
    async with DiscordEmulator(emit_message_events=False, ack_deadline=30.0) as emu:
        world = build_world(emu, args.games, args.guilds, args.users)
        with tempfile.TemporaryDirectory(prefix="cafebot-idle-") as tmp:
            folder = Path(tmp)
            db = folder / "cafebot.sqlite3"
            t0 = time.perf_counter()
            templates, used = await fill_templates(db, world, args.templates)
            played = time.perf_counter() - t0
            bot = Bot(world, db, Path(args.bot_root).resolve(), folder)
            bot.cache = args.cache
            # 1. The first start shows the games played (their tables were placeholders).
            mark = len(emu.rest_calls)
            ready = await bot.start()
            took = ready + await settled(emu, bot.pid)
            first = game_calls(emu.rest_calls[mark:])
            cpu = cpu_seconds([bot.pid])
            placeholders = sum(
                1
                for _, channel in world.channels[:used]
                for m in emu.channel_messages(channel)
                if m.current_text() == "…"
            )
            await bot.stop()
            print(
                f"{len(templates)} games played in {played:.0f} s; the first start drew them in "
                f"{took:.0f} s (CPU {cpu:.0f} s): {sum(first.values())} calls; "
                f"{placeholders} tables left undrawn"
            )
            t0 = time.perf_counter()
            copies = copy_in_bulk(db, world, templates, used)
            copied = time.perf_counter() - t0
            con = sqlite3.connect(db)
            kinds = Counter(
                g for (g,) in con.execute("SELECT game_id FROM sessions WHERE status = 'active'")
            )
            open_games = sum(kinds.values())
            con.close()
            print(
                f"{copies} copies written in bulk in {copied:.1f} s: {open_games} open games, "
                + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
            )

            # 2. The restart, measured.
            mark = len(emu.rest_calls)
            ready = await bot.start()
            cpu_ready = cpu_seconds([bot.pid])
            done = ready + await settled(emu, bot.pid)
            con = sqlite3.connect(db)
            game_of = {
                str(c): g for c, g in con.execute("SELECT channel_id, game_id FROM sessions")
            }
            con.close()
            restart = game_calls(emu.rest_calls[mark:], game_of)
            cpu_settled = cpu_seconds([bot.pid])
            rss_start = rss_mb(bot.pid)
            print(
                f"restart: ready in {ready:.2f} s (CPU {cpu_ready:.2f} s), start-up calls over "
                f"after {done:.1f} s (CPU {cpu_settled:.2f} s)"
            )
            print(
                f"restart: {sum(restart.values())} REST calls about games "
                f"({dict(restart) or 'none'}); RSS {rss_start:.0f} MB"
            )

            # 3. Click through fresh games, twice.
            store = await open_store(f"sqlite:///{db}")
            service = SessionService(store, cache_size=16)
            con = sqlite3.connect(db)
            active = [i for (i,) in con.execute("SELECT id FROM sessions WHERE status = 'active'")]
            con.close()
            random.Random(3).shuffle(active)
            rss = [rss_start]
            for batch in range(2):
                chosen = active[batch * args.clicks : (batch + 1) * args.clicks]
                cpu0 = cpu_seconds([bot.pid])
                latencies = await click_through(world, service, chosen)
                await settled(emu, bot.pid)
                rss.append(rss_mb(bot.pid))
                cpu = cpu_seconds([bot.pid]) - cpu0
                print(
                    f"clicked through {len(chosen)} games ({len(latencies)} clicks): RSS "
                    f"{rss[-1]:.0f} MB, click p50 {pct(latencies, 0.5) * 1000:.0f} ms p99 "
                    f"{pct(latencies, 0.99) * 1000:.0f} ms ({sum(x > 3 for x in latencies)} over 3 s), "
                    f"bot CPU {cpu:.1f} s"
                )

            # 4. A tenth of them played, clicks at a steady rate.
            played = active[2 * args.clicks :][: max(1, open_games // 10)]
            cpu0 = cpu_seconds([bot.pid])
            t0 = time.perf_counter()
            latencies = await played_at_rate(world, service, played, args.rate, args.play_clicks)
            took = time.perf_counter() - t0
            cpu = cpu_seconds([bot.pid]) - cpu0
            rss.append(rss_mb(bot.pid))
            print(
                f"a tenth played ({len(played)} games, {len(latencies)} clicks offered at "
                f"{args.rate:.0f}/s, answered at {len(latencies) / took:.1f}/s): click p50 "
                f"{pct(latencies, 0.5) * 1000:.0f} ms, p99 {pct(latencies, 0.99) * 1000:.0f} ms "
                f"({sum(x > 3 for x in latencies)} over 3 s), bot CPU {cpu:.1f} s "
                f"({cpu / max(1, len(latencies)) * 1000:.1f} ms a click); RSS {rss[-1]:.0f} MB"
            )
            print(
                f"click p99 while a tenth are played: {pct(latencies, 0.99) * 1000:.0f} ms "
                f"at {len(latencies) / took:.1f} clicks/s"
            )
            print(
                "RSS (MB) after start, each 1,000 games, the played tenth: "
                + " → ".join(f"{r:.0f}" for r in rss)
            )
            await store.close()
            await bot.stop()
            print(f"429s: {len(emu.rate_limited)}; clicks unanswered: {len(FAILED)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--templates", type=int, default=200, help="games played for real")
    parser.add_argument("--guilds", type=int, default=20)
    parser.add_argument("--users", type=int, default=60)
    parser.add_argument("--clicks", type=int, default=1000, help="games clicked through, twice")
    parser.add_argument("--rate", type=float, default=40.0, help="clicks/s on the played tenth")
    parser.add_argument("--play-clicks", type=int, default=2000)
    parser.add_argument("--cache", type=int, help="the bot's session_cache_size")
    parser.add_argument("--bot-root", default=str(ROOT), help="the checkout whose bot runs")
    args = parser.parse_args()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
