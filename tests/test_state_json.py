"""The store's incremental state JSON is byte for byte ``state_text()`` (pydantic's JSON in
ASCII), in every game, and reads back as the same state."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.core import state_json
from bot.core.state_json import StateJson, state_text
from games import REGISTRY
from games.engine import apply
from games.rng import Rng
from tests.playing import random_move

GAMES = sorted(REGISTRY)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_state_of_a_random_game_encodes_as_pydantic_does(game_id: str, seed: int) -> None:
    game = REGISTRY[game_id]
    rng = Rng(seed=seed)
    players = [f"p{i}" for i in range(game.max_players if seed == 1 else game.min_players)]
    state = game.setup(players, game.Options(), seed)
    encoder = StateJson()
    steps = 0
    while game.outcome(state) is None:
        text = encoder.dump(7, state)
        assert text == state_text(state), f"step {steps}"
        assert text.isascii() and json.loads(text) == json.loads(state.model_dump_json())
        assert game.load_state(text) == state
        player, action = random_move(game, state, rng, timeout_one_in=10)
        state = apply(game, state, player, action)
        steps += 1
    assert encoder.dump(7, state) == state_text(state)
    assert steps > 5
    # Another session's state, or a session forgotten, is encoded in full, and still the same.
    encoder.forget(7)
    assert encoder.dump(7, state) == encoder.dump(8, state) == state_text(state)


def test_a_move_re_encodes_only_the_fields_it_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    game = REGISTRY["cafe-carnage"]
    assert game.copy_on_write
    players = [f"p{i}" for i in range(6)]
    state = game.setup(players, game.Options(), 3)
    encoder = StateJson()
    encoder.dump(1, state)
    encoded: list[str] = []
    real_part = state_json._part

    def counting_part(prefix: str, encoder: Any, value: Any) -> str:
        encoded.append(prefix.strip('{,":'))  # '{"name":' or ',"name":'
        return real_part(prefix, encoder, value)

    monkeypatch.setattr(state_json, "_part", counting_part)
    action = game.legal_actions(state, "p0")[0]
    after = apply(game, state, "p0", action)
    assert encoder.dump(1, after) == state_text(after)
    fields = len(type(after).model_fields)
    assert 0 < len(encoded) <= 3 < fields, encoded
    assert set(encoded) <= set(type(after).model_fields), encoded
    assert "history" not in encoded and "decks" not in encoded


def test_a_round_s_end_encodes_only_the_new_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """The announcements and the round history only grow: at a round's end the records they
    held keep their text, and only the new ones are encoded."""
    game = REGISTRY["cafe-carnage"]
    players = [f"p{i}" for i in range(4)]
    state = game.setup(players, game.Options(), 5)
    encoder = StateJson()
    encoded: list[str] = []
    real_part = state_json._part

    def counting_part(prefix: str, adapter: Any, value: Any) -> str:
        encoded.append(prefix.strip('{,":'))
        return real_part(prefix, adapter, value)

    rounds_ended = 0
    while rounds_ended < 3:
        before = state
        encoder.dump(1, before)
        encoded.clear()
        with monkeypatch.context() as patch:
            patch.setattr(state_json, "_part", counting_part)
            player = sorted(game.active_players(state))[0]
            state = apply(game, state, player, game.on_timeout(state, player))
            text = encoder.dump(1, state)
        assert text == state_text(state)
        if state.round != before.round:
            rounds_ended += 1
            assert len(state.history) == len(before.history) + 1
            assert len(state.announcements) > len(before.announcements) > 0
            assert "decks" in encoded  # the round's end replaced these: encoded in full
            assert "history" not in encoded and "announcements" not in encoded, encoded
