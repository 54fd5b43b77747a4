"""A player's private panel, drawn once, is theirs again after moves that left their view as it
was (the game's ``views_touched``): Screens keeps which players each move touched, and a player
whose id is part of another's (``10`` of ``100``) is not taken for them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.adapter.screens import Screens
from bot.core.sessions import Session, SessionService
from bot.core.store import open_store
from tests.test_raw_components import _items

PLAYERS = ["10", "100", "1000", "10000"]  # each id the start of the next


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[SessionService]:
    store = await open_store(database_url)
    yield SessionService(store)
    await store.close()


async def started(service: SessionService) -> Session:
    s = await service.create(
        game_id="cafe-carnage", channel_id=5, guild_id=1, host_id=PLAYERS[0], host_name="H", seed=3
    )
    for i, pid in enumerate(PLAYERS[1:]):
        await service.join(s.id, pid, f"P{i}")
    return await service.start(s.id, PLAYERS[0])


async def test_a_panel_is_kept_for_the_players_a_move_left_alone(service: SessionService) -> None:
    screens = Screens(service, _items())
    s = await started(service)
    drawn = {p: screens.private_entry(s, p) for p in PLAYERS}
    assert s.state is not None
    mover = "100"
    action = next(iter(s.game.legal_actions(s.state, mover)))
    touched = s.game.views_touched(s.state, s.game.apply_action(s.state, mover, action), mover)
    assert touched is not None and mover in touched and "10" not in touched
    await service.act(s.id, mover, action.model_dump(mode="json"))
    after = await service.load(s.id)
    assert after.version > s.version
    for player in PLAYERS:
        entry = screens.private_entry(after, player)
        if player in touched:
            assert entry is not drawn[player], player  # drawn again: their view changed
        else:
            assert entry is drawn[player], player  # kept: the move left it as it was
