"""Breakfast vs Aliens (2–5 players): capture aliens with breakfast heroes whose traits match."""

from games.breakfast_vs_aliens.game import GAME, BreakfastVsAliens

__all__ = ["GAME", "BreakfastVsAliens"]
