"""Seasons: only Manage Server starts or ends one; the game's board shows the season and all
time; an ended season's final table is posted once (from the outbox): through a Discord
outage, a restart while it waits, and a post whose answer was lost."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.harness import ephemeral_text, world
from tests.e2e.test_stats_e2e import board_rows, finish_game

MANAGE_GUILD = 1 << 5


async def test_a_season_from_start_to_its_final_table(tmp_path: Path) -> None:
    async with world(tmp_path, players=3) as w:
        alice, bob, carol = w.users
        organizer = w.emu.add_user("olga")
        role = w.emu.add_role(w.guild, "Organizer", MANAGE_GUILD)
        w.emu.add_member(w.guild, organizer, roles=[role])

        def finals() -> list[str]:
            return [t for t in w.channel_texts() if "Spring cup is over" in t]

        async with w.bot_running() as bot:
            await finish_game(w, "cafe-carnage", [alice, bob, carol])  # before the season
            refused = await w.emu.slash(alice, w.channel, "game season start", {"name": "X"})
            assert refused.ephemeral and "Only someone with Manage Server" in ephemeral_text(
                refused
            )
            assert await bot.store.open_season(w.guild) is None
            nothing = await w.emu.slash(organizer, w.channel, "game season end", {})
            assert nothing.ephemeral and "No season is running" in ephemeral_text(nothing)

            started = await w.emu.slash(
                organizer, w.channel, "game season start", {"name": "Spring cup"}
            )
            assert started.message is not None and not started.ephemeral
            assert "Spring cup** has begun" in started.message.content
            again = await w.emu.slash(organizer, w.channel, "game season start", {})
            assert again.ephemeral and "already running" in ephemeral_text(again)

            await finish_game(w, "cafe-carnage", [alice, bob, carol])
            text = ephemeral_text(
                await w.emu.slash(bob, w.channel, "game stats", {"game": "cafe-carnage"})
            )
            assert "Spring cup (this season)" in text and "All time" in text
            season = await bot.store.open_season(w.guild)
            assert season is not None
            in_season = await bot.store.rating_board(w.guild, "cafe-carnage", season.id)
            assert [line.games for line in in_season] == [1, 1, 1]
            all_time = await bot.store.rating_board(w.guild, "cafe-carnage", 0)
            assert [line.games for line in all_time] == [2, 2, 2]

            # Discord refuses the channel's posts: the final table waits in the outbox, and the
            # bot stops (as after a crash, the outbox row is all there is of it).
            posting = re.compile(rf"/channels/{w.channel}/messages$")
            outage = w.emu.inject_fault("POST", posting, status=503, times=None)
            ended = await w.emu.slash(organizer, w.channel, "game season end", {})
            assert ended.ephemeral and "Spring cup** is over" in ephemeral_text(ended)
            await w.settle()
            waiting = [
                p
                for row in await bot.store.sessions_with_status("finished")
                for p in await bot.store.posts(row.id)
                if "season" in p.payload and p.sent_at is None
            ]
            assert len(waiting) == 1 and waiting[0].target == f"channel:{w.channel}"
        outage.remove()
        # Posted at Discord, its answer lost: the retry must not post it twice.
        w.emu.inject_fault("POST", posting, status=500, processed=True, times=1)
        async with w.bot_running():
            await w.emu.wait_until(lambda: len(finals()) == 1, timeout=60)
            await w.settle()
            assert len(finals()) == 1
            assert w.emu.nonce_duplicates, "the lost answer's retry was deduplicated by its nonce"
            final = finals()[0]
            assert "Café Carnage" in final
            rows = board_rows(final)
            for rank, line in enumerate(in_season, start=1):
                name = {str(alice): "Alice", str(bob): "Bob", str(carol): "Carol"}[line.player]
                assert rows[name] == [str(rank), f"{line.ordinal:.1f}", "1"]

        async with w.bot_running():  # another restart sends nothing again
            await finish_game(w, "cafe-carnage", [alice, bob, carol])
            assert len(finals()) == 1
            text = ephemeral_text(
                await w.emu.slash(bob, w.channel, "game stats", {"game": "cafe-carnage"})
            )
            assert "this season" not in text
