"""What a click costs the bot beyond what it shows: work not done twice, no needless store trips.

Café Carnage through the emulator (its panels have no pictures): the panel of a player whose
view no move changed is not drawn again, messages without pictures leave no memo of them, and a
move that changes nothing the sync worker has to show now starts no sync pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.adapter import screens
from bot.adapter.sync_state import Pending
from bot.adapter.tables import TableSync
from games.cafe_carnage.game import CafeCarnage
from tests.e2e.harness import open_game, world
from tests.e2e.test_cafe_carnage_e2e import CONFIRM, GAME, confirm, order, play_round, tap


def count_panels_drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Café Carnage's panels drawn from now on, by viewer."""
    drawn: list[str] = []
    panel = CafeCarnage.panel

    def counted(self: CafeCarnage, state: Any, viewer: str) -> Any:
        drawn.append(viewer)
        return panel(self, state, viewer)

    monkeypatch.setattr(CafeCarnage, "panel", counted)
    return drawn


async def test_a_panel_no_move_changed_is_not_drawn_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = count_panels_drawn(monkeypatch)
    async with world(tmp_path, 4) as w, w.bot_running():
        await open_game(w, GAME)
        first, second = (str(u) for u in w.users[:2])
        # The first player orders and confirms: five moves that change only their own DM (and
        # the table, which shows who confirmed).
        await confirm(w, w.users[0], await order(w, w.users[0], None))
        await w.settle()
        dm = w.latest_dm(w.users[1])
        drawn.clear()
        # The second player's first pick: checked against their panel as it is now (the same
        # as when it was sent: no move since changed it), then answered with the new one.
        await tap(w, w.users[1], dm, 0)
        await w.settle()
        assert drawn.count(second) == 1, drawn
        assert first not in drawn


async def test_a_players_panel_outlives_the_other_drawings_of_a_busy_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each move of a busy bot draws a table and a panel: a player's panel, drawn to answer
    their click, must still be known at their next click (the others' moves left it as it
    was), not pushed out by the drawings of every version since (here, few are kept)."""
    drawn = count_panels_drawn(monkeypatch)
    monkeypatch.setattr(screens, "PARTS_KEPT", 2)  # as if a hundred games were played at once
    async with world(tmp_path, 4) as w, w.bot_running():
        await open_game(w, GAME)
        await w.settle()
        dms = [w.latest_dm(user) for user in w.users]
        for user, dm in zip(w.users, dms, strict=True):
            await tap(w, user, dm, 0)
        await w.settle()
        drawn.clear()
        await tap(w, w.users[0], dms[0], 1)
        await w.settle()
        # Once: the answer's (the click was checked against the panel its last answer drew).
        assert drawn.count(str(w.users[0])) == 1, drawn


async def test_messages_without_pictures_keep_no_memo_of_them(tmp_path: Path) -> None:
    async with world(tmp_path, 4) as w, w.bot_running() as bot:
        table = await open_game(w, GAME)
        await play_round(w)
        await w.settle()
        dms = [m for u in w.users for m in w.emu.dm_messages(u) if not m.ephemeral]
        assert len(dms) >= 2 * len(w.users), "a menu per player per round, and the join DMs"
        store = bot.service.store
        for message in [table, *dms]:
            assert await store.get_meta(f"memo:pictures:{message.id}") is None, message.id


async def test_a_confirm_starts_no_sync_pass_while_its_table_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A confirm changes the clicker's DM, which the click's own answer draws, and the table,
    edited a moment ago (for the confirm before it): neither starts a sync pass. The table's
    edit is put off to when its interval allows, and shows the newest state then (or at the
    next start, after a stop before it)."""
    passes: list[set[str | None] | None] = []
    sync_held = TableSync._sync_held

    async def counted(self: TableSync, session_id: int, pending: Pending) -> None:
        passes.append(pending.views)
        await sync_held(self, session_id, pending)

    monkeypatch.setattr(TableSync, "_sync_held", counted)
    async with world(tmp_path, 4) as w:
        w.table_edit_interval = 60.0  # the table's next edit is far off, however slow the test
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            first, user = w.users[:2]
            await confirm(w, first, await order(w, first, None))  # the table is edited
            ticks = w.emu.get_message(table.id).current_text().count("✅")
            message = await order(w, user, None)
            passes.clear()
            result = await w.emu.click(user, message.id, message.button(CONFIRM))
            assert result.type == 7, "the click's answer shows the confirmed order"
            await bot.tables.idle(delayed=False)
            assert passes == [], "neither the DM nor the table needed a pass now"
            assert w.emu.get_message(table.id).current_text().count("✅") == ticks
            await bot.close()  # a stop before the table's time: the edit is not lost...
        async with w.bot_running():  # ...the next start shows the newest state
            await w.settle()
            assert w.emu.get_message(table.id).current_text().count("✅") == ticks + 1


async def test_a_pass_that_finds_the_table_shown_puts_off_nothing(tmp_path: Path) -> None:
    """A pass that finds the table showing the session's version (e.g. the one that sends
    a round's DMs, after the pass that edited the table for it) leaves nothing for later,
    even though the table was edited a moment ago."""
    async with world(tmp_path, 4) as w:
        w.table_edit_interval = 60.0  # the table's next edit is far off, however slow the test
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            first = w.users[0]
            await confirm(w, first, await order(w, first, None))  # the worker edits the table
            shown = w.emu.get_message(table.id).current_text()
            assert "✅" in shown
            bot.tables.request_sync(1)  # a pass over everything: all of it shown already
            await bot.tables.idle(delayed=False)
            assert bot.tables.queue_depth() == 0


async def test_a_new_rounds_dms_count_the_players_other_games_in_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each new DM's footer says how many other games wait for its player: the round's DMs
    count them for all their players in one read of the store, not one each."""
    async with world(tmp_path, 4) as w, w.bot_running() as bot:
        await open_game(w, GAME)
        store = bot.service.store
        reads: list[list[str]] = []
        each = store.active_versions_of_each

        async def counted_each(user_ids: list[str]) -> dict[str, list[tuple[int, int]]]:
            reads.append(list(user_ids))
            return await each(user_ids)

        monkeypatch.setattr(store, "active_versions_of_each", counted_each)
        await play_round(w)
        assert [sorted(users) for users in reads] == [sorted(str(u) for u in w.users)]
        for user in w.users:
            assert "round 2/5" in w.latest_dm(user).current_text().lower()
