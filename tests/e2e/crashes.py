"""kill -9 under load: the bot as its own process, players clicking in several games at once
(on the table message, or in their newest DM of the game when it is played by DM), the process
killed and restarted at random moments. Used by tests/e2e/test_crash_e2e.py (short runs) and
bench/soak.py (a long one).

``processes=2``: the bot as a cluster of two processes on one PostgreSQL database, one shard
each, the guild on the second: clicks in the channel reach the second process, clicks in DMs the
first, and both show games, post and fire timers. The kills alternate between them while the
other keeps serving. ``timers`` (a number): now and then, that many times in all, the players
of one table step away while its reminder, then its deadline, are made due (as for a player who went to bed): each must fire,
once, whichever process claims it, a killed one's claims included.

What must hold afterwards: every move a player was told had happened (their click was
acknowledged) is in the log, every session replays exactly from its seed and log and its record
(as /game history gives it) verifies, SQLite's integrity check passes, every game finishes,
every announcement, notice and reminder was posted exactly once, and every timer made due
fired once: no step's deadline played twice, no reminder sent twice.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import re
import signal
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core.record import effective, verify
from bot.core.sessions import SessionService
from bot.core.store import SessionStatus, open_store, sqlite_path
from emulator import DiscordEmulator, EmulatorError, InteractionResult, Message
from games.engine import apply, clock_key, new_game
from games.rng import Rng
from tests.e2e.harness import (
    Control,
    bot_process_env,
    controls,
    game_messages,
    press,
    start_bot_process,
)

# A timer made due must fire within this (a killed process's claims go back within 15 s).
FIRE_WITHIN = 60.0
REMINDER = "waiting for your move"
TIMES_UP = "Time's up for"
INVALID = (401, 403, 429)  # the answers Discord counts toward a ban of the bot's IP
CLOSED = "That step is over"  # a click on an older DM of the game: its answer closes it


STUCK_AFTER_REFUSALS = 1000  # clicks refused in a row before a session counts as stuck
# Past this many refusals in a row the client waits for the table to change (at most
# STREAK_PAUSE) before it clicks again, as a person would: a table a loaded machine shows late
# is not clicked at machine speed (refusals are cheap now: a thousand came in seconds).
STREAK_FROM = 10
STREAK_PAUSE = 0.25


@dataclass
class SoakResult:
    processes: int = 1
    kills: int = 0
    clicks: int = 0
    acknowledged: int = 0  # moves the clicker was told had happened
    refused: int = 0  # answered privately: not your move, ...
    unanswered: int = 0  # in flight when the process died
    closed: int = 0  # on a step's DM just superseded by a newer one: closed in the answer
    lost: int = 0  # acknowledged moves missing from the log: must be 0
    sessions: int = 0
    finished: int = 0
    replay_mismatches: int = 0
    records_refused: int = 0  # records (as /game history gives them) that do not verify
    integrity: str = ""
    announcements: int = 0
    duplicate_posts: int = 0  # must be 0
    missing_posts: int = 0  # must be 0
    timers_forced: int = 0  # deadlines made due while the table's players were away
    reminders_forced: int = 0
    deadlines_played: int = 0  # deadlines that played the absent players' moves (one each)
    timers_late: int = 0  # made due but not fired within FIRE_WITHIN: must be 0
    timers_doubled: int = 0  # a deadline played twice, or one not due: must be 0
    reminders_sent: int = 0
    reminders_doubled: int = 0  # a step's reminder sent twice: must be 0
    error_lines: int = 0  # ERROR lines in the bot processes' logs
    invalid: dict[int, int] = field(default_factory=dict)  # 401/403/429 answers Discord counts
    # By kind; "unacknowledged": the clicks a kill left unanswered.
    violations: collections.Counter[str] = field(default_factory=collections.Counter)
    per_session_acked: dict[int, int] = field(default_factory=dict)
    # (session, player) → the acknowledged clicks (control label, value, answer type, wall time)
    acked_by: dict[tuple[int, str], list[tuple[str, str | None, int, float]]] = field(
        default_factory=dict
    )
    lost_detail: list[str] = field(default_factory=list)  # where moves were lost, if any
    refusals: collections.Counter[str] = field(default_factory=collections.Counter)  # by text
    forced: list[tuple[int, str]] = field(default_factory=list)  # (session, step) made due

    @property
    def ok(self) -> bool:
        """Everything that must hold, held."""
        return (
            self.lost == 0
            and self.finished == self.sessions
            and self.replay_mismatches == 0
            and self.records_refused == 0
            and self.integrity in ("ok", "n/a")
            and self.duplicate_posts == 0
            and self.missing_posts == 0
            and self.timers_late == 0
            and self.timers_doubled == 0
            and self.reminders_doubled == 0
            and self.deadlines_played == self.timers_forced
        )

    def table(self) -> str:
        rows = [
            ("bot processes", self.processes),
            ("processes killed (kill -9)", self.kills),
            ("clicks", self.clicks),
            ("moves acknowledged", self.acknowledged),
            ("clicks refused (answered privately)", self.refused),
            ("clicks unanswered (in flight at a kill)", self.unanswered),
            ("clicks on a superseded DM (closed)", self.closed),
            ("acknowledged moves lost", self.lost),
            ("sessions finished / played", f"{self.finished} / {self.sessions}"),
            ("replay mismatches", self.replay_mismatches),
            ("records that do not verify", self.records_refused),
            ("integrity_check", self.integrity),
            ("announcements", self.announcements),
            ("duplicate posts", self.duplicate_posts),
            ("missing posts", self.missing_posts),
            ("deadlines made due / played", f"{self.timers_forced} / {self.deadlines_played}"),
            ("deadlines played twice (or not due)", self.timers_doubled),
            ("reminders made due / DMs sent", f"{self.reminders_forced} / {self.reminders_sent}"),
            ("reminders sent twice", self.reminders_doubled),
            (f"timers not fired within {FIRE_WITHIN:.0f} s", self.timers_late),
            ("ERROR lines in the bots' logs", self.error_lines),
            ("401 / 403 / 429 answers", " / ".join(str(self.invalid.get(s, 0)) for s in INVALID)),
            ("what Discord would flag", dict(self.violations) or 0),
        ]
        rows += [(f"  refused: {text[:29]}…", n) for text, n in self.refusals.most_common(4)]
        return "\n".join(f"{name:<42}{value}" for name, value in rows)


class Database:
    """The bot's database seen from outside the bot processes, for a few queries (``?``
    placeholders). SQLite: a connection per query, off the loop (the bot process holds the
    file; reads are read-only); PostgreSQL: a small pool."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = sqlite_path(url)
        self._pg: Any = None

    async def rows(self, sql: str, *args: object) -> list[tuple[Any, ...]]:
        if self.path is None:
            return [tuple(r) for r in await (await self._conn()).fetch(_dollars(sql), *args)]
        path = self.path

        def read() -> list[tuple[Any, ...]]:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                return [tuple(r) for r in conn.execute(sql, args).fetchall()]

        return await asyncio.to_thread(read)

    async def value(self, sql: str, *args: object) -> object:
        """The first column of the first row (None: no row)."""
        found = await self.rows(sql, *args)
        return found[0][0] if found else None

    async def write(self, sql: str, *args: object) -> None:
        if self.path is None:
            await (await self._conn()).execute(_dollars(sql), *args)
            return
        path = self.path

        def write() -> None:
            with sqlite3.connect(path, timeout=30) as conn:
                conn.execute(sql, args)

        await asyncio.to_thread(write)

    async def _conn(self) -> Any:
        if self._pg is None:
            import asyncpg

            self._pg = await asyncpg.create_pool(self.url, min_size=1, max_size=4)
        return self._pg

    async def close(self) -> None:
        if self._pg is not None:
            await self._pg.close()
            self._pg = None


def _dollars(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``…"""
    numbers = iter(range(1, sql.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)


class BotProcess:
    """`python -m bot` against the emulator, killed and restarted at will (``shard``: the one
    shard this process runs, in a cluster)."""

    def __init__(
        self, emu: DiscordEmulator, env: dict[str, str], cwd: Path, shard: int | None = None
    ) -> None:
        self.env = env
        self.emu = emu
        self.cwd = cwd
        self.shard = shard
        self.log = cwd / f"bot-{shard or 0}.log"
        self.process: asyncio.subprocess.Process | None = None
        self.up = asyncio.Event()

    def connected(self) -> bool:
        if self.shard is None:
            return self.emu.bot_connected
        return self.shard in self.emu.connected_shards

    async def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = await start_bot_process(self.env, self.cwd, stdout=log, stderr=log)
        await self.emu.wait_for_bot_ready(timeout=60)
        self.up.set()

    async def kill(self) -> None:
        assert self.process is not None
        self.up.clear()
        os.kill(self.process.pid, signal.SIGKILL)
        await self.process.wait()
        deadline = time.monotonic() + 20
        while self.connected() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await asyncio.wait_for(self.process.wait(), 30)
        self.up.clear()

    def error_lines(self) -> int:
        if not self.log.exists():
            return 0
        return sum(" ERROR " in line for line in self.log.read_text(errors="replace").splitlines())


async def soak(
    workdir: Path,
    *,
    sessions: int = 4,
    kills: int = 2,
    seed: int = 1,
    game: str | Sequence[str] = "monster-cafe",
    players: int = 3,
    moves_between_kills: int = 60,
    processes: int = 1,
    database_url: str | None = None,
    timers: int = 0,
) -> SoakResult:
    """Play ``sessions`` games at once (of ``game``, or of each game in turn), killing a bot
    process after about every ``moves_between_kills`` acknowledged moves (at a random moment
    around it), ``kills`` times; ``processes`` 2: a cluster on ``database_url`` (PostgreSQL),
    the kills alternating between its processes; ``timers``: see the module's docstring."""
    if processes not in (1, 2):
        raise ValueError("processes: 1, or 2 (a cluster on PostgreSQL)")
    url = database_url or f"sqlite:///{workdir / 'soak.sqlite3'}"
    if processes > 1 and sqlite_path(url) is not None:
        raise ValueError("two bot processes need a PostgreSQL database_url")
    games = [game] if isinstance(game, str) else list(game)
    result = SoakResult(sessions=sessions, processes=processes)
    db = Database(url)
    rng = Rng(seed=seed)
    async with DiscordEmulator(shard_count=processes) as emu:
        # In a cluster the guild is on the last shard: its clicks and DMs reach two processes.
        guild = emu.add_guild("Game Night", shard=processes - 1)
        users = [emu.add_user(f"Player{i}", guild=guild) for i in range(players)]
        channels = [emu.add_text_channel(guild, f"table-{i}") for i in range(sessions)]
        settings = {"CAFEBOT_DATABASE_URL": url, "CAFEBOT_TABLE_EDIT_INTERVAL": "0.02"}
        if processes > 1:
            members = [
                BotProcess(
                    emu,
                    bot_process_env(
                        emu,
                        guild,
                        **settings,
                        CAFEBOT_CLUSTER_INDEX=str(index),
                        CAFEBOT_CLUSTER_COUNT=str(processes),
                    ),
                    workdir,
                    shard=index,
                )
                for index in range(processes)
            ]
        else:
            members = [BotProcess(emu, bot_process_env(emu, guild, **settings), workdir)]
        for member in members:
            with member.log.open("ab"):
                pass
        await asyncio.gather(*(m.start() for m in members))
        in_channel, by_dm = members[-1], members[0]  # who receives which clicks
        tables = {}
        for number, channel in enumerate(channels):
            host, *others = users
            options = {"game": games[number % len(games)]}
            table = await (await emu.slash(host, channel, "game new", options)).final()
            for user in others:
                await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
            await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
            tables[channel] = table.id
        done = asyncio.Event()
        # Clicks acknowledged by a deferred update: (session, player, answer, its acked_by entry)
        deferred: list[tuple[int, str, InteractionResult, tuple[str, str | None, int, float]]] = []
        away: set[int] = set()  # sessions whose players stepped away (a timer made due)
        clicking: set[int] = set()  # sessions with a click in flight

        names = {f"Player{i}": user for i, user in enumerate(users)}

        async def table_changes(table_id: int, shown: object, within: float) -> None:
            """Wait until the table no longer shows ``shown``, ``within`` seconds at most."""
            deadline = time.monotonic() + within
            while emu.get_message(table_id).snapshot() == shown:
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.02)

        async def click_until_over(index: int, channel: int) -> None:
            acked = 0
            refused_in_a_row = 0
            session_id = index + 1
            table_id = tables[channel]
            while True:
                table = emu.get_message(table_id)
                options = controls(table, session_id, "t")
                on_table = bool(options)
                receiver = in_channel if on_table else by_dm
                if session_id in away or not receiver.up.is_set():
                    await asyncio.sleep(0.05)
                    continue
                if on_table:
                    # Mostly the player the table waits for; now and then someone else (refused).
                    user = waiting_for(table, names) if rng.randint(0, 9) else rng.choice(users)
                else:  # a game played by DM (Café Carnage, Cube Café…): a player's newest DM
                    user, options = rng.choice(
                        [(u, dm_controls(emu, u, session_id)) for u in users]
                    )
                    # The panel's last button ("Confirm", "Done"), else rarely picked among the
                    # choices (buttons too, when they fit in rows).
                    last = [o for o in options if o.value is None][-1:]
                    if last and rng.randint(0, 2) == 0:
                        options = last
                if not options:
                    if await _finished(db, session_id):
                        break
                    await asyncio.sleep(0.05)
                    continue
                shown = table.snapshot()
                result.clicks += 1
                clicking.add(session_id)
                control = rng.choice(options)
                try:
                    answer = await press(emu, user, control)
                except EmulatorError:
                    result.unanswered += 1
                    continue
                finally:
                    clicking.discard(session_id)
                answered = answer.message or emu.get_message(control.message_id)
                if CLOSED in answered.current_text():
                    # The step's newer DM came while this click was on its way: the answer
                    # closes this one (no move), as for a player who clicked an old DM.
                    result.closed += 1
                elif answer.ephemeral:
                    result.refused += 1
                    text = answer.message.current_text() if answer.message else ""
                    result.refusals[text.splitlines()[0][:70] if text else "(empty)"] += 1
                    refused_in_a_row += 1
                    # A table that refuses every click for this long will not recover: fail
                    # with what it says instead of clicking on for ever (a hang once under load).
                    assert refused_in_a_row < STUCK_AFTER_REFUSALS, (
                        f"session {session_id}: {refused_in_a_row} clicks refused in a row; "
                        f"the last by {user} on {control.label!r}: {text!r}; "
                        f"the table: {table.current_text()!r}"
                    )
                    if "game has ended" in text and await _finished(db, session_id):
                        break  # a finished game's last DMs keep their controls
                    if refused_in_a_row >= STREAK_FROM:
                        await table_changes(table_id, shown, STREAK_PAUSE)
                else:
                    acked += 1
                    refused_in_a_row = 0
                    result.acknowledged += 1
                    entry = (control.label, control.value, answer.type, time.time())
                    result.acked_by.setdefault((session_id, str(user)), []).append(entry)
                    if answer.type == 6:  # its refusal, if any, comes later, privately
                        deferred.append((session_id, str(user), answer, entry))
                    # Let the table show the move (a DM's answer shows it at once).
                    await table_changes(table_id, shown, 1.0 if on_table else 0.0)
            result.per_session_acked[session_id] = acked

        async def after_moves(count: int) -> bool:
            """Wait for ``count`` more acknowledged moves; False: the games are over."""
            target = result.acknowledged + count
            while result.acknowledged < target and not done.is_set():
                await asyncio.sleep(0.005)
            return not done.is_set()

        async def killer() -> None:
            for number in range(kills):
                if not await after_moves(
                    moves_between_kills // 2 + rng.randint(0, moves_between_kills)
                ):
                    return
                member = members[(number + 1) % len(members)]  # the guild's first
                await member.kill()
                result.kills += 1
                await asyncio.sleep(0.2)
                await member.start()

        async def make_timers_due() -> None:
            every = max(5, moves_between_kills // 3)
            for _ in range(timers):
                if not await after_moves(every // 2 + rng.randint(0, every)):
                    return
                live = [
                    number + 1
                    for number in range(sessions)
                    if await db.value(
                        "SELECT key FROM timers WHERE session_id = ? AND kind = 'deadline'",
                        number + 1,
                    )
                ]
                if not live:
                    continue
                session_id = rng.choice(live)
                away.add(session_id)
                try:
                    while session_id in clicking:
                        await asyncio.sleep(0.01)
                    await _make_due(db, session_id, result)
                finally:
                    away.discard(session_id)

        async def play() -> None:
            await asyncio.gather(*(click_until_over(i, c) for i, c in enumerate(channels)))
            done.set()

        try:
            await asyncio.gather(killer(), play(), *([make_timers_due()] if timers else []))
            await _posts_sent(db)  # the last moves' announcements (a loaded machine may lag)
            await asyncio.sleep(0.5)  # and the last table edits
            for session_id, user, answer, entry in deferred:
                if any(m.ephemeral_to is not None for m in answer.followups()):
                    # Deferred, then answered privately (too slow to refuse at once): no move.
                    result.acknowledged -= 1
                    result.per_session_acked[session_id] -= 1
                    result.refused += 1
                    result.refusals["(deferred, then refused)"] += 1
                    result.acked_by[(session_id, user)].remove(entry)
        finally:
            await asyncio.gather(*(m.stop() for m in members))
            await db.close()
        result.error_lines = sum(m.error_lines() for m in members)
        statuses = [status for _, _, status, _ in emu.error_responses]
        result.invalid = {status: statuses.count(status) for status in INVALID}
        result.invalid[429] += len(emu.rate_limited)
        result.violations.update(v.kind for v in emu.violations)
        await _check(url, emu, channels, users, result)
    return result


async def _make_due(db: Database, session_id: int, result: SoakResult) -> None:
    """The session's reminder, then its deadline, are due now: wait for each to fire."""
    timers = {
        kind: key
        for kind, key in await db.rows(
            "SELECT kind, key FROM timers WHERE session_id = ?", session_id
        )
    }
    key = timers.get("deadline")
    if key is None:  # the step ended meanwhile
        return

    def gone(kind: str) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            found = await db.value(
                "SELECT key FROM timers WHERE session_id = ? AND kind = ?", session_id, kind
            )
            return found != key

        return check

    before = await db.value("SELECT COALESCE(MAX(id), 0) FROM outbox")
    due = time.time() - 1  # the bot's clock is the wall clock
    if timers.get("reminder") == key:
        await db.write(
            "UPDATE timers SET due_at = ? WHERE session_id = ? AND kind = 'reminder'",
            due,
            session_id,
        )
        result.reminders_forced += 1
        if not await _until(gone("reminder")):
            result.timers_late += 1
    await db.write(
        "UPDATE timers SET due_at = ? WHERE session_id = ? AND kind = 'deadline' AND key = ?",
        due,
        session_id,
        key,
    )
    result.timers_forced += 1
    result.forced.append((session_id, key))
    if not await _until(gone("deadline")):
        result.timers_late += 1
    # The step is over: it was reminded once, each player it waited for once.
    reminded = collections.Counter(
        target
        for (target,) in await db.rows(
            "SELECT target FROM outbox WHERE session_id = ? AND id > ? AND payload LIKE ?",
            session_id,
            before,
            f"%{REMINDER}%",
        )
    )
    result.reminders_doubled += sum(n - 1 for n in reminded.values())


async def _until(check: Callable[[], Awaitable[bool]], timeout: float = FIRE_WITHIN) -> bool:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def dm_controls(emu: DiscordEmulator, user: int, session_id: int) -> list[Control]:
    """The enabled controls of ``user``'s newest DM of the session (none once they are done
    with the step). Older DMs keep their controls, but a click there moves nothing: its answer
    closes that DM (a newer one may still come between this look and the click: counted
    apart, as ``closed``)."""
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


async def _posts_sent(db: Database, timeout: float = 60.0) -> None:
    """Wait until the outbox has nothing left to send (bounded: a missing post is then counted)."""
    deadline = time.monotonic() + timeout
    while await db.value("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") and (
        time.monotonic() < deadline
    ):
        await asyncio.sleep(0.1)


async def _finished(db: Database, session_id: int) -> bool:
    status = await db.value("SELECT status FROM sessions WHERE id = ?", session_id)
    return status == "finished"


async def _check(
    url: str, emu: DiscordEmulator, channels: list[int], users: list[int], result: SoakResult
) -> None:
    store = await open_store(url)
    try:
        service = SessionService(store)
        rows = await store.sessions_with_status(SessionStatus.FINISHED, SessionStatus.ACTIVE)
        reminders: collections.Counter[tuple[str, str]] = collections.Counter()  # (user, text)
        for row in rows:
            s = await service.load(row.id)
            if row.status is SessionStatus.FINISHED:
                result.finished += 1
            actions = await store.actions(row.id)
            log = [a for a in actions if a.source == "player"]
            result.lost += max(0, result.per_session_acked.get(row.id, 0) - len(log))
            for (session_id, player), clicks in result.acked_by.items():
                logged = [a for a in log if a.player == player]
                if session_id == row.id and len(clicks) > len(logged):
                    result.lost_detail.append(
                        f"session {session_id}, player {player}: {len(clicks)} acknowledged, "
                        f"{len(logged)} in the log; clicks {clicks}; log "
                        f"{[(a.seq, a.action, a.created_at) for a in logged]}"
                    )
            if await service.replay(row.id) != s.state:
                result.replay_mismatches += 1
            if not verify(await service.record(row.id, row.guild_id)).ok:
                result.records_refused += 1
            assert s.state is not None
            # Each deadline played once: a step's absent players' moves come in one commit.
            game, state = s.game, new_game(s.game, s.player_ids, s.options, s.row.seed)
            played: collections.Counter[str | None] = collections.Counter()
            firing_at: float | None = None
            for entry in effective(actions):
                if entry.source == "timeout" and entry.created_at != firing_at:
                    played[clock_key(game, state)] += 1
                firing_at = entry.created_at if entry.source == "timeout" else None
                state = apply(
                    game, state, entry.player, game.parse_action(json.loads(entry.action))
                )
            # None falls due by itself in a soak (a day's timeout): each one played was made due.
            due = {key for session_id, key in result.forced if session_id == row.id}
            result.deadlines_played += sum(1 for key in due if played[key])
            result.timers_doubled += sum(played.values()) - sum(1 for key in due if played[key])
            expected = collections.Counter(a.title for a in s.state.announcements)
            # A "whose turn" notice that a later one in the same message supersedes is left out.
            turns = {a.title for a in s.state.announcements if a.kind == "turn"}
            if s.outcome() is not None:  # and the final message, once
                expected[f"🏁 {s.game.title} — game over"] += 1
            result.announcements += sum(expected.values())
            table_id = row.table_message_id
            shown = [
                m for m in game_messages(emu, row.channel_id) if m.id != table_id and not m.deleted
            ]
            posted = collections.Counter(  # one move's announcements share a message
                e["title"] for m in shown for e in m.embeds
            )
            result.duplicate_posts += sum(max(0, posted[t] - expected[t]) for t in posted)
            result.missing_posts += sum(
                max(0, expected[t] - posted[t]) for t in expected if t not in turns
            )
            if not game.announces_timeouts:  # a notice per deadline played instead
                notices = sum(m.current_text().count(TIMES_UP) for m in shown)
                result.duplicate_posts += max(0, notices - sum(played.values()))
                result.missing_posts += max(0, sum(played.values()) - notices)
            for post in await store.posts(row.id):
                text = json.loads(post.payload).get("dm")
                if isinstance(text, str) and REMINDER in text:
                    reminders[(post.target.removeprefix("user:"), text)] += 1
        for user in users:  # each reminder the outbox holds is DMed once
            sent = collections.Counter(
                m.content for m in emu.dm_messages(user) if REMINDER in m.content
            )
            result.reminders_sent += sum(sent.values())
            mine = {text: n for (who, text), n in reminders.items() if who == str(user)}
            result.duplicate_posts += sum(max(0, n - mine.get(t, 0)) for t, n in sent.items())
            result.missing_posts += sum(max(0, n - sent[t]) for t, n in mine.items())
    finally:
        await store.close()
    if sqlite_path(url) is None:
        result.integrity = "n/a"  # PostgreSQL: no file of ours to check
    else:
        result.integrity = str(await Database(url).value("PRAGMA integrity_check"))
