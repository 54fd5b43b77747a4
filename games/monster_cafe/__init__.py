"""Monster Café (2-4 players): seat monsters at tables, clear one a round, score matching meals."""

from games.monster_cafe.game import GAME, MonsterCafe

__all__ = ["GAME", "MonsterCafe"]
