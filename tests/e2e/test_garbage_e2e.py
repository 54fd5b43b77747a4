"""A click leaves no reference cycle behind: its interaction (with the clicked message, every
component and option of it) and the view discord.py rebuilds for the clicked item are freed
when the click is answered, not left to Python's cycle collector, whose passes over them were
a fifth of a busy bot's CPU and its longest pauses."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import discord
import discord.ui.view
import pytest

from bot.core.collector import QuietYoungPasses
from tests.e2e.harness import controls, open_game, press, state_of, world


def alive(kind: type) -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, kind))


async def test_an_answered_click_is_freed_without_the_cycle_collector(tmp_path: Path) -> None:
    async with world(tmp_path, players=3) as w, w.bot_running():
        await open_game(w, "cafe-carnage")
        user = w.users[0]
        picks = [c for c in controls(w.latest_dm(user)) if not c.label.startswith("Confirm")]
        assert len(picks) >= 3, "a dish per course, an action card: buttons to tap"
        gc.collect()
        interactions, views = alive(discord.Interaction), alive(discord.ui.View)
        gc.disable()  # from here, only reference counting frees anything
        try:
            for pick in picks[:3]:
                result = await press(w.emu, user, pick)
                assert not result.ephemeral, "the pick was taken"
            await w.settle()
            assert alive(discord.Interaction) == interactions
            assert alive(discord.ui.View) == views
        finally:
            gc.enable()


async def test_a_click_is_routed_without_rebuilding_the_clicked_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py would rebuild the whole clicked message as discord.ui objects to find the
    item; cafebot's items take the click from its custom_id alone."""
    rebuilt: list[int] = []
    original = discord.ui.view.BaseView.from_message.__func__  # type: ignore[attr-defined]

    def counting(cls: type, message: discord.Message, /, **kwargs: Any) -> Any:
        rebuilt.append(message.id)
        return original(cls, message, **kwargs)

    monkeypatch.setattr(discord.ui.view.BaseView, "from_message", classmethod(counting))
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        user = w.users[0]
        pick = next(c for c in controls(w.latest_dm(user)) if not c.label.startswith("Confirm"))
        result = await press(w.emu, user, pick)
        assert not result.ephemeral, "the pick was taken"
        state = await state_of(bot)
        assert state.picks[str(user)], "and applied"
    assert rebuilt == []


async def test_a_due_young_pass_runs_once_the_last_click_being_handled_is_answered(
    tmp_path: Path,
) -> None:
    """The bot's young passes (bot/core/collector.py) run when no interaction is being
    handled: a click's end asks for one when it is due, and it runs with nothing in hand."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        user = w.users[0]
        pick = next(c for c in controls(w.latest_dm(user)) if not c.label.startswith("Confirm"))
        handled_at_pass: list[int] = []

        def collect(generation: int) -> int:
            handled_at_pass.append(len(bot._handling))
            return 0

        bot.young_passes = QuietYoungPasses(
            busy=bot._busy,
            call_soon=asyncio.get_running_loop().call_soon,
            due=0,  # due at once: the test's one click decides when it runs
            collect=collect,
        )
        result = await press(w.emu, user, pick)
        assert not result.ephemeral, "the pick was taken"
        await w.settle()
        assert handled_at_pass == [0]
        assert bot.young_passes.passes == 1
