"""The registry of games. A new game is one package plus one line here."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from games.engine import Game

# Package names under games/, in menu order.
_PACKAGES = ["cafe_carnage", "monster_cafe", "alien_cafe", "breakfast_vs_aliens", "cube_cafe"]


def _load() -> dict[str, Game[Any, Any]]:
    registry: dict[str, Game[Any, Any]] = {}
    for package in _PACKAGES:
        game: Game[Any, Any] = import_module(f"games.{package}").GAME
        registry[game.id] = game
    return registry


REGISTRY: dict[str, Game[Any, Any]] = _load()


def get_game(game_id: str) -> Game[Any, Any]:
    try:
        return REGISTRY[game_id]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"Unknown game {game_id!r}. Known games: {known}") from None
