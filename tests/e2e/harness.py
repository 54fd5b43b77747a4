"""Shared set-up for end-to-end tests: the real bot, through discord.py, against the emulator."""

from __future__ import annotations

import asyncio
import collections
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import CafeBot
from bot.core.config import Settings
from emulator import DiscordEmulator, InteractionResult, Message, running_bot

ROOT = Path(__file__).resolve().parents[2]


def bot_process_env(emu: DiscordEmulator, guild: int, **settings: str) -> dict[str, str]:
    """The environment of `python -m bot` as its own process against ``emu``: ours without any
    cafebot or Discord setting of this machine, the emulator's, commands synced to ``guild``,
    then ``settings`` (e.g. ``CAFEBOT_DATABASE_PATH=…``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAFEBOT_", "DISCORD_"))}
    return (
        env
        | emu.env()
        | {
            "CAFEBOT_GUILD_READY_TIMEOUT": "0.05",
            "CAFEBOT_DEV_GUILD_ID": str(guild),
            "PYTHONPATH": str(ROOT),
        }
        | settings
    )


async def start_bot_process(
    env: dict[str, str], cwd: Path, **io: Any
) -> asyncio.subprocess.Process:
    """`python -m bot` in ``cwd``; ``io``: its stdout/stderr (inherited by default)."""
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=cwd, env=env, **io)


class Clock:
    """Wall time plus an offset the test moves forward (deadlines without waiting)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@dataclass
class World:
    emu: DiscordEmulator
    guild: int
    channel: int
    users: list[int]
    db_path: Path
    clock: Clock = field(default_factory=Clock)
    seed: int = 20261122  # every game's seed: two worlds deal the same cards
    table_edit_interval: float = 0.0
    post_coalesce_interval: float = 0.0  # every move's posts go at once: tests read them after
    bot_player_delay: float = 0.0  # bot players move at once: tests wait for them, not a clock
    rest_budget: int = 50  # REST requests per second the bot allows itself (0: not paced)
    ping_after_idle: float = 0.0  # every turn notice pings (tests of the idle rule set it)
    metrics_port: int | None = None  # 0: the operator's metrics on any free port
    bot: CafeBot | None = None

    @property
    def running(self) -> CafeBot:
        assert self.bot is not None, "no bot is running"
        return self.bot

    def new_bot(self) -> CafeBot:
        settings = Settings(
            discord_token="emulated",
            database_path=self.db_path,
            guild_ready_timeout=0.05,
            # Every change shows at once by default: tests read the table after each move.
            table_edit_interval=self.table_edit_interval,
            dm_edit_interval=self.table_edit_interval,
            post_coalesce_interval=self.post_coalesce_interval,
            bot_player_delay=self.bot_player_delay,
            rest_budget=self.rest_budget,
            ping_after_idle=self.ping_after_idle,
            metrics_port=self.metrics_port,
        )
        return CafeBot(settings, clock=self.clock, new_seed=lambda: self.seed)

    @asynccontextmanager
    async def bot_running(self) -> AsyncIterator[CafeBot]:
        """Start a fresh bot process-equivalent on the same database; stop it on exit."""
        bot = self.new_bot()
        async with running_bot(self.emu, bot):
            self.bot = bot
            try:
                yield bot
                await handlers_done()
                await bot.tables.idle()
            finally:
                self.bot = None

    async def settle(self) -> None:
        """Let the bot finish the edits, DMs and announcements that follow a move (and the
        moves of bot players that follow it)."""
        bot = self.running
        for _ in range(3):
            await bot.robots.idle()
            await bot.tables.idle()

    async def fire_timers(self) -> None:
        """Fire what is due now (after moving the clock) and wait for what follows."""
        await self.running.scheduler.run_due()
        await self.settle()

    async def finish_by_deadlines(self, session_id: int = 1, limit: int = 300) -> None:
        """Let every step of the game run out of time until it ends (as if everyone were away:
        each deadline plays the default moves)."""
        bot = self.running
        for _ in range(limit):
            s = await bot.service.load(session_id)
            if not s.status.is_open:
                await self.settle()
                return
            deadline = await bot.service.deadline(session_id)
            assert deadline is not None, f"game #{session_id} has no deadline to wait for"
            self.clock.advance(max(0.0, deadline.due_at - self.clock()) + 1)
            await self.fire_timers()
        raise AssertionError(f"game #{session_id} did not end after {limit} deadlines")

    # -- reading what players see ----------------------------------------------------------------
    def table_message(self, session_id: int = 1) -> Message:
        messages = [
            m
            for m in self.emu.channel_messages(self.channel)
            if any(
                f"cb:l:{session_id}:" in cid or f"cb:g:{session_id}:t:" in cid
                for _, cid, _ in m.buttons()
                if cid
            )
            or any(cid.startswith(f"cb:g:{session_id}:t:") for cid, _ in m.selects())
        ]
        assert messages, "no table message with controls in the channel"
        return self.emu.get_message(messages[0].id)

    def latest_dm(self, user: int, with_controls: bool = True) -> Message:
        for message in reversed(self.emu.dm_messages(user)):
            if not with_controls or message.buttons() or message.selects():
                return self.emu.get_message(message.id)
        raise AssertionError(f"user {user} has no DM with controls")

    def game_messages(self) -> list[Message]:
        """What the game posted where players look: the channel and the threads opened in it
        (a game's play-by-play goes to a thread on its table message), oldest first."""
        return game_messages(self.emu, self.channel)

    def channel_texts(self) -> list[str]:
        return [m.current_text() for m in self.game_messages()]


# Discord bans a bot's IP for a while after 10,000 invalid requests (401, 403, 429) in 10 minutes.
INVALID_STATUSES = (401, 403, 429)


def invalid_requests(
    emu: DiscordEmulator, since: tuple[int, int] = (0, 0)
) -> collections.Counter[str]:
    """The invalid requests (401, 403, 429) Discord answered the bot, by "status/code" (a 429
    of a bucket: "429"); faults a test injected do not count. ``since``: only those after the
    first ``since`` (see :func:`invalid_mark`), e.g. one game's."""
    counted: collections.Counter[str] = collections.Counter()
    for _, _, status, code in emu.error_responses[since[0] :]:
        if status in INVALID_STATUSES:
            counted[f"{status}/{code}"] += 1
    counted["429"] += len(emu.rate_limited[since[1] :])
    return +counted  # zeros dropped


def invalid_mark(emu: DiscordEmulator) -> tuple[int, int]:
    """Where :func:`invalid_requests` starts counting what follows."""
    return len(emu.error_responses), len(emu.rate_limited)


def error_answers(emu: DiscordEmulator, status: int, code: int) -> int:
    """How many times Discord answered the bot ``status`` with ``code`` (e.g. 400 160004)."""
    return sum(1 for _, _, s, c in emu.error_responses if (s, c) == (status, code))


# The tasks in which discord.py runs a command's or a component's handler.
HANDLER_TASKS = (
    "CommandTree-invoker",
    "discord-ui-",
    "discord.py: on_interaction",
    "cafebot-click",
)


async def handlers_done() -> None:
    """Let the handlers of the test's last interactions finish what they do after answering
    (a command's courtesy DM, say) before the bot stops: a test stops its bot when its
    players are done, not in the middle of a command."""
    for _ in range(100):
        running = [
            t
            for t in asyncio.all_tasks()
            if t.get_name().startswith(HANDLER_TASKS) and not t.done()
        ]
        if not running:
            return
        await asyncio.wait(running, timeout=0.1)


def game_messages(emu: DiscordEmulator, channel: int) -> list[Message]:
    """The messages of a channel and of its threads, oldest first."""
    threads = [c.id for c in emu.channels.values() if c.parent_id == channel]
    found = [m for cid in [channel, *threads] for m in emu.channel_messages(cid)]
    return sorted(found, key=lambda m: m.id)


@asynccontextmanager
async def world(tmp_path: Path, players: int, *, dms_open: bool = True) -> AsyncIterator[World]:
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        channel = emu.add_text_channel(guild, "cafe")
        users = [emu.add_user(n, guild=guild, dms_open=dms_open) for n in names[:players]]
        yield World(emu, guild, channel, users, tmp_path / "cafebot.sqlite3")
        emu.assert_clean()


async def open_game(w: World, game: str, **options: Any) -> Message:
    """The host (users[0]) opens a lobby, everyone joins with the Join button, the host starts."""
    host, *others = w.users
    result = await w.emu.slash(host, w.channel, "game new", {"game": game, **options})
    table = await result.final()
    for user in others:
        await w.emu.click(user, table.id, w.emu.get_message(table.id).button("Join"))
    await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
    await w.settle()
    return w.emu.get_message(table.id)


# -- controls on messages, the same for every game ------------------------------------------------


@dataclass(frozen=True)
class Control:
    """One enabled game control on a message (a select counts once per option)."""

    message_id: int
    label: str
    custom_id: str
    value: str | None = None  # a select option's value; None for a button


def controls(message: Message, session_id: int = 1, seat: str | None = None) -> list[Control]:
    """Every enabled game control of ``session_id`` on ``message`` (``seat`` "t": the table's;
    a seat number: that player's private panel's; None: either)."""
    prefix = f"cb:g:{session_id}:" + (f"{seat}:" if seat is not None else "")
    out = [
        Control(message.id, label or "", cid)
        for label, cid, disabled in message.buttons()
        if cid and cid.startswith(prefix) and not disabled
    ]
    for cid, options in message.selects():
        component = message.find_component(cid) or {}
        if cid.startswith(prefix) and not component.get("disabled"):
            out += [Control(message.id, label, cid, value) for label, value in options]
    return out


PRIMARY = 1  # Discord's button style for the choice made so far


def button_rows(message: Message, session_id: int = 1) -> list[list[dict[str, Any]]]:
    """The game's buttons of ``message`` row by row, as Discord's component dicts (label,
    custom_id, style, disabled); rows without one are left out."""
    prefix = f"cb:g:{session_id}:"
    rows = []
    for row in message.all_components():
        if row.get("type") != 1:
            continue
        buttons = [
            c
            for c in row.get("components") or []
            if c.get("type") == 2 and str(c.get("custom_id", "")).startswith(prefix)
        ]
        if buttons:
            rows.append(buttons)
    return rows


def picked(row: list[dict[str, Any]]) -> list[str]:
    """The custom_ids of a row's buttons shown as the choice made so far."""
    return [str(b["custom_id"]) for b in row if b.get("style") == PRIMARY]


async def press(emu: DiscordEmulator, user: int, control: Control) -> InteractionResult:
    """``user`` clicks the button or picks the select option."""
    if control.value is None:
        return await emu.click(user, control.message_id, control.custom_id)
    return await emu.select(user, control.message_id, control.custom_id, [control.value])


async def state_of(bot: CafeBot, session_id: int = 1) -> Any:
    s = await bot.service.load(session_id)
    assert s.state is not None, "the game has not started"
    return s.state


def ephemeral_text(result: InteractionResult) -> str:
    assert result.ephemeral, "expected a private answer"
    assert result.message is not None
    return result.message.current_text()


def normalise(text: str) -> str:
    """Drop what differs between two identical runs: timestamps and message ids."""
    text = re.sub(r"<t:\d+:[tTdDfFR]>", "<t:…>", text)
    return re.sub(r"\d{17,20}", "…", text)
