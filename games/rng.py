"""A serialisable random number generator kept inside game state.

Games never use the global ``random`` module (a ruff rule bans it outside this file): every draw
goes through an :class:`Rng` stored in the state, so a game replays exactly from its seed and
action log. The generator's full state is the pair (seed, counter); each draw derives a fresh
``random.Random`` from both, which keeps the state tiny and JSON-friendly. The draws are those
of ``random.Random``'s own methods, made without their per-call overhead (tests/test_rng.py
checks they agree).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
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
        if high < low:
            raise ValueError(f"empty range for randint({low}, {high})")
        return low + _below(self._next().getrandbits, high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[_below(self._next().getrandbits, len(items))]

    def shuffle(self, items: list[T]) -> None:
        """Shuffle ``items`` in place."""
        # random.Random.shuffle's own steps, without its per-element method calls.
        getrandbits = self._next().getrandbits
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            bits = n.bit_length()
            j = getrandbits(bits)
            while j >= n:
                j = getrandbits(bits)
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self._next().sample(list(items), k)


def _below(getrandbits: Callable[[int], int], n: int) -> int:
    """A uniform integer in [0, n): the draws random.Random._randbelow makes (so the same
    seed gives the same games as random.Random's randint, randrange and choice)."""
    bits = n.bit_length()
    r = getrandbits(bits)
    while r >= n:
        r = getrandbits(bits)
    return r
