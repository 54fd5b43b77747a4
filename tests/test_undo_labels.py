"""What the table hears of a move taken back, for every move of random games of every game.

`/game undo` posts "↩️ Alice took back …" where everyone reads it; the words after "took back"
(`bot.core.undo.public_move_label`) must not tell the table a secret of hers — a dish of her
hidden menu, her ballot, a tile of her hand — unless the game shows the table the same words at
that moment. Checked with the secrecy watch's own rule (tests/e2e/secrecy.py), without Discord,
on every move a player could ask to take back.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.undo import move_label, public_move_label
from games import REGISTRY
from games.engine import Undo, new_game
from games.rng import Rng
from tests.e2e.secrecy import knowledge
from tests.playing import apply_checked, random_move

SEEDS = (1, 2, 3)


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_a_move_taken_back_is_told_to_the_table_without_its_secrets(game_id: str) -> None:
    game = REGISTRY[game_id]
    checked = private = secret_holders = 0
    for seed in SEEDS:
        rng = Rng(seed=seed)
        players = [f"p{n}" for n in range(max(3, game.min_players))]
        state: Any = new_game(game, players, game.Options(), seed)
        for _ in range(5000):
            if game.outcome(state) is not None:
                break
            player, action = random_move(game, state, rng, timeout_one_in=20)
            after = apply_checked(game, state, player, action)
            if game.undo_policy(state, after, player, action) is not Undo.NEVER:
                label = move_label(game, state, player, action)
                public = public_move_label(game, state, after, player, action, label)
                leaks = knowledge(game, [state, after], None).leaks(public)
                assert not leaks, f"{player} took back {public!r}: tells the table {leaks}"
                checked += 1
                private += public != label
                secret_holders += bool(game.secrets(state, player) or game.secrets(after, player))
            state = after
    assert checked, f"no move of {game_id} could be taken back"
    if secret_holders:  # then some of those moves were private ones, and said as such
        assert private, f"{game_id}: every move taken back was named to the table"
