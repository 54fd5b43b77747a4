"""What the table sync remembers of the games' messages is bounded: an ended game's goes, and
beside their digests open games' are kept for the latest few (a game left out is still shown
right after).

Café Carnage through the emulator, its games ended by their deadlines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.adapter import sync_state as tables_module
from bot.adapter.tables import TableSync
from tests.e2e.harness import open_game, world
from tests.e2e.test_cafe_carnage_e2e import GAME, finished, play_round


def remembered(tables: TableSync, session_id: int) -> dict[str, list[Any]]:
    """The entries kept about ``session_id``'s messages, by map."""
    by_session = {
        "table digests": tables._table_digests,
        "table awaited": tables._table_awaited,
        "table calm until": tables._table_calm,
        "threads": tables._threads,
    }
    by_view = {
        "edit times": tables._edited_at,
        "DMs shown": tables._dm_shown,
        "answers drawn": tables._answer_drew,
    }
    found = {name: [k for k in m if k == session_id] for name, m in by_session.items()}
    found |= {name: [k for k in m if k[0] == session_id] for name, m in by_view.items()}
    return {name: keys for name, keys in found.items() if keys}


async def test_an_ended_games_messages_are_forgotten(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        await open_game(w, GAME)
        await play_round(w)
        kept = remembered(bot.tables, 1)
        assert kept.get("table digests") and kept.get("DMs shown"), kept
        await w.finish_by_deadlines(1)
        assert finished(w)
        assert remembered(bot.tables, 1) == {}


async def test_what_is_remembered_of_open_games_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables_module, "SESSIONS_KEPT", 1)
    monkeypatch.setattr(tables_module, "VIEWS_KEPT", 3)
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        first_channel = w.channel
        await open_game(w, GAME)
        first = remembered(bot.tables, 1)
        assert first.get("table digests") and first.get("DMs shown"), first
        w.channel = w.emu.add_text_channel(w.guild, "cafe-2")
        await open_game(w, GAME)
        tables = bot.tables
        assert list(tables._table_awaited) == [2] and len(tables._edited_at) <= 3
        assert len(tables._table_calm) <= 1
        first = remembered(tables, 1)
        assert "table awaited" not in first
        # Its digests are kept while it is open (without them, a full pass edits again).
        assert first.get("table digests") and first.get("DMs shown"), first
        # The first game, partly forgotten, is still shown to its end; then it is forgotten.
        w.channel = first_channel
        await w.finish_by_deadlines(1)
        assert finished(w)
        assert remembered(tables, 1) == {}
        assert len(tables._edited_at) <= 3 and len(tables._table_awaited) <= 1
