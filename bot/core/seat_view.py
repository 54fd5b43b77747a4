"""The game as one seat may see it: what a bot player decides from.

A strategy is a function of the whole state, so nothing but care keeps it from reading another
player's hand or the deck. Instead of trusting each strategy, a bot player is given a state in
which every string that the game declares secret from its seat (``Game.secrets`` of every other
player, and of nobody: the face-down decks) is replaced by an opaque token, ``"?1"``, ``"?2"``…,
numbered in the order the tokens first occur in the state, and the RNG is replaced too (it would
tell the order of future draws).

Numbering by first occurrence makes the result the same for every assignment of the hidden
strings to their places: two states that differ only in what others hold, or in the order of a
face-down deck, look exactly alike to the seat. A strategy that reads only what its player may
see decides as it would on the real state (tests check it for every game); one that tries to
read a secret finds a token, never the secret.
"""

from __future__ import annotations

from typing import Any

from games.engine import Game, GameState, PlayerId
from games.rng import Rng


def hidden_from(game: Game[Any, Any], state: GameState, player: PlayerId) -> set[str]:
    """Every string ``player`` may not see now: the others' secrets and nobody's."""
    hidden = set(game.secrets(state, None))
    for other in state.players:
        if other != player:
            hidden |= game.secrets(state, other)
    return hidden - game.secrets(state, player)


def as_seen_by(game: Game[Any, Any], state: GameState, player: PlayerId, seed: int) -> GameState:
    """``state`` with what ``player`` may not see replaced by tokens, and a fresh RNG seeded
    with ``seed``."""
    hidden = hidden_from(game, state, player)
    tokens: dict[str, str] = {}

    def blind(value: Any) -> Any:
        if isinstance(value, str):
            if value in hidden:
                return tokens.setdefault(value, f"?{len(tokens) + 1}")
            return value
        if isinstance(value, list):
            return [blind(item) for item in value]
        if isinstance(value, dict):
            return {blind(key): blind(item) for key, item in value.items()}
        return value

    data = blind(state.model_dump(mode="json", round_trip=True))
    data["rng"] = Rng(seed=seed).model_dump(mode="json")
    seen: GameState = type(state).model_validate(data)
    return seen
