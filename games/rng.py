"""A serialisable random number generator kept inside game state.

Games never use the global ``random`` module (a ruff rule bans it outside this file): every draw
goes through an :class:`Rng` stored in the state, so a game replays exactly from its seed and
action log. The generator's full state is the pair (seed, counter); each draw derives a fresh
``random.Random`` from both, which keeps the state tiny and JSON-friendly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

T = TypeVar("T")


class Rng(BaseModel):
    seed: int
    counter: int = 0

    def _next(self) -> random.Random:
        self.counter += 1
        return random.Random(f"{self.seed}:{self.counter}")

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in [low, high]."""
        return self._next().randint(low, high)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self._next().randrange(len(items))]

    def shuffle(self, items: list[T]) -> None:
        """Shuffle ``items`` in place."""
        self._next().shuffle(items)

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self._next().sample(list(items), k)
