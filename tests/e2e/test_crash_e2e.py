"""kill -9 of the bot process under click load, restarts, and then: nothing acknowledged lost,
every session replays, integrity_check ok, every game finished, each announcement posted once.
Then the same for two processes on one PostgreSQL, one of them killed, with timers made due.
(Longer runs: `make soak`, bench/soak.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.crashes import soak
from tests.pg_server import PostgresServer


# Monster Café is played on the table message; Café Carnage by DM, all players at once.
@pytest.mark.heavy
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


@pytest.mark.heavy
async def test_two_processes_on_postgresql_one_killed_under_load(
    tmp_path: Path, pg_server: PostgresServer
) -> None:
    """A cluster: the channel's clicks (Monster Café) reach one process, the DMs (Café Carnage)
    the other; the first is killed mid-game while the second serves on. Meanwhile a table's
    players step away now and then while its reminder and deadline are made due."""
    result = await soak(
        tmp_path,
        sessions=2,
        kills=1,
        seed=12,
        game=["monster-cafe", "cafe-carnage"],
        moves_between_kills=30,
        processes=2,
        database_url=await pg_server.new_database(),
        timers=2,
    )
    assert result.kills == 1
    assert result.acknowledged > 30
    assert result.lost == 0
    assert result.finished == result.sessions == 2
    assert result.replay_mismatches == 0 and result.records_refused == 0
    assert result.duplicate_posts == 0 and result.missing_posts == 0
    assert result.announcements > 0
    # Every deadline made due was played once, and no other; every reminder sent once.
    assert result.timers_forced > 0 and result.reminders_forced > 0
    assert result.deadlines_played == result.timers_forced
    assert result.timers_doubled == 0 and result.reminders_doubled == 0
    assert result.timers_late == 0
    assert result.reminders_sent > 0
    assert result.error_lines == 0
    assert result.ok
