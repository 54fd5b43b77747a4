"""A map that keeps only its most recently written entries.

What the bot remembers per game or per message to save work (a table's digest, what a DM or a
message's pictures show) can be read again (from the database) or done again (an edit): it
need not outlive a game that is no longer played. A bot serving thousands of games over days
keeps at most ``keep`` such entries; the least recently written goes first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class RecentMap(OrderedDict[K, V]):
    """An ``OrderedDict`` of at most ``keep`` entries: writing an entry makes it the newest,
    and past ``keep`` the oldest is dropped. Only ``m[key] = value`` writes (reads, ``get``
    and ``pop`` are a dict's)."""

    def __init__(self, keep: int) -> None:
        super().__init__()
        self.keep = keep

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) > self.keep:
            self.popitem(last=False)
