"""Two bot processes on one PostgreSQL, each running one of the bot's two shards, against the
sharded emulator: the guild's events (its channel's clicks and commands) go to one process,
DMs (the players' private menus) to the other, so one game of Café Carnage is played through
both at once. A timer falls due while both run (fired once), then the guild's process is
killed mid-game and the other carries the game to its end. The play-by-play goes to the game's
thread on the table message, whichever process posts it.
"""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.core.sessions import SessionService
from bot.core.store import SessionStatus, open_store
from emulator import DiscordEmulator, InteractionResult, Message
from tests.e2e.harness import bot_process_env, button_rows, game_messages, start_bot_process
from tests.pg_server import PostgresServer

GAME = "cafe-carnage"
CONFIRM = "Confirm order & ballot"
SESSION = 1


class Member:
    """One bot process of the cluster: `python -m bot` with cluster_index ``index`` of 2."""

    def __init__(
        self, emu: DiscordEmulator, url: str, guild: int, index: int, workdir: Path
    ) -> None:
        self.env = bot_process_env(
            emu,
            guild,
            CAFEBOT_DATABASE_URL=url,
            CAFEBOT_CLUSTER_INDEX=str(index),
            CAFEBOT_CLUSTER_COUNT="2",
            CAFEBOT_TABLE_EDIT_INTERVAL="0.05",
        )
        self.workdir = workdir
        self.log = workdir / f"bot-{index}.log"
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = await start_bot_process(self.env, self.workdir, stdout=log, stderr=log)

    async def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await asyncio.wait_for(self.process.wait(), 30)

    def errors(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if " ERROR " in line]


def new_menu(emu: DiscordEmulator, user: int, played: set[int]) -> Message | None:
    """The player's newest DM menu not played yet."""
    for message in reversed(emu.dm_messages(user)):
        if message.id not in played and button_rows(emu.get_message(message.id), SESSION):
            return emu.get_message(message.id)
    return None


async def menus(emu: DiscordEmulator, users: list[int], played: set[int]) -> dict[int, Message]:
    await emu.wait_until(lambda: all(new_menu(emu, u, played) for u in users), timeout=30)
    found = {u: new_menu(emu, u, played) for u in users}
    return {u: m for u, m in found.items() if m is not None}


async def order(emu: DiscordEmulator, user: int, message_id: int) -> list[InteractionResult]:
    """Tap the first of each of the four choices of the menu (a row of buttons each)."""
    results = []
    for row in range(4):
        custom_id = button_rows(emu.get_message(message_id), SESSION)[row][0]["custom_id"]
        results.append(await emu.click(user, message_id, custom_id))
    return results


async def confirm(emu: DiscordEmulator, user: int, message_id: int) -> InteractionResult:
    def enabled() -> bool:
        buttons = emu.get_message(message_id).buttons()
        return any(label == CONFIRM and not disabled for label, _, disabled in buttons)

    await emu.wait_until(enabled, timeout=10)  # the menu shows the four choices made
    return await emu.click(user, message_id, emu.get_message(message_id).button(CONFIRM))


async def play_by_dm(emu: DiscordEmulator, user: int, menu: Message) -> list[InteractionResult]:
    return [*await order(emu, user, menu.id), await confirm(emu, user, menu.id)]


def texts(emu: DiscordEmulator, channel: int) -> list[str]:
    """What the channel and the game's thread show."""
    return [m.current_text() for m in game_messages(emu, channel) if not m.deleted]


def count(emu: DiscordEmulator, channel: int, text: str) -> int:
    return sum(text in t for t in texts(emu, channel))


async def settle(emu: DiscordEmulator, check: Callable[[], object], seconds: float = 30) -> None:
    await emu.wait_until(check, timeout=seconds)


@pytest.mark.heavy
async def test_two_processes_one_game_a_timer_and_a_kill(
    tmp_path: Path, pg_server: PostgresServer
) -> None:
    url = await pg_server.new_database()
    async with DiscordEmulator(shard_count=2) as emu:
        guild = emu.add_guild("Game Night", shard=1)  # its events go to the second process
        channel = emu.add_text_channel(guild, "cafe")
        alice, bob, carol = users = [
            emu.add_user(n, guild=guild) for n in ("alice", "bob", "carol")
        ]
        dms, guild_side = (Member(emu, url, guild, i, tmp_path) for i in (0, 1))
        await dms.start()
        await guild_side.start()
        try:
            await emu.wait_for_bot_ready(timeout=60)
            assert emu.connected_shards == [0, 1]
            syncs = [c for c in emu.rest_calls if c.method == "PUT" and "/commands" in c.path]
            assert len(syncs) == 1  # once for the bot, by the process running shard 0

            # The lobby, in the channel: the guild's process.
            new = await emu.slash(alice, channel, "game new", {"game": GAME})
            table = await new.final()
            assert new.record.shard_id == 1
            for user in (bob, carol):
                await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
            start = await emu.click(alice, table.id, emu.get_message(table.id).button("Start"))
            assert start.record.shard_id == 1

            # Round 1: alice and bob order in their DMs (the DM process), carol with the
            # controls of /game hand in the channel (the guild's process).
            played: set[int] = set()
            round_one = await menus(emu, users, played)
            played |= {m.id for m in round_one.values()}
            by_dm = [r for u in (alice, bob) for r in await play_by_dm(emu, u, round_one[u])]
            assert {r.record.shard_id for r in by_dm} == {0}
            # Each click's answer shows the move on the DM (7), or only acknowledges it (6)
            # and the DM is edited after; never an error.
            assert all(r.type in (6, 7) and not r.ephemeral for r in by_dm)

            # What the DM process committed, the guild's process answers with.
            status = await emu.slash(carol, channel, "game status")
            assert status.record.shard_id == 1 and status.message is not None
            assert "round 1/5" in status.message.current_text()
            hand = await emu.slash(carol, channel, "game hand")
            assert hand.record.shard_id == 1 and hand.message is not None
            in_channel = [*await order(emu, carol, hand.message.id)]
            in_channel.append(await confirm(emu, carol, hand.message.id))
            assert {r.record.shard_id for r in in_channel} == {1}
            await settle(emu, lambda: count(emu, channel, "Round 1 — dinner is served") == 1)

            # Round 2: its reminder and its deadline fall due while both processes run.
            round_two = await menus(emu, users, played)
            played |= {m.id for m in round_two.values()}
            await play_by_dm(emu, alice, round_two[alice])  # alice moves; bob and carol don't
            store = await open_store(url)
            try:
                await store.raw_execute(
                    "UPDATE timers SET due_at = ? WHERE session_id = ? AND kind = 'reminder'",
                    (time.time(), SESSION),
                )

                def reminded(user: int) -> int:
                    return sum(
                        "was waiting for your move" in m.current_text()
                        for m in emu.dm_messages(user)
                    )

                await settle(emu, lambda: reminded(bob) and reminded(carol))
                await store.raw_execute(
                    "UPDATE timers SET due_at = ? WHERE session_id = ? AND kind = 'deadline'",
                    (time.time(), SESSION),
                )
                await settle(emu, lambda: count(emu, channel, "Round 2 — dinner is served"))
                await asyncio.sleep(6)  # both schedulers wake at least once more meanwhile
                assert (reminded(alice), reminded(bob), reminded(carol)) == (0, 1, 1)
                assert count(emu, channel, "Time's up") == 1
                assert count(emu, channel, "Round 2 — dinner is served") == 1
                timeouts = [a for a in await store.actions(SESSION) if a.source == "timeout"]
                assert {a.player for a in timeouts} == {str(bob), str(carol)}
            finally:
                await store.close()

            # Round 3: the guild's process is killed mid-round; DMs still reach the other,
            # which plays on and shows everything in the channel (REST needs no shard).
            round_three = await menus(emu, users, played)
            played |= {m.id for m in round_three.values()}
            await order(emu, bob, round_three[bob].id)
            await guild_side.kill()
            for user in users:
                await play_by_dm(emu, user, round_three[user])
            for number in (4, 5):
                await settle(emu, lambda n=number - 1: count(emu, channel, f"Round {n} — dinner"))
                this_round = await menus(emu, users, played)
                played |= {m.id for m in this_round.values()}
                for user in users:
                    await play_by_dm(emu, user, this_round[user])
            await settle(emu, lambda: count(emu, channel, "game over") == 1)
            await asyncio.sleep(1.0)  # the last edits
        finally:
            await guild_side.stop()
            await dms.stop()

        store = await open_store(url)
        try:
            service = SessionService(store)
            s = await service.load(SESSION)
            assert s.status is SessionStatus.FINISHED
            assert await service.replay(SESSION) == s.state
            assert s.state is not None
            expected = collections.Counter(a.title for a in s.state.announcements)
            expected["🏁 Café Carnage — game over"] += 1  # the final message
            posted = collections.Counter(
                embed["title"]
                for m in game_messages(emu, channel)
                if m.id != table.id and not m.deleted
                for embed in m.embeds  # one move's announcements share a message
                if "title" in embed
            )
            assert posted == expected  # every announcement once, from whichever process
            # The channel keeps just the table: the rest went to its thread.
            assert [m.id for m in emu.channel_messages(channel)] == [table.id]
            assert all(p.sent_at is not None for p in await store.posts(SESSION))
        finally:
            await store.close()
        assert dms.errors() == [] and guild_side.errors() == []
        emu.assert_clean()
