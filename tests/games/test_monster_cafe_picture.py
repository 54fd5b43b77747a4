"""Monster Café's table as a picture (issue 29: the table was only emoji text)."""

from __future__ import annotations

import io

from PIL import Image

from games.engine import apply, new_game
from games.monster_cafe import GAME
from games.monster_cafe.state import MonsterCafeState
from games.rng import Rng


def played(moves: int) -> MonsterCafeState:
    state = new_game(GAME, ["a", "b", "c"], GAME.parse_options({}), 5)
    rng = Rng(seed=1)
    for _ in range(moves):
        (p,) = GAME.active_players(state)
        state = apply(GAME, state, p, rng.choice(list(GAME.legal_actions(state, p))))
    return state


def test_the_table_has_a_picture_that_its_alt_text_tells() -> None:
    state = played(40)
    picture = GAME.table(state)[0].image
    assert picture is not None
    png = GAME.draw(picture.spec)
    assert png == GAME.draw(picture.spec), "equal specs draw equal bytes"
    image = Image.open(io.BytesIO(png))
    assert image.width == 800  # shown at half that on a phone: its type stays legible
    assert image.height > 300
    # The alt text tells what the picture shows: each table and each player's collection.
    for table in state.tables:
        assert f"Table {table.slot}" in picture.alt
    for pid in state.players:
        assert f"{{p:{pid}}}:" in picture.alt
    # A later state draws another picture; the same state, the same spec (cached by content).
    later = GAME.table(played(60))[0].image
    assert later is not None and later.spec != picture.spec
    assert GAME.table(state)[0].image == picture
