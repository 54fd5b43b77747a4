"""A restart gives Alien Café's round the time the bot was down; its table is edited for it only
when that is worth telling (bot/adapter/late_tables.py): a long round's table keeps the earlier
deadline (no REST call at the start) until a minute before it, a short round's table shows the
new one at once (one edit). The emulator records every request; the bot's clock is the test's."""

from __future__ import annotations

import re
from pathlib import Path

from bot.adapter.late_tables import LEAD
from emulator import RestCall
from games import REGISTRY
from tests.e2e.harness import World, world
from tests.e2e.test_alien_cafe_e2e import GAME, deadline, open_game, start_service

DAY = 86400


def table_edits(calls: list[RestCall], table_id: int) -> list[RestCall]:
    return [c for c in calls if c.method == "PATCH" and c.path.endswith(f"/messages/{table_id}")]


def game_calls(calls: list[RestCall]) -> list[str]:
    """The calls about channels and messages (not the command sync, the gateway, the bot)."""
    return [f"{c.method} {c.path}" for c in calls if c.path.startswith("/channels/")]


def shown_deadline(w: World) -> int:
    found = re.findall(r"<t:(\d+):R>", w.table_message().current_text())
    assert len(found) == 1, found
    return int(found[0])


async def test_a_long_rounds_table_keeps_its_deadline_until_a_minute_before_it(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 2) as w:
        async with w.bot_running():
            await open_game(w, GAME, timeout=DAY)  # a round of 24 h
            await start_service(w)
            w.clock.advance(DAY / 2 + 1)  # its reminder is sent (the only other timer)
            await w.fire_timers()
            before = await deadline(w)
            assert shown_deadline(w) == int(before.due_at)
        w.clock.advance(100)  # down for 100 s: a sliver of the half day the table shows left

        mark = len(w.emu.rest_calls)
        async with w.bot_running() as bot:
            await w.settle()
            after = await deadline(w)
            assert abs(after.due_at - before.due_at - 100) <= 1, "the downtime is given back"
            assert game_calls(w.emu.rest_calls[mark:]) == [], "nothing edited at the start"
            assert shown_deadline(w) == int(before.due_at), "the table shows the earlier one"
        w.clock.advance(50)  # a second restart: counted from what the table shows

        mark = len(w.emu.rest_calls)
        async with w.bot_running() as bot:
            await w.settle()
            again = await deadline(w)
            assert abs(again.due_at - before.due_at - 150) <= 1
            assert game_calls(w.emu.rest_calls[mark:]) == []
            assert bot.tables.late.shown == {1: before.due_at}, "from the memo, not 100 s later"
            # Nothing is due yet; a minute before the deadline the table shows, one edit
            # shows the true one.
            w.clock.advance(before.due_at - LEAD - w.clock() - 30)
            bot.tables.late.run_due()
            await w.settle()
            assert game_calls(w.emu.rest_calls[mark:]) == []
            w.clock.advance(31)
            bot.tables.late.run_due()
            await w.settle()
            table = w.table_message()
            assert len(table_edits(w.emu.rest_calls[mark:], table.id)) == 1
            assert shown_deadline(w) == int(again.due_at)
            assert bot.tables.late.shown == {}
            assert (await deadline(w)).key == "service-1", "the round goes on to its end"
        w.clock.advance(10)

        mark = len(w.emu.rest_calls)
        async with w.bot_running() as bot:
            await w.settle()
            # The table shows the true deadline (the memo of the earlier one was forgotten):
            # the 10 s given back are left for later, counted from it.
            latest = await deadline(w)
            assert game_calls(w.emu.rest_calls[mark:]) == []
            assert list(bot.tables.late.shown) == [1]
            assert abs(bot.tables.late.shown[1] - (latest.due_at - 10)) <= 1


async def test_a_short_rounds_table_shows_the_time_given_back_in_one_edit(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 2) as w:
        async with w.bot_running():
            await open_game(w, GAME)  # a round of 3 min
            await start_service(w)
            await w.settle()
            before = await deadline(w)
            table = w.table_message()
        w.clock.advance(100)  # down for 100 s of the 3 min

        mark = len(w.emu.rest_calls)
        async with w.bot_running() as bot:
            await w.settle()
            after = await deadline(w)
            assert abs(after.due_at - before.due_at - 100) <= 1
            calls = w.emu.rest_calls[mark:]
            assert len(table_edits(calls, table.id)) == 1, game_calls(calls)
            assert game_calls(calls) == [f"PATCH /channels/{w.channel}/messages/{table.id}"]
            # What the syncs locked (the messages, the channels) is not kept once they are done.
            assert len(bot.tables._message_locks) == 0
            assert len(bot.tables.messenger._channel_locks) == 0
            assert shown_deadline(w) == int(after.due_at)
            assert bot.tables.late.shown == {}
            # The game's rules say so, on their last page.
            rules = await w.emu.slash(w.users[0], w.channel, "game rules", {"game": GAME})
            assert rules.message is not None
            footer = rules.message.embeds[0]["footer"]["text"]
            last = int(footer.split("/")[1].split(" ")[0])
            assert bot.screens is not None
            embed, _ = bot.screens.help_page(REGISTRY[GAME], last - 1)
            assert embed.title is not None and "If the bot restarts" in embed.title
            assert "never later than the real one" in (embed.description or "")
