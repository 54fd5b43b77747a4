"""How much a refused click may cost: a few redrawn views per user, then the text alone.

A stale click is answered with the view as it is now (a new ephemeral message, its picture
uploaded). A client retrying at machine speed would make the bot draw and upload that for every
click; past ``per_window`` refusals within ``window`` seconds a user gets the refusal's text alone
(still an answer: never "This interaction failed"). Users are kept at most ``users_kept``, the
least recently refused dropped first, so the map stays small whatever the traffic.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.core.recent import RecentMap

PER_WINDOW = 5  # redrawn refusals a user gets per window
WINDOW = 30.0  # seconds
USERS_KEPT = 4096


class RefusalLimit:
    def __init__(
        self,
        per_window: int = PER_WINDOW,
        window: float = WINDOW,
        users_kept: int = USERS_KEPT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_window = per_window
        self.window = window
        self.clock = clock
        self._seen: RecentMap[str, tuple[float, int]] = RecentMap(users_kept)  # → (start, count)

    def __len__(self) -> int:
        return len(self._seen)

    def redraw(self, user: str) -> bool:
        """Count one refusal of ``user``: whether it may carry the redrawn view."""
        now = self.clock()
        start, count = self._seen.get(user, (now, 0))
        if now - start >= self.window:
            start, count = now, 0
        self._seen[user] = (start, count + 1)  # the newest: past ``users_kept`` the oldest goes
        return count < self.per_window
