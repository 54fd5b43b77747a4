"""What the game tests share: the random player (whoever the game awaits, a random legal move,
now and then the move the game plays for them at their deadline) and a checked apply."""

from __future__ import annotations

from typing import Any

from games.engine import Game, GameState, apply
from games.rng import Rng


def random_move(
    game: Game[Any, Any], state: GameState, rng: Rng, timeout_one_in: int
) -> tuple[str, Any]:
    """A random awaited player and their move: the timeout's default about one time in
    ``timeout_one_in``, else a random legal action."""
    player = rng.choice(sorted(game.active_players(state)))
    if rng.randint(1, timeout_one_in) == 1:
        return player, game.on_timeout(state, player)
    legal = list(game.legal_actions(state, player))
    assert legal, f"{player} is awaited but has no legal action"
    return player, rng.choice(legal)


def apply_checked(game: Game[Any, Any], state: GameState, player: str, action: Any) -> Any:
    """``apply``, checking that the action survives its JSON (as from a button) and that apply
    leaves the state it was given as it was."""
    assert game.parse_action(action.model_dump(mode="json")) == action
    before = state.model_dump_json()
    after = apply(game, state, player, action)
    assert state.model_dump_json() == before, "apply mutated its input"
    return after
