"""A serialisable random number generator kept inside game state.

Games never use the global ``random`` module (a ruff rule bans it outside this file): every draw
goes through an :class:`Rng` stored in the state, so a game replays exactly from its seed and
action log. The generator's full state is the pair (seed, counter): draw number ``counter`` is
made from both alone, which keeps the state tiny and JSON-friendly.

Two generators, told apart by the seed itself, so a game replays with the generator it was
played with wherever its seed goes (the session row, the record, an undo's rebuild):

- **Version 1**, seeds below 2**62 (every game stored before version 2, and small seeds such as
  the simulator's ``--seed 1``): each draw seeds a fresh ``random.Random`` from
  ``"seed:counter"`` and makes the draw ``random.Random``'s own methods make (tests/test_rng.py
  checks they agree). Seeding Mersenne Twister costs ~5 µs a draw.
- **Version 2**, seeds from 2**62 (:func:`new_seed` makes them, for new games): each draw hashes
  ``"seed:counter"``, ~10× cheaper. ``randint`` and ``choice`` take a 64-bit BLAKE2b word and
  reject the top sliver that would bias it (exactly uniform); ``shuffle`` and ``sample`` sort by
  64-bit SHAKE-256 keys (uniform but for ties of two 64-bit keys, under 10^-16 for a bag of 40).
"""

from __future__ import annotations

import random
import secrets
import struct
from collections.abc import Callable, Sequence
from hashlib import blake2b, shake_256
from operator import itemgetter
from typing import TypeVar

from pydantic import BaseModel

T = TypeVar("T")

V2_SEEDS = 1 << 62  # seeds from here on draw with version 2; a stored seed stays below 2**63
_WORDS = 1 << 64
_V2_KEY = b"cafebot-rng-2:"  # version 2 hashes this, then "seed:counter" (and ":try" on a retry)
_WORD_STRUCTS: dict[int, struct.Struct] = {}  # n little-endian 64-bit words, by n


def new_seed() -> int:
    """A fresh seed for a new game: version 2, and it fits a signed 64-bit column."""
    return V2_SEEDS | secrets.randbits(62)


class Rng(BaseModel):
    seed: int
    counter: int = 0

    def _next(self) -> random.Random:
        self.counter += 1
        return random.Random(f"{self.seed}:{self.counter}")

    def _index(self, n: int) -> int:
        """One draw: a uniform integer in [0, n)."""
        if self.seed < V2_SEEDS:
            return _below(self._next().getrandbits, n)
        if n > _WORDS:  # refused before the counter moves, as a refused draw moves nothing
            raise ValueError(f"range too wide for one draw: {n}")
        self.counter += 1
        return _hashed_below(b"%d:%d" % (self.seed, self.counter), n)

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in [low, high]."""
        if high < low:
            raise ValueError(f"empty range for randint({low}, {high})")
        return low + self._index(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self._index(len(items))]

    def shuffle(self, items: list[T]) -> None:
        """Shuffle ``items`` in place."""
        if self.seed >= V2_SEEDS:
            order = self._order(len(items))
            if len(order) > 1:  # itemgetter of one index gives the item, not a tuple
                items[:] = itemgetter(*order)(items)
            return
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
        if not 0 <= k <= len(items):
            raise ValueError("sample larger than population or is negative")
        if self.seed < V2_SEEDS:
            return self._next().sample(list(items), k)
        return [items[i] for i in self._order(len(items))[:k]]

    def _order(self, n: int) -> list[int]:
        """Version 2: one draw, a uniformly random order of range(n) (sorted by hashed keys)."""
        self.counter += 1
        stream = shake_256(b"%s%d:%d" % (_V2_KEY, self.seed, self.counter)).digest(8 * n)
        words = _WORD_STRUCTS.get(n) or _WORD_STRUCTS.setdefault(n, struct.Struct(f"<{n}Q"))
        keys = words.unpack(stream)
        return sorted(range(n), key=keys.__getitem__)


def _below(getrandbits: Callable[[int], int], n: int) -> int:
    """A uniform integer in [0, n): the draws random.Random._randbelow makes (so the same
    seed gives the same games as random.Random's randint, randrange and choice)."""
    bits = n.bit_length()
    r = getrandbits(bits)
    while r >= n:
        r = getrandbits(bits)
    return r


def _hashed_below(key: bytes, n: int) -> int:
    """Version 2: a uniform integer in [0, n) from the 64-bit words hashed from ``key``. Words
    at or above the last multiple of n are rejected (the next try hashes ``key:try``), so every
    value is exactly as likely; for n ≤ 2**32 a retry happens less than once in 2**32 draws.
    n ≤ 2**64 (checked by the caller)."""
    limit = _WORDS - _WORDS % n
    word = int.from_bytes(blake2b(_V2_KEY + key, digest_size=8).digest(), "little")
    attempt = 0
    while word >= limit:
        attempt += 1
        tried = b"%s%s:%d" % (_V2_KEY, key, attempt)
        word = int.from_bytes(blake2b(tried, digest_size=8).digest(), "little")
    return word % n
