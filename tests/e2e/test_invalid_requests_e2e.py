"""Discord's invalid-request budget: it bans a bot's IP for a while after 10,000 invalid requests
(401, 403, 429) in 10 minutes, every server of the bot down at once. The emulator sees every
request: these tests count the invalid ones per game."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.harness import (
    button_rows,
    ephemeral_text,
    error_answers,
    invalid_mark,
    invalid_requests,
    open_game,
    world,
)

CANNOT_DM = "403/50007"
THREAD_EXISTS = 160004


async def test_closed_dms_cost_one_refused_dm_per_game(tmp_path: Path) -> None:
    """Issue: with a player's DMs closed the bot tried again and again (about 17 refused DMs
    per game, picture uploads refused with them). Now: at most one per game, remembered
    across a restart; the table says so once; /game hand and Show my hand work as before; the
    next game tries again."""
    async with world(tmp_path, 3) as w:
        alice, bob, carol = w.users
        w.emu.set_dms_open(bob, False)
        start = invalid_mark(w.emu)
        async with w.bot_running() as bot:
            table = await open_game(w, "cafe-carnage")
            hand = await w.emu.slash(bob, w.channel, "game hand")
            assert "round 1/" in ephemeral_text(hand) and hand.message is not None
            assert button_rows(hand.message), "Bob's hand comes with its controls"
            shown = await w.emu.click(bob, table.id, w.table_message().button("Show my hand"))
            assert "round 1/" in ephemeral_text(shown)
            # Two rounds run out of time, then the bot restarts mid-game.
            for _ in range(2):
                deadline = await bot.service.deadline(1)
                assert deadline is not None
                w.clock.advance(deadline.due_at - w.clock() + 1)
                await w.fire_timers()
        async with w.bot_running():
            await w.settle()
            await w.finish_by_deadlines(1)
            first = invalid_requests(w.emu, start)
            assert first[CANNOT_DM] <= 1, first
            told = [m for m in w.game_messages() if "DMs are closed" in m.current_text()]
            assert len(told) == 1, [m.current_text() for m in told]
            assert f"<@{bob}>" in told[0].content and "/game hand" in told[0].content
            assert "Bob" in told[0].content
            assert error_answers(w.emu, 400, THREAD_EXISTS) == 0, "the restart found the thread"

            # The next game tries again: once.
            second_start = invalid_mark(w.emu)
            w.users = [alice, bob, carol]
            await open_game(w, "cafe-carnage")
            s = await w.running.service.open_in_channel(w.channel)
            assert s is not None
            await w.finish_by_deadlines(s.id)
            second = invalid_requests(w.emu, second_start)
            assert second[CANNOT_DM] == 1, second
        assert sum(invalid_requests(w.emu, start).values()) == first[CANNOT_DM] + 1
