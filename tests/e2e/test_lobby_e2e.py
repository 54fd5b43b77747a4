"""What /game new offers works for every registered game."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapter.commands import GAME_CHOICES, TIMEOUT_CHOICES
from games import REGISTRY
from tests.e2e.harness import ephemeral_text, world


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
