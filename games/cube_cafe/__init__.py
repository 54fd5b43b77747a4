"""Cube Café (1–5 players): run a restaurant with shared staff dice and your own action wheel."""

from games.cube_cafe.game import GAME, CubeCafe

__all__ = ["GAME", "CubeCafe"]
