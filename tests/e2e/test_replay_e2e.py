"""Replay: from the final message and from /game history, an ended game move by move in an
ephemeral message (first, back, next, end, a round to jump to), each step the table as it was
(rebuilt from the stored record through the rules), with the viewer's own panel and never
another player's secrets."""

from __future__ import annotations

import re
from pathlib import Path

from bot.core.replays import replay_step
from emulator import Message
from tests.e2e.harness import ephemeral_text, world
from tests.e2e.secrecy import knowledge
from tests.e2e.test_stats_e2e import finish_game

TITLE = re.compile(r"🎬 Replay of game #(\d+) · move (\d+)/(\d+)")


def step_of(message: Message) -> tuple[int, int]:
    m = TITLE.search(message.current_text())
    assert m is not None, message.current_text()
    return int(m.group(2)), int(m.group(3))


async def test_a_replay_from_the_final_message_and_from_history(tmp_path: Path) -> None:
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, carol = w.users
        await finish_game(w, "cafe-carnage", [alice, bob, carol])
        sid = (await bot.store.sessions_with_status("finished"))[0].id

        def final() -> Message | None:
            found = [m for m in w.game_messages() if "game over" in m.current_text()]
            return found[-1] if found else None

        await w.emu.wait_until(lambda: final() is not None, timeout=30)
        message = final()
        assert message is not None
        opened = await w.emu.click(bob, message, message.button("Replay"))
        assert opened.ephemeral and opened.message is not None
        page = opened.message
        assert step_of(page)[0] == 0 and "The deal" in ephemeral_text(opened)
        replay = await bot.service.replay_of(sid, w.guild)
        last = replay.last
        assert step_of(page) == (0, last)
        assert replay.states[-1] == (await bot.service.load(sid)).state, "rebuilt through the rules"

        # Every step, as Bob sees it: the move that led there, his own hand, no other secret.
        game = replay.game
        hidden = 0
        for step in range(1, last + 1):
            await w.emu.click(bob, page, page.button("Next"))
            page = w.emu.get_message(page.id)
            text = page.current_text()
            assert step_of(page) == (step, last)
            shown = replay_step(replay, step, str(bob))
            assert shown.mover is not None and replay.names[shown.mover] in text
            assert "Only you see this" in text, "Bob's own panel"
            seen = knowledge(game, replay.states[step - 1 : step + 1], str(bob))
            assert seen.leaks(text) == [], (step, text)
            hidden += len(seen.hidden_ids)
        assert page.button("Back")  # enabled at the end, unlike Next and End
        assert all(disabled for label, _, disabled in page.buttons() if label in ("Next", "End"))
        assert hidden, "the game kept secrets from Bob: the check above could fail"
        await w.emu.click(bob, page, page.button("Start"))
        assert step_of(w.emu.get_message(page.id)) == (0, last)

        # Jump to a round: the select offers each round's first move.
        page = w.emu.get_message(page.id)
        select = next(c for c in page.all_components() if c.get("custom_id") == f"cb:q:{sid}")
        rounds = replay.rounds()
        assert [o["label"] for o in select["options"]] == [f"Round {n}" for n, _ in rounds]
        _, first = rounds[-1]
        await w.emu.select(bob, page, f"cb:q:{sid}", [str(first)])
        assert step_of(w.emu.get_message(page.id)) == (first, last)

        # From /game history: Carol, who sat at the table, replays it too.
        history = await w.emu.slash(carol, w.channel, "game history", {})
        assert history.message is not None
        picked = await w.emu.select(carol, history.message, "cb:v:0", [str(sid)])
        assert picked.ephemeral and step_of(picked.message) == (0, last)  # type: ignore[arg-type]

        # A spectator (no seat) sees the table only.
        erin = w.emu.add_user("erin", guild=w.guild)
        spectator = await w.emu.click(erin, message, message.button("Replay"))
        assert spectator.message is not None
        await w.emu.click(erin, spectator.message, spectator.message.button("End"))
        text = w.emu.get_message(spectator.message.id).current_text()
        assert "Only you see this" not in text
        assert knowledge(game, replay.states, None).leaks(text) == []
