"""Café Carnage (cafe-carnage): five dinners, secret orders, a secret vote on the bill — or RUN!"""

from games.cafe_carnage.game import GAME, CafeCarnage

__all__ = ["GAME", "CafeCarnage"]
