"""How many other games wait for a player (a DM's footer) is counted without loading those games:
the session cache keeps the games being played, and whom each game awaits is remembered by
version, at most AWAITED_KEPT of them. Runs on both backends."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.sessions import Session, SessionService
from bot.core.store import SessionStatus, open_store

CACHE = 3
GAMES = 7
GAME = "monster-cafe"  # one player awaited at a time
PLAYER = "1000"  # seated in every game


async def started(service: SessionService, channel: int) -> Session:
    s = await service.create(
        game_id=GAME, channel_id=channel, guild_id=1, host_id=PLAYER, host_name="A", seed=channel
    )
    await service.join(s.id, "1001", "B")
    return await service.start(s.id, PLAYER)


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(database_url)
    yield SessionService(store, cache_size=CACHE)
    await store.close()


async def play_until_not_awaited(service: SessionService, session_id: int) -> None:
    """PLAYER moves in the session until it no longer awaits them (e.g. their order confirmed)."""
    for _ in range(50):
        s = await service.load(session_id)
        assert s.state is not None
        if PLAYER not in s.game.active_players(s.state):
            return
        action = s.game.legal_actions(s.state, PLAYER)[0]
        await service.act(session_id, PLAYER, action.model_dump(mode="json"))
    raise AssertionError("the game still awaits the player")


async def awaited(service: SessionService, session_id: int) -> set[str]:
    s = await service.load(session_id)
    assert s.state is not None
    return s.game.active_players(s.state)


async def truly_waiting(service: SessionService, user_id: str, but: int) -> int:
    """The count the slow way: every active game's stored state, parsed."""
    count = 0
    for row in await service.store.sessions_of_user(user_id):
        if row.id == but or row.status is not SessionStatus.ACTIVE or row.state is None:
            continue
        s = await service.reload(row.id)
        assert s.state is not None
        count += user_id in s.game.active_players(s.state)
    return count


async def test_counting_the_games_elsewhere_loads_none_and_keeps_few(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [(await started(service, channel=100 + i)).id for i in range(GAMES)]
    expected = await truly_waiting(service, PLAYER, ids[-1])
    assert 0 < expected < GAMES - 1, "some games wait for the player, not all"

    hot = ids[:CACHE]  # the games being played: the first ones, read before the others
    for sid in hot:
        await service.load(sid)
    cached = list(service._cache)
    assert cached == hot
    monkeypatch.setattr(service._awaited, "keep", 4)
    assert await service.waiting_elsewhere(PLAYER, ids[-1]) == expected
    assert list(service._cache) == cached, "no game loaded, none of the cache dropped"
    assert len(service._awaited) <= 4, "whom the games await: kept within its bound"
    # Counted again (some remembered, some read again): the same; and after a move, anew.
    assert await service.waiting_elsewhere(PLAYER, ids[-1]) == expected
    waiting = [sid for sid in ids[:-1] if PLAYER in await awaited(service, sid)]
    await play_until_not_awaited(service, waiting[0])
    assert await service.waiting_elsewhere(PLAYER, ids[-1]) == expected - 1
    assert len(service._awaited) <= 4


async def test_several_players_are_counted_in_one_read_with_the_same_counts(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [(await started(service, channel=200 + i)).id for i in range(GAMES)]
    players = [PLAYER, "1001", "4242"]  # seated in every game, and in none
    expected = {uid: await service.waiting_elsewhere(uid, ids[-1]) for uid in players}
    assert expected[PLAYER] > 0 and expected["1001"] > 0 and expected["4242"] == 0
    reads: list[list[str]] = []
    each = service.store.active_versions_of_each

    async def counted(user_ids: list[str]) -> dict[str, list[tuple[int, int]]]:
        reads.append(list(user_ids))
        return await each(user_ids)

    monkeypatch.setattr(service.store, "active_versions_of_each", counted)
    assert await service.waiting_elsewhere_each(players, ids[-1]) == expected
    assert reads == [players], "one read for them all"
