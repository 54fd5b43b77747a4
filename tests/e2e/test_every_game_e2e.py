"""Every registered game, played to its end through Discord by random clicks.

One bot, one emulator, one channel per game, all games at once. A player whose input the game
awaits clicks a random enabled control of that game on a message they can see (the table, their
DMs, their private copies from /game hand); a step that drags on is ended by its deadline, as an
absent player's would be. A new game is covered here without a line of new test code.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.app import CafeBot
from bot.core.config import Settings
from emulator import DiscordEmulator, running_bot
from games import REGISTRY
from tests.e2e.harness import Clock, invalid_requests
from tests.e2e.players import play_to_the_end, seats_for


@pytest.mark.heavy
async def test_every_registered_game_plays_to_its_end_by_random_clicks(tmp_path: Path) -> None:
    clock = Clock()
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        names = ["alice", "bob", "carol", "dave", "erin"]
        users = [emu.add_user(n, guild=guild) for n in names]
        channels = {g: emu.add_text_channel(guild, g) for g in REGISTRY}
        settings = Settings(
            discord_token="emulated",
            database_path=tmp_path / "cafebot.sqlite3",
            guild_ready_timeout=0.05,
            table_edit_interval=0.0,
            dm_edit_interval=0.0,
            # Quick play: a post waits 0.2 s when its game posted a moment ago (results still
            # before the next step's DMs); each click here waits for the table to catch up.
            post_coalesce_interval=0.2,
        )
        bot = CafeBot(settings, clock=clock, new_seed=lambda: 20261123)
        async with running_bot(emu, bot):
            results = await asyncio.gather(
                *(
                    play_to_the_end(
                        emu, bot, clock, game, channels[gid], users[: seats_for(game)], seed=i
                    )
                    for i, (gid, game) in enumerate(REGISTRY.items())
                )
            )
            await bot.tables.idle()
            for sid in range(1, len(REGISTRY) + 1):
                posts = await bot.service.store.posts(sid)
                assert all(p.sent_at is not None for p in posts), f"session {sid}: unsent posts"
        for gid, counts in zip(REGISTRY, results, strict=True):
            assert counts["clicks"] > 0, f"{gid} was never clicked"
        assert not emu.unresolved_attachments
        # Discord's invalid-request budget (401, 403, 429): every game played without one.
        assert invalid_requests(emu) == {}, invalid_requests(emu)
        emu.assert_clean()
