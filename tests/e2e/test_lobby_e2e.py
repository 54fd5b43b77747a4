"""What /game new offers works for every registered game."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapter.commands import GAME_CHOICES, TIMEOUT_CHOICES
from games import REGISTRY
from tests.e2e.harness import controls, ephemeral_text, open_game, world


def test_every_registered_game_is_offered() -> None:
    assert [c.value for c in GAME_CHOICES] == list(REGISTRY)


@pytest.mark.parametrize("game", list(REGISTRY))
async def test_every_timeout_offered_is_accepted(tmp_path: Path, game: str) -> None:
    """/game new offers one list of timeouts for every game: each game must accept them all."""
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        for number, choice in enumerate(TIMEOUT_CHOICES):
            channel = w.emu.add_text_channel(w.guild, f"t{number}")
            result = await w.emu.slash(
                w.users[0], channel, "game new", {"game": game, "timeout": choice.value}
            )
            table = await result.final()
            assert not table.ephemeral_to, f"{choice.name} refused: {ephemeral_text(result)}"
        assert len(await bot.store.sessions_with_status("lobby")) == len(TIMEOUT_CHOICES)


@pytest.mark.parametrize("game", list(REGISTRY))
async def test_every_setting_suggested_is_accepted(tmp_path: Path, game: str) -> None:
    async with world(tmp_path, 1) as w, w.bot_running():
        choices = await w.emu.autocomplete(
            w.users[0], w.channel, "game new", {"game": game, "setting": ""}, focused="setting"
        )
        for number, choice in enumerate(choices):
            channel = w.emu.add_text_channel(w.guild, f"s{number}")
            result = await w.emu.slash(
                w.users[0], channel, "game new", {"game": game, "setting": choice["value"]}
            )
            table = await result.final()
            assert not table.ephemeral_to, f"{choice['value']} refused"
        bad = await w.emu.slash(
            w.users[0], w.channel, "game new", {"game": game, "setting": "colour=plaid"}
        )
        assert "no option" in ephemeral_text(bad)


async def test_a_join_on_a_deleted_lobby_message_says_the_player_is_seated(
    tmp_path: Path,
) -> None:
    """Issue: a Join click on a lobby whose message was deleted meanwhile was answered "Nothing
    was changed", but the player was seated (the click's update of the deleted message failed
    after the join was stored). The answer says what happened, with the lobby, and the lobby
    is posted again in the channel."""
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        alice, bob, carol = w.users
        new = await w.emu.slash(alice, w.channel, "game new", {"game": "cafe-carnage"})
        table = await new.final()
        join = table.button("Join")
        w.emu.delete_message(table.id)  # by a moderator, while Bob has it on screen
        result = await w.emu.forge_component(bob, table.id, join, skip_checks=True)
        s = await bot.service.load(1)
        assert s.player(str(bob)) is not None, "Bob is seated"
        answer = await result.final()
        assert answer.ephemeral_to == bob
        text = answer.current_text()
        assert "Nothing was changed" not in text and "went wrong" not in text, text
        assert "You joined" in text and "game #1" in text, text
        assert "Bob" in text, "the answer shows the lobby, Bob seated"
        await w.settle()
        lobby = w.table_message()
        assert lobby.id != table.id and not lobby.deleted
        assert "Bob" in lobby.current_text()
        # From the lobby posted again, the game goes on.
        await w.emu.click(carol, lobby.id, lobby.button("Join"))
        await w.emu.click(alice, lobby.id, lobby.button("Start"))
        await w.settle()
        assert (await bot.service.load(1)).state is not None


async def test_a_move_on_a_deleted_table_message_says_it_was_played(tmp_path: Path) -> None:
    """The same for a move: the click's update of the deleted table fails after the move is
    stored; the answer says the move was played and shows the table, which is posted again."""
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        s = await bot.service.load(1)
        assert s.state is not None
        (current,) = s.game.active_players(s.state)
        control = controls(table, 1, "t")[0]
        w.emu.delete_message(table.id)
        result = await w.emu.forge_component(
            int(current), table.id, control.custom_id, skip_checks=True
        )
        after = await bot.service.load(1)
        assert after.version > s.version, "the move is stored"
        text = (await result.final()).current_text()
        assert "Your move in game #1 was played" in text and "Nothing was changed" not in text
        await w.settle()
        assert w.table_message().id != table.id, "the table is posted again"
