"""A restart touches only what is behind: a game whose table, DMs and posts already show its
state makes no REST call at start-up (a big server's idle games), while a game that changed
while the bot was down (its table behind) is brought up to date. The emulator records every
request."""

from __future__ import annotations

from pathlib import Path

from bot.core.sessions import SessionService
from bot.core.store import open_store
from emulator import Message
from tests.e2e.harness import World, open_game, world


async def open_in(w: World, channel: int, game: str) -> Message:
    """A game opened and started in ``channel`` (the harness's helper plays in w.channel)."""
    main = w.channel
    w.channel = channel
    try:
        return await open_game(w, game)
    finally:
        w.channel = main


async def move_while_down(w: World, session_id: int) -> int:
    """A legal move stored straight into the database while no bot runs (another tool, or a
    crash after the commit): the game's messages are now behind. Returns its version."""
    store = await open_store(f"sqlite:///{w.db_path}")
    try:
        service = SessionService(store)
        s = await service.load(session_id)
        assert s.state is not None
        player = sorted(s.game.active_players(s.state))[0]
        action = s.game.legal_actions(s.state, player)[0]
        moved = await service.act(session_id, player, action.model_dump(mode="json"))
        return moved.session.version
    finally:
        await store.close()


async def test_a_restart_makes_no_call_for_games_shown_and_syncs_the_one_behind(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 3) as w:
        behind_channel = w.emu.add_text_channel(w.guild, "cafe-2")
        async with w.bot_running():
            shown = await open_in(w, w.channel, "cafe-carnage")  # game 1: a table and DMs
            behind = await open_in(w, behind_channel, "monster-cafe")  # game 2: its table
            await w.settle()
        behind_text = w.emu.get_message(behind.id).current_text()
        version = await move_while_down(w, 2)

        mark = len(w.emu.rest_calls)
        async with w.bot_running() as bot:
            await w.settle()
            assert (await bot.service.load(2)).version == version
            calls = w.emu.rest_calls[mark:]
            threads = {c.id for c in w.emu.channels.values() if c.parent_id == behind_channel}
            on_channels = [c for c in calls if c.path.startswith("/channels/")]
            # Nothing of game 1 (its channel, its thread, its players' DMs): only game 2's.
            assert on_channels, "the game that changed while the bot was down was not synced"
            assert all(
                c.path.split("/")[2] in {str(behind_channel), *map(str, threads)}
                for c in on_channels
            ), [f"{c.method} {c.path}" for c in on_channels]
            # Game 2's table shows the move made while the bot was down.
            assert any(
                c.method == "PATCH" and c.path.endswith(f"/messages/{behind.id}")
                for c in on_channels
            )
            assert w.emu.get_message(behind.id).current_text() != behind_text
            assert w.emu.get_message(shown.id).current_text()  # game 1's table is still there
