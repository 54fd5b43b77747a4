"""Discord's global limit (~50 REST requests a second per bot; a click's own callback exempt):
the bot keeps under its budget (``rest_budget``) before Discord must refuse, its table and DM
updates wait and coalesce meanwhile, and a click is answered at once whatever the budget.

The emulator's global limit is set low here (``BUDGET`` a second on its clock) and the bot's
budget to the same: a burst of moves asks for several times more."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from emulator import DiscordEmulator, InteractionResult, Message
from tests.e2e.harness import World, handlers_done, open_game, world

GAME = "cafe-carnage"
CONFIRM = "Confirm order & ballot"
BUDGET = 10  # requests a second: the emulator's global limit, and the bot's budget


def limit_globally(emu: DiscordEmulator, per_second: int) -> None:
    """The emulator's global limit: ``per_second`` requests in a second of its clock (the
    other buckets keep the tests' short windows)."""
    limiter = emu.rate_limiter
    limiter.global_limit = per_second
    limiter.global_window = 1.0 / limiter.scale


def menu(emu: DiscordEmulator, user: int) -> Message:
    """The player's newest DM with the round's choices still open."""
    for message in reversed(emu.dm_messages(user)):
        if choices(message):
            return emu.get_message(message.id)
    raise AssertionError(f"user {user} has no open menu")


def choices(message: Message) -> list[str]:
    """The first button of each choice row (a course each, then the action card)."""
    rows = [
        [c for c in row.get("components") or [] if str(c.get("custom_id")).startswith("cb:g:")]
        for row in message.all_components()
        if row.get("type") == 1
    ]
    return [str(row[0]["custom_id"]) for row in rows if row and not row[0].get("disabled")][:4]


async def pick(emu: DiscordEmulator, user: int) -> list[InteractionResult]:
    message = menu(emu, user)
    return [await emu.click(user, message.id, custom_id) for custom_id in choices(message)]


async def confirm(emu: DiscordEmulator, user: int, message_id: int) -> InteractionResult:
    return await emu.click(user, message_id, emu.get_message(message_id).button(CONFIRM))


def edits_of(emu: DiscordEmulator, message_id: int, since: int = 0) -> int:
    """REST edits of a message (a click's own answer edits it through its callback instead)."""
    return sum(
        1
        for call in emu.rest_calls[since:]
        if call.method == "PATCH" and call.path.endswith(f"/messages/{message_id}")
    )


def shown(emu: DiscordEmulator, channels: list[int], users: list[int]) -> dict[int, Any]:
    """What each table and DM shows: text, embeds and controls, by message."""
    messages = [m for c in channels for m in emu.channel_messages(c)]
    messages += [m for u in users for m in emu.dm_messages(u)]
    return {m.id: (m.content, m.embeds, m.components) for m in messages}


async def restart_changes_nothing(w: World, channels: list[int]) -> None:
    """A fresh bot draws every open game from the database at start: it must find each table
    and DM showing the stored state already (an edit that changes nothing, or none)."""
    before = shown(w.emu, channels, w.users)
    # The old bot's last requests leave the emulator's one-second window before the new bot's
    # log-in and command sync (not paced: see bot/adapter/pacing.py).
    await asyncio.sleep(1.0)
    async with w.bot_running():
        await w.settle()
        after = shown(w.emu, channels, w.users)
    assert after.keys() == before.keys(), "the restart sent a message the first bot owed"
    stale = [mid for mid in before if before[mid] != after[mid]]
    assert not stale, f"{len(stale)} message(s) were not showing the final state"


@pytest.mark.parametrize("budget", [BUDGET, 0], ids=["paced", "not paced"])
async def test_a_burst_beyond_the_budget_gets_no_429_and_every_message_ends_at_the_final_state(
    tmp_path: Path, budget: int
) -> None:
    """Three tables of three play a round as fast as clicks are answered, asking several times
    the budget. Paced: no 429, and a restart finds every table and DM at the final state (how
    edits coalesce: the test below, where the wait does not depend on the machine's speed). Not paced (budget 0), the same burst is
    refused 429s: the check above can fail."""
    async with DiscordEmulator() as emu:
        limit_globally(emu, BUDGET)
        guild = emu.add_guild("Game Night")
        tables = []
        for n in range(3):
            channel = emu.add_text_channel(guild, f"cafe-{n}")
            tables.append((channel, [emu.add_user(f"p{n}-{i}", guild=guild) for i in range(3)]))
        everyone = [u for _, users in tables for u in users]
        w = World(emu, guild, tables[0][0], everyone, tmp_path / "cafebot.sqlite3")
        w.rest_budget = budget
        async with w.bot_running() as bot:
            messages = []
            for channel, users in tables:
                w.channel, w.users = channel, users
                messages.append((await open_game(w, GAME)).id)
            w.users = everyone
            await emu.wait_until(lambda: all(choices(menu(emu, u)) for u in everyone), 30)
            since, limited = len(emu.rest_calls), len(emu.rate_limited)

            async def play(user: int) -> InteractionResult:
                dm = menu(emu, user).id
                await pick(emu, user)
                return await confirm(emu, user, dm)

            confirmed = await asyncio.gather(*(play(u) for u in everyone))
            assert all(r.type == 7 for r in confirmed), "each confirm answered by its callback"
            await w.settle()
            await emu.wait_until(lambda: all(choices(menu(emu, u)) for u in everyone), 30)
            await handlers_done()
            await bot.tables.idle()
            refused = emu.rate_limited[limited:]
            if not budget:
                assert refused, "the burst asks more than Discord's global limit allows"
                assert bot.pacer is None
                return
            assert refused == [], "paced under the global limit: no 429"
            assert bot.pacer is not None and bot.pacer.waited > 0, "the budget was tight"
            assert all(edits_of(emu, m, since) for m in messages), "every table shows the round"
        await restart_changes_nothing(w, [channel for channel, _ in tables])
        emu.assert_clean()


async def test_a_click_is_answered_at_once_while_the_budget_is_spent(tmp_path: Path) -> None:
    """With the whole budget taken, two players confirm: each click is answered by its own
    callback at once, while what their moves change elsewhere (the table) waits; when the
    budget frees, the table is edited once, with both moves."""
    async with world(tmp_path, players=3) as w:
        limit_globally(w.emu, BUDGET)
        w.rest_budget = BUDGET
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            first, second, _ = w.users
            dms = {user: menu(w.emu, user).id for user in (first, second)}
            for user in (first, second):
                await pick(w.emu, user)
            await w.settle()
            pacer = bot.pacer
            assert pacer is not None and pacer.limit == BUDGET
            since = len(w.emu.rest_calls)
            async with contextlib.AsyncExitStack() as spent:
                for _ in range(pacer.limit):  # another part of the bot spends the budget
                    await spent.enter_async_context(pacer.request())
                for user in (first, second):
                    answer = await confirm(w.emu, user, dms[user])
                    assert answer.type == 7, "answered by the click's own callback"
                    assert CONFIRM not in [b[0] for b in w.emu.get_message(dms[user]).buttons()]
                    await w.emu.wait_until(lambda: pacer.waiting > 0)
                    assert pacer.behind > 0, "the table's update waits for the budget"
                    assert edits_of(w.emu, table.id, since) == 0
            await w.settle()
            assert edits_of(w.emu, table.id, since) == 1, "two moves, one edit of the table"
            assert pacer.waiting == 0 and pacer.behind == 0
        await restart_changes_nothing(w, [w.channel])
