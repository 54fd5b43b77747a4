"""Refused clicks cost little: nothing is written, and a user who keeps clicking stale controls
gets the refusal's text alone after a few redrawn views (still an answer, every time).

Cube Café through the emulator: its private panel carries a picture, so a redrawn refusal is a
new ephemeral message with a picture upload.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.adapter.refusals import PER_WINDOW, WINDOW
from emulator import InteractionResult
from games.cube_cafe.actions import Done
from tests.e2e.harness import controls, ephemeral_text, open_game, press, world
from tests.e2e.test_cube_cafe_e2e import GAME, Player, move

CLICKS = 3 * PER_WINDOW


def rows(db_path: Path) -> dict[str, int]:
    """Every table's row count: what the bot has stored."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: db.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0] for n in names}


class Still:
    """A clock the test moves by hand: the refusals' window never passes by itself."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def refused(result: InteractionResult) -> str:
    text = ephemeral_text(result)
    assert "moved on" in text, text
    return text


async def test_many_stale_clicks_store_nothing_and_each_is_answered(tmp_path: Path) -> None:
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        alice = Player(w.users[0], True)
        await open_game(w, GAME)
        clock = Still()
        bot.refusals.clock = clock
        copy = await (await w.emu.slash(alice.user, w.channel, "game hand", {})).final()
        control = controls(copy)[0]
        await move(w, alice, Done())
        await w.settle()
        log = await bot.store.actions(1)
        stored = rows(w.db_path)

        answers = [await press(w.emu, alice.user, control) for _ in range(CLICKS)]
        await w.settle()

        texts = [refused(a) for a in answers]
        assert rows(w.db_path) == stored, "a refusal writes no row"
        assert await bot.store.actions(1) == log
        pictured = [bool(a.message and a.message.attachments) for a in answers]
        assert pictured == [True] * PER_WINDOW + [False] * (CLICKS - PER_WINDOW)
        for answer, text in zip(answers[PER_WINDOW:], texts[PER_WINDOW:], strict=True):
            assert answer.message is not None and not controls(answer.message)
            assert "nothing was played" in text and "/game hand" in text

        # The window over, the next refusal shows the view again.
        clock.now += WINDOW
        again = await press(w.emu, alice.user, control)
        refused(again)
        assert again.message is not None and again.message.attachments
        assert controls(again.message), "the view as it is now, with its controls"
        assert rows(w.db_path) == stored
