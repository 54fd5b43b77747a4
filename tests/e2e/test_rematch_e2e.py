"""After the end: the final message (standings, a chart of how the game went, Rematch), and a
rematch that seats everyone again in a new lobby in the same channel."""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image

from bot.core.store import SessionStatus
from emulator import Message
from tests.e2e.harness import World, ephemeral_text, open_game, world


def final_message(w: World, session_id: int = 1) -> Message:
    found = [
        m
        for m in w.game_messages()
        if any(cid == f"cb:r:{session_id}" for _, cid, _ in m.buttons())
    ]
    assert len(found) == 1, "one final message with a Rematch button"
    return w.emu.get_message(found[0].id)


async def test_the_end_shows_standings_and_a_chart_and_a_rematch_seats_everyone(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, players=4) as w, w.bot_running() as bot:
        alice, bob, carol, stranger = w.users
        w.users = [alice, bob, carol]
        table = await open_game(w, "cafe-carnage", timeout=300)
        await w.finish_by_deadlines()
        row = await bot.store.get_session(1)
        assert row is not None and row.status is SessionStatus.FINISHED
        outcome = json.loads(row.outcome or "{}")

        final = final_message(w)
        text = final.current_text()
        assert "game over" in text
        for name in ("Alice", "Bob", "Carol"):
            assert name in text
        best = max(outcome["scores"].values())
        assert f"— {best}" in text, "the standings show the scores"
        chart = Image.open(io.BytesIO(final.file("chart.png")))
        assert chart.size[0] > 300 and chart.format == "PNG"
        assert final.embed_images() == [final.attachments[0]["url"]], "the chart is in the embed"
        assert final.channel_id != w.channel, "it is posted in the game's thread"

        refused = await w.emu.click(stranger, final.id, "cb:r:1")
        assert "Only this game's players" in ephemeral_text(refused)
        assert await bot.store.rematch_of(1) is None, "a refused rematch opens nothing"

        pressed = await w.emu.click(bob, final.id, "cb:r:1")
        await w.settle()
        answer = ephemeral_text(pressed)
        assert "Rematch!" in answer
        rematch = await bot.store.rematch_of(1)
        assert rematch is not None and rematch.status is SessionStatus.LOBBY
        assert rematch.channel_id == w.channel and rematch.host_id == str(bob)
        players = await bot.store.players(rematch.id)
        assert [p.user_id for p in players] == [str(bob), str(alice), str(carol)]
        old_options, new_options = json.loads(row.options), json.loads(rematch.options)
        assert new_options == old_options and new_options["turn_timeout"] == 300
        lobby = w.table_message(rematch.id)
        assert lobby.channel_id == w.channel and lobby.id != table.id
        assert str(lobby.id) in answer, "the answer links to the new lobby"
        assert "Players (3/" in lobby.current_text() and "Rematch of game #1" in lobby.content

        again = await w.emu.click(alice, final.id, "cb:r:1")
        assert "already open" in ephemeral_text(again) and str(lobby.id) in ephemeral_text(again)
        assert len(await bot.store.sessions_with_status("lobby")) == 1

        await w.emu.click(carol, lobby.id, lobby.button("Leave"))
        await w.settle()
        assert [p.user_id for p in await bot.store.players(rematch.id)] == [str(bob), str(alice)]
        assert "Players (2/" in w.emu.get_message(lobby.id).current_text()


async def test_a_rematch_whose_lobby_post_fails_says_it_is_open(tmp_path: Path) -> None:
    """The rematch is stored, then posting its lobby fails (Discord 503): the answer says the
    rematch is open (not "nothing was changed"), and the lobby is posted a moment later."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage", timeout=300)
        await w.finish_by_deadlines()
        final = final_message(w)
        w.emu.inject_fault("POST", f"/channels/{w.channel}/messages", status=503, times=1)
        pressed = await w.emu.click(w.users[1], final.id, "cb:r:1")
        answer = ephemeral_text(pressed)
        assert "Rematch!" in answer and "Nothing was changed" not in answer, answer
        rematch = await bot.store.rematch_of(1)
        assert rematch is not None and rematch.status is SessionStatus.LOBBY
        await w.settle()  # the table sync posts the lobby after its pause
        lobby = w.table_message(rematch.id)
        assert "Rematch of game #1" in lobby.content
