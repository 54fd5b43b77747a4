"""kill -9 under load: the bot as its own process, players clicking in several games at once
(on the table message, or in their newest DM of the game when it is played by DM), the process
killed and restarted at random moments. Used by tests/e2e/test_crash_e2e.py (a
short run) and bench/soak.py (a long one).

What must hold afterwards: every move a player was told had happened (their click was
acknowledged) is in the log, every session replays exactly from its seed and log, SQLite's
integrity check passes, every game finishes, and every announcement was posted exactly once.
"""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.sessions import SessionService
from bot.core.store import SessionStatus
from bot.core.store.sqlite import SqliteStore
from emulator import DiscordEmulator, EmulatorError, Message
from games.rng import Rng
from tests.e2e.harness import (
    Control,
    bot_process_env,
    controls,
    game_messages,
    press,
    start_bot_process,
)


@dataclass
class SoakResult:
    kills: int = 0
    clicks: int = 0
    acknowledged: int = 0  # moves the clicker was told had happened
    refused: int = 0  # answered privately: not your move, ...
    unanswered: int = 0  # in flight when the process died
    lost: int = 0  # acknowledged moves missing from the log: must be 0
    sessions: int = 0
    finished: int = 0
    replay_mismatches: int = 0
    integrity: str = ""
    announcements: int = 0
    duplicate_posts: int = 0  # must be 0
    missing_posts: int = 0  # must be 0
    per_session_acked: dict[int, int] = field(default_factory=dict)

    def table(self) -> str:
        rows = [
            ("processes killed (kill -9)", self.kills),
            ("clicks", self.clicks),
            ("moves acknowledged", self.acknowledged),
            ("clicks refused (answered privately)", self.refused),
            ("clicks unanswered (in flight at a kill)", self.unanswered),
            ("acknowledged moves lost", self.lost),
            ("sessions finished / played", f"{self.finished} / {self.sessions}"),
            ("replay mismatches", self.replay_mismatches),
            ("integrity_check", self.integrity),
            ("announcements", self.announcements),
            ("duplicate posts", self.duplicate_posts),
            ("missing posts", self.missing_posts),
        ]
        return "\n".join(f"{name:<42}{value}" for name, value in rows)


class BotProcess:
    """`python -m bot` against the emulator, killed and restarted at will."""

    def __init__(self, emu: DiscordEmulator, db: Path, guild: int, cwd: Path) -> None:
        self.env = bot_process_env(
            emu, guild, CAFEBOT_DATABASE_PATH=str(db), CAFEBOT_TABLE_EDIT_INTERVAL="0.02"
        )
        self.emu = emu
        self.cwd = cwd
        self.process: asyncio.subprocess.Process | None = None
        self.up = asyncio.Event()

    async def start(self) -> None:
        self.process = await start_bot_process(
            self.env, self.cwd, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
        )
        await self.emu.wait_for_bot_ready(timeout=60)
        self.up.set()

    async def kill(self) -> None:
        assert self.process is not None
        self.up.clear()
        os.kill(self.process.pid, signal.SIGKILL)
        await self.process.wait()
        deadline = time.monotonic() + 20
        while self.emu.bot_connected and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await asyncio.wait_for(self.process.wait(), 30)
        self.up.clear()


async def soak(
    workdir: Path,
    *,
    sessions: int = 4,
    kills: int = 2,
    seed: int = 1,
    game: str = "monster-cafe",
    players: int = 3,
    moves_between_kills: int = 60,
) -> SoakResult:
    """Play ``sessions`` games at once, killing the bot after about every
    ``moves_between_kills`` acknowledged moves (at a random moment around it), ``kills`` times."""
    result = SoakResult(sessions=sessions)
    db = workdir / "soak.sqlite3"
    rng = Rng(seed=seed)
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        users = [emu.add_user(f"Player{i}", guild=guild) for i in range(players)]
        channels = [emu.add_text_channel(guild, f"table-{i}") for i in range(sessions)]
        bot = BotProcess(emu, db, guild, workdir)
        await bot.start()
        tables = {}
        for channel in channels:
            host, *others = users
            table = await (await emu.slash(host, channel, "game new", {"game": game})).final()
            for user in others:
                await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
            await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
            tables[channel] = table.id
        done = asyncio.Event()

        names = {f"Player{i}": user for i, user in enumerate(users)}

        async def click_until_over(index: int, channel: int) -> None:
            acked = 0
            table_id = tables[channel]
            while True:
                await bot.up.wait()
                table = emu.get_message(table_id)
                options = controls(table, index + 1, "t")
                on_table = bool(options)
                if on_table:
                    # Mostly the player the table waits for; now and then someone else (refused).
                    user = waiting_for(table, names) if rng.randint(0, 9) else rng.choice(users)
                else:  # a game played by DM (Café Carnage, Cube Café…): a player's newest DM
                    user, options = rng.choice([(u, dm_controls(emu, u, index + 1)) for u in users])
                    # The panel's last button ("Confirm", "Done"), else rarely picked among the
                    # choices (buttons too, when they fit in rows).
                    last = [o for o in options if o.value is None][-1:]
                    if last and rng.randint(0, 2) == 0:
                        options = last
                if not options:
                    if await _finished(db, index + 1):
                        break
                    await asyncio.sleep(0.05)
                    continue
                shown = table.snapshot()
                result.clicks += 1
                try:
                    answer = await press(emu, user, rng.choice(options))
                except EmulatorError:
                    result.unanswered += 1
                    continue
                if answer.ephemeral:
                    result.refused += 1
                else:
                    acked += 1
                    result.acknowledged += 1
                    # Let the table show the move (a DM's answer shows it at once).
                    deadline = time.monotonic() + (1.0 if on_table else 0.0)
                    while emu.get_message(table_id).snapshot() == shown:
                        if time.monotonic() > deadline:
                            break
                        await asyncio.sleep(0.02)
            result.per_session_acked[index + 1] = acked

        async def killer() -> None:
            target = 0
            for _ in range(kills):
                target += moves_between_kills // 2 + rng.randint(0, moves_between_kills)
                while result.acknowledged < target and not done.is_set():
                    await asyncio.sleep(0.005)
                if done.is_set():
                    return
                await bot.kill()
                result.kills += 1
                await asyncio.sleep(0.2)
                await bot.start()

        async def play() -> None:
            await asyncio.gather(*(click_until_over(i, c) for i, c in enumerate(channels)))
            done.set()

        await asyncio.gather(killer(), play())
        await _posts_sent(db)  # the last moves' announcements (a loaded machine may lag)
        await asyncio.sleep(0.5)  # and the last table edits
        await bot.stop()
        await _check(db, emu, channels, result)
    return result


def dm_controls(emu: DiscordEmulator, user: int, session_id: int) -> list[Control]:
    """The enabled controls of ``user``'s newest DM of the session (none once they are done
    with the step). Older DMs keep their controls, but a click there moves nothing: its answer
    closes that DM, which would count as an acknowledged move."""
    for message in reversed(emu.dm_messages(user)):
        current = emu.get_message(message.id)
        found = controls(current, session_id)
        if found or f"game #{session_id}" in current.current_text():
            return found
    return []


def waiting_for(table: Message, names: dict[str, int]) -> int:
    """The player the table message says it waits for (the first one)."""
    for embed in table.embeds:
        for f in embed.get("fields", []):
            if f["name"] == "⏳ Waiting for":
                first = f["value"].splitlines()[0].split(",")[0].strip()
                if first in names:
                    return names[first]
    return next(iter(names.values()))


async def _posts_sent(db: Path, timeout: float = 60.0) -> None:
    """Wait until the outbox has nothing left to send (bounded: a missing post is then counted)."""
    deadline = time.monotonic() + timeout
    while await _read(db, "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") and (
        time.monotonic() < deadline
    ):
        await asyncio.sleep(0.1)


async def _read(db: Path, sql: str, *args: object) -> object:
    """The first column of the first row (None: no row) of a query, read-only, off the loop."""

    def read() -> object:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            row = conn.execute(sql, args).fetchone()
            return row[0] if row else None

    return await asyncio.to_thread(read)


async def _finished(db: Path, session_id: int) -> bool:
    return await _read(db, "SELECT status FROM sessions WHERE id = ?", session_id) == "finished"


async def _check(db: Path, emu: DiscordEmulator, channels: list[int], result: SoakResult) -> None:
    store = await SqliteStore.open(db)
    try:
        service = SessionService(store)
        rows = await store.sessions_with_status(SessionStatus.FINISHED, SessionStatus.ACTIVE)
        for row in rows:
            s = await service.load(row.id)
            if row.status is SessionStatus.FINISHED:
                result.finished += 1
            log = [a for a in await store.actions(row.id) if a.source == "player"]
            result.lost += max(0, result.per_session_acked.get(row.id, 0) - len(log))
            if await service.replay(row.id) != s.state:
                result.replay_mismatches += 1
            assert s.state is not None
            expected = collections.Counter(a.title for a in s.state.announcements)
            # A "whose turn" notice that a later one in the same message supersedes is left out.
            turns = {a.title for a in s.state.announcements if a.kind == "turn"}
            if s.outcome() is not None:  # and the final message, once
                expected[f"🏁 {s.game.title} — game over"] += 1
            result.announcements += sum(expected.values())
            table_id = row.table_message_id
            posted = collections.Counter(  # one move's announcements share a message
                e["title"]
                for m in game_messages(emu, row.channel_id)
                if m.id != table_id and not m.deleted
                for e in m.embeds
            )
            result.duplicate_posts += sum(max(0, posted[t] - expected[t]) for t in posted)
            result.missing_posts += sum(
                max(0, expected[t] - posted[t]) for t in expected if t not in turns
            )
    finally:
        await store.close()

    result.integrity = str(await _read(db, "PRAGMA integrity_check"))
