"""The session cache is bounded: past ``cache_size`` the least recently used sessions are
dropped, with their state JSON and remembered deadline, and a session read again plays on as if
it had never left (nothing lost, nothing applied twice). Runs on both backends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.core.sessions import Session, SessionService
from bot.core.state_json import state_text
from bot.core.store import open_store
from games.rng import Rng

CACHE = 3
GAMES = 7  # more than the cache holds: every round of moves goes through evictions
GAME = "cafe-carnage"  # copy on write: its state JSON is re-encoded field by field


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(database_url)
    yield SessionService(store, cache_size=CACHE)
    await store.close()


async def started(service: SessionService, channel: int) -> Session:
    ids = [str(1000 + i) for i in range(4)]
    s = await service.create(
        game_id=GAME, channel_id=channel, guild_id=1, host_id=ids[0], host_name="Host", seed=channel
    )
    for i, pid in enumerate(ids[1:]):
        await service.join(s.id, pid, f"P{i}")
    return await service.start(s.id, ids[0])


async def one_move(service: SessionService, session_id: int, rng: Rng) -> bool:
    """A random legal move in the session (loaded again if it was evicted); False once over."""
    s = await service.load(session_id)
    if s.status != "active":
        return False
    assert s.state is not None
    player = rng.choice(sorted(s.game.active_players(s.state)))
    action = rng.choice(list(s.game.legal_actions(s.state, player)))
    await service.act(session_id, player, action.model_dump(mode="json"))
    return True


async def test_evicted_sessions_play_on_with_nothing_lost(service: SessionService) -> None:
    ids = [(await started(service, channel=100 + i)).id for i in range(GAMES)]
    assert service.cached_sessions() <= CACHE
    rng = Rng(seed=7)
    moves = dict.fromkeys(ids, 0)
    playing = list(ids)
    while playing:
        # Round robin: each session is evicted by the others' moves before its next one.
        for sid in list(playing):
            if await one_move(service, sid, rng):
                moves[sid] += 1
            else:
                playing.remove(sid)
            assert service.cached_sessions() <= CACHE
    for sid in ids:
        stored = await service.store.get_session(sid)
        assert stored is not None and stored.status == "finished"
        # Every move applied once: the log holds them all, and replays to the stored state.
        assert len(await service.store.actions(sid)) == moves[sid]
        s = await service.reload(sid)
        assert s.state is not None
        assert await service.replay(sid) == s.state
        # The field-by-field JSON kept for a cached session was dropped with it: what was
        # written is the whole state's JSON.
        assert stored.state == state_text(s.state)


async def test_a_reloaded_session_remembers_its_deadline_from_the_store(
    service: SessionService,
) -> None:
    ids = [(await started(service, channel=200 + i)).id for i in range(GAMES)]
    first = ids[0]
    assert service.cached_sessions() <= CACHE
    # The first game was evicted by the later ones: its deadline is the stored one.
    stored = [t for t in await service.store.timers(first) if t.kind == "deadline"]
    assert stored and await service.deadline(first) == stored[0]
    await one_move(service, first, Rng(seed=1))
    stored = [t for t in await service.store.timers(first) if t.kind == "deadline"]
    assert stored and await service.deadline(first) == stored[0]


async def test_concurrent_moves_on_more_sessions_than_the_cache_are_each_applied_once(
    service: SessionService,
) -> None:
    ids = [(await started(service, channel=300 + i)).id for i in range(GAMES)]
    submissions = []
    for sid in ids:
        s = await service.load(sid)
        assert s.state is not None
        for player in sorted(s.game.active_players(s.state)):
            action = s.game.legal_actions(s.state, player)[0]
            submissions.append((sid, player, action.model_dump(mode="json")))
    await asyncio.gather(*(service.act(sid, p, a) for sid, p, a in submissions))
    assert service.cached_sessions() <= CACHE
    for sid in ids:
        mine = [s for s in submissions if s[0] == sid]
        assert len(await service.store.actions(sid)) == len(mine)
        s = await service.reload(sid)
        assert await service.replay(sid) == s.state
