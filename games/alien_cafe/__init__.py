"""Alien Café: a cooperative, simultaneous tile-placing game (4×4 trays, picky aliens)."""

from games.alien_cafe.game import AlienCafe

GAME = AlienCafe()

__all__ = ["GAME", "AlienCafe"]
