"""A game's record: verify accepts the record as stored, undos included, and refuses one
whose claims or moves were changed."""

from __future__ import annotations

from bot.core.record import GameRecord, commitment, effective, verify
from bot.core.sessions import SessionService
from games.engine import clock_key


async def finished_with_an_undo(service: SessionService) -> GameRecord:
    s = await service.create(
        game_id="cube-cafe", channel_id=1, guild_id=5, host_id="a", host_name="Ann", seed=77
    )
    await service.join(s.id, "b", "Bob")
    s = await service.start(s.id, "a")
    assert s.state is not None
    first = next(a for a in s.game.legal_actions(s.state, "a") if a.type != "done")
    await service.act(s.id, "a", first)
    answer = await service.ask_undo(s.id, "a")
    assert answer.undone
    while s.status == "active":
        assert s.state is not None
        result = await service.fire_deadline(s.id, clock_key(s.game, s.state) or "")
        assert result is not None
        s = result.session
    return await service.record(s.id, 5)


async def test_a_stored_record_with_an_undo_verifies(service: SessionService) -> None:
    record = await finished_with_an_undo(service)
    assert record.commitment == commitment("cube-cafe", record.options, 77)
    assert [a.undoes for a in record.actions][:2] == [None, 1]
    assert len(effective(record.actions)) == len(record.actions) - 2
    verdict = verify(record)
    assert verdict.ok, verdict.lines
    assert "(1 taken back)" in verdict.lines[1]
    assert verdict.outcome is not None and record.outcome is not None
    assert verdict.outcome.scores == record.outcome["scores"]


async def test_changed_claims_are_refused(service: SessionService) -> None:
    record = await finished_with_an_undo(service)
    assert record.outcome is not None
    claimed = {**record.outcome, "scores": {p: s + 1 for p, s in record.outcome["scores"].items()}}
    verdict = verify(record.model_copy(update={"outcome": claimed}))
    assert not verdict.ok and "scores the record claims" in verdict.lines[-1]
    unfinished = record.model_copy(update={"actions": record.actions[:-1], "outcome": None})
    verdict = verify(unfinished)
    assert not verdict.ok and "has not ended" in verdict.lines[-1]
    other_game = record.model_copy(update={"game": "monster-cafe"})
    assert "commitment does not match" in verify(other_game).lines[-1]
