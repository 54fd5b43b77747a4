"""The playground's world: a local Discord (the emulator), a server with channels and local users,
and the real bot logged into it. A composition root like ``bot.app``: it wires, it decides
nothing about games.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.app import CafeBot
from bot.core.config import Settings
from emulator import DiscordEmulator, running_bot

DEFAULT_USERS = ("Alice", "Bob", "Carol", "Dave")
CHANNELS = ("café", "back-room")


@dataclass
class World:
    """What the page shows and acts on: the emulator, its server and the bot in it."""

    emu: DiscordEmulator
    bot: CafeBot
    guild: int
    channels: list[int]
    users: dict[int, str]  # local user id → name, in the order they were given
    _stack: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)

    def user_named(self, name: str) -> int | None:
        return next((u for u, n in self.users.items() if n.lower() == name.lower()), None)

    async def stop(self) -> None:
        await self._stack.aclose()


async def start_world(
    settings: Settings,
    *,
    users: tuple[str, ...] = DEFAULT_USERS,
    database: Path | None = None,
    rate_limit_scale: float = 1.0,
    clock: Callable[[], float] = time.time,
    new_seed: Callable[[], int] | None = None,
) -> World:
    """Start the emulator (Discord's own rate limits by default: what you see is how Discord
    would pace the bot), the users and the bot. Games live in ``database`` (a temporary file by
    default: the emulator's messages are gone when the playground stops)."""
    stack = contextlib.AsyncExitStack()
    try:
        emu = await stack.enter_async_context(DiscordEmulator(rate_limit_scale=rate_limit_scale))
        guild = emu.add_guild("Café Playground")
        channels = [emu.add_text_channel(guild, name) for name in CHANNELS]
        people = {emu.add_user(name.lower(), guild=guild): name for name in users}
        for user in people:
            emu.open_dm(user)  # each user's DM pane exists from the start
        if database is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="cafebot-play-"))
            database = Path(folder) / "playground.sqlite3"
        # Its own throwaway SQLite file and one unsharded process, whatever the configured bot
        # uses (a database_url set for production must not receive the playground's games).
        local = {"database_path": database, "database_url": None, "shard_ids": None}
        bot_settings = settings.model_copy(
            update={"discord_token": None, "dev_guild_id": None, "shard_count": None, **local}
        )
        bot = CafeBot(bot_settings, clock=clock, new_seed=new_seed)
        await stack.enter_async_context(running_bot(emu, bot, timeout=30.0))
    except BaseException:
        await stack.aclose()
        raise
    return World(emu, bot, guild, channels, people, stack)
