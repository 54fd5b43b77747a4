"""What the bot remembers per game or message is bounded: RecentMap, and the pictures each
message shows (read again from the memo once dropped)."""

from __future__ import annotations

import pytest

from bot.adapter import pictures as pictures_module
from bot.adapter.pictures import PictureRef, Pictures
from bot.core.recent import RecentMap
from games.presentation import Picture


def test_a_recent_map_keeps_its_newest_writes() -> None:
    recent: RecentMap[int, str] = RecentMap(3)
    for key in range(5):
        recent[key] = str(key)
    assert list(recent) == [2, 3, 4]
    recent[2] = "again"  # written again: the newest
    recent[5] = "5"
    assert list(recent) == [4, 2, 5] and recent[2] == "again"
    assert recent.pop(4) == "4" and len(recent) == 2


class Memo:
    """The service's memo, in memory: what a restart would read back."""

    def __init__(self) -> None:
        self.rows: dict[str, str] = {}
        self.recalls = 0

    async def recall(self, key: str) -> str | None:
        self.recalls += 1
        return self.rows.get(key)

    async def remember(self, key: str, value: str) -> None:
        self.rows[key] = value


async def test_the_pictures_of_messages_are_kept_for_the_latest_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pictures_module, "MESSAGES_KEPT", 4)
    memo = Memo()
    pictures = Pictures(memo)
    ref = PictureRef.of(Picture(name="board.png", alt="the board", spec={"n": 1}))
    for message_id in range(1, 11):
        attachment = {"id": 100 + message_id, "filename": "board.png"}
        await pictures.after_edit(message_id, [ref], [attachment], new=True)
    assert len(pictures._shown) == 4
    assert len(memo.rows) == 10, "each remembered in the memo"
    # A message dropped from memory is read back from the memo, once.
    assert await pictures.shown(1) == {"board.png": (ref.key, 101)}
    assert await pictures.shown(1) == {"board.png": (ref.key, 101)}
    assert memo.recalls == 1
    assert len(pictures._shown) == 4
