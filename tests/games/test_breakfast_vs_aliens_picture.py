"""Breakfast vs Aliens' table as a picture (issue 29: the table was only emoji text)."""

from __future__ import annotations

import io

from PIL import Image

from games.breakfast_vs_aliens import GAME
from games.breakfast_vs_aliens.catalogue import card
from games.breakfast_vs_aliens.state import BvaState
from games.engine import apply, new_game
from games.rng import Rng


def played(moves: int, mode: str) -> BvaState:
    state = new_game(GAME, ["a", "b", "c"], GAME.parse_options({"mode": mode}), 5)
    rng = Rng(seed=1)
    for _ in range(moves):
        p = sorted(GAME.active_players(state))[0]
        state = apply(GAME, state, p, rng.choice(list(GAME.legal_actions(state, p))))
    return state


def test_the_table_has_a_picture_of_public_cards_only() -> None:
    for mode in ("mini-muffin", "full-pancake"):
        state = played(30, mode)
        picture = GAME.table(state)[0].image
        assert picture is not None
        png = GAME.draw(picture.spec)
        assert png == GAME.draw(picture.spec), "equal specs draw equal bytes"
        assert Image.open(io.BytesIO(png)).width == 800
        for pid in state.players:
            assert f"{{p:{pid}}}:" in picture.alt
            for hero in state.heroes[pid]:
                assert card(hero).name in picture.alt
        # Nothing of the face-down deck: no card there is named unless it is also in sight.
        shown = {
            card(c).name
            for c in [*state.play, *(h for p in state.players for h in state.heroes[p])]
        }
        if state.alien:
            shown.add(card(state.alien).name)
        for hidden in state.deck:
            name = card(hidden).name
            assert name in shown or (name not in picture.alt and name not in str(picture.spec))
