"""A new step's DM is sent as its panel was drawn (Discord's JSON, see render.PrivateDrawing):
the request must carry exactly what discord.py's send_message built from the Embed and View
made of that drawing, for every game's panels."""

from __future__ import annotations

import discord
import discord.http
import orjson
import pytest

from bot.adapter.messenger import drawn_message, nonce
from bot.adapter.render import PanelKeys, draw_private
from bot.adapter.screens import Rendered
from games import REGISTRY
from games.presentation import Panel
from tests.test_raw_components import panels_of_random_games

MENTIONS = [None, discord.AllowedMentions(everyone=False, roles=False)]


def sent_as_discord_py(
    rendered: Rendered, key_nonce: str, mentions: discord.AllowedMentions | None
) -> bytes:
    """What DmPanels sent before: Rendered.message()'s embeds and view through
    Messenger._create (content None, no files)."""
    kwargs = rendered.message()
    kwargs.pop("content", None)
    params = discord.http.handle_message_parameters(
        content=None, nonce=key_nonce, previous_allowed_mentions=mentions, files=[], **kwargs
    )
    assert not params.files
    return orjson.dumps(params.payload)


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_a_drawn_dm_sends_what_discord_py_would(game_id: str) -> None:
    checked = 0
    for index, (panel, names) in enumerate(panels_of_random_games(game_id, games=2)):
        drawing = draw_private(panel, names, session_id=42, seat="3", keys=PanelKeys.of(panel))
        footer = "Café · game #42" + (" · 2 other games wait for you" if index % 2 else "")
        data = drawing.data("<#77>", footer)
        rendered = Rendered(None, None, drawing.digest, data=data)
        key_nonce = nonce("dm", 42, index)
        mentions = MENTIONS[index % 2]
        drawn = orjson.dumps(drawn_message(data, key_nonce, mentions))
        assert drawn == sent_as_discord_py(rendered, key_nonce, mentions)
        checked += 1
    assert checked > 0


def test_a_drawn_dm_without_controls_has_no_components_key() -> None:
    """A panel with no controls (the game is over): no components at all, as send() leaves
    them out when it has no view."""
    panel = Panel(title="Over", description="The week is over")
    drawing = draw_private(panel, {}, session_id=1, seat="0", keys=PanelKeys.of(panel))
    data = drawing.data("<#1>", "f")
    payload = drawn_message(data, "n", None)
    assert "components" not in payload
    assert orjson.dumps(payload) == sent_as_discord_py(
        Rendered(None, None, "d", data=data), "n", None
    )
