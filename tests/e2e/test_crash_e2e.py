"""kill -9 of the bot process under click load, restarts, and then: nothing acknowledged lost,
every session replays, integrity_check ok, every game finished, each announcement posted once.
(A longer run: `make soak`, bench/soak.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.crashes import soak


# Monster Café is played on the table message; Café Carnage by DM, all players at once.
@pytest.mark.parametrize("game", ["monster-cafe", "cafe-carnage"])
async def test_kill_9_under_load_loses_nothing_and_posts_nothing_twice(
    tmp_path: Path, game: str
) -> None:
    result = await soak(tmp_path, sessions=3, kills=2, seed=11, game=game)
    assert result.kills == 2
    assert result.acknowledged > 50
    assert result.lost == 0
    assert result.finished == result.sessions == 3
    assert result.replay_mismatches == 0
    assert result.integrity == "ok"
    assert result.duplicate_posts == 0 and result.missing_posts == 0
    assert result.announcements > 0
