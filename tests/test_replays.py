"""A replay is of an ended game of the server, rebuilt through the rules; a move is named to
others as the table knew it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.errors import NotAllowed, NotFound
from bot.core.replays import replay_step
from bot.core.sessions import SessionService
from bot.core.store import open_store
from tests.test_store import play_random, started


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(database_url)
    yield SessionService(store)
    await store.close()


async def test_only_an_ended_game_of_this_server_replays(service: SessionService) -> None:
    s = await started(service, players=3)
    with pytest.raises(NotAllowed, match="once it has ended"):
        await service.replay_of(s.id, 1)
    s = await play_random(service, s, seed=4)
    with pytest.raises(NotFound):
        await service.replay_of(s.id, 2)
    replay = await service.replay_of(s.id, 1)
    assert replay.states[-1] == s.state == await service.replay(s.id)
    assert len(replay.moves) == replay.last == len(await service.store.actions(s.id))
    assert await service.replay_of(s.id, 1) is replay, "kept: an ended game never changes"
    assert replay_step(replay, 10**6, "1000").step == replay.last
    for step in range(1, replay.last + 1):
        player, _ = replay.moves[step - 1]
        own = replay_step(replay, step, player)
        other = replay_step(replay, step, next(p for p in s.state.players if p != player))
        assert own.own is not None and own.mover == other.mover == player
        assert other.table == own.table
