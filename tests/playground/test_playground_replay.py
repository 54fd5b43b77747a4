"""A replay in the playground: the final message's Replay button, clicked through the page's
API as a local user, opens the game move by move in that user's own stream only."""

from __future__ import annotations

from pathlib import Path

from tests.playground.harness import WAIT, playground
from tests.playground.test_playground_api import message_ids, post, stream


async def test_a_finished_game_replays_in_the_playground(tmp_path: Path) -> None:
    async with playground(tmp_path, users=("Alice", "Bob", "Carol")) as pg:
        alice, bob, carol = pg.world.users
        channel = pg.world.channels[0]
        emu, service = pg.world.emu, pg.world.bot.service
        for user, command, options in (
            (alice, "game new", {"game": "cafe-carnage"}),
            (bob, "game join", {}),
            (carol, "game join", {}),
            (alice, "game start", {}),
        ):
            body = {"user": str(user), "channel": channel, "command": command, "options": options}
            status, answer = await post(pg, "/api/slash", body)
            assert status == 200, answer
        s = await service.open_in_channel(channel)
        assert s is not None
        for _ in range(300):  # everyone away: each step's deadline plays the default moves
            s = await service.load(s.id)
            if not s.status.is_open:
                break
            assert s.state is not None
            clock = s.game.clock(s.state)
            assert clock is not None
            await service.fire_deadline(s.id, clock.key)
        assert s.status == "finished"

        def final() -> list[int]:
            return [
                m.id
                for m in emu.all_messages()
                if any(cid == f"cb:p:{s.id}:0:o" for _, cid, _ in m.buttons())
            ]

        await emu.wait_until(lambda: final(), timeout=WAIT)
        body = {"user": str(bob), "message": str(final()[0]), "custom_id": f"cb:p:{s.id}:0:o"}
        status, answer = await post(pg, "/api/click", body)
        assert status == 200 and answer["ephemeral"], answer
        (page,) = [m for m in emu.ephemerals(bob) if "Replay of game" in m.current_text()]
        assert "move 0/" in page.current_text()
        body = {"user": str(bob), "message": str(page.id), "custom_id": page.button("Next")}
        status, _ = await post(pg, "/api/click", body)
        assert status == 200 and "move 1/" in emu.get_message(page.id).current_text()
        seen = await stream(pg, bob, lambda ev: str(page.id) in message_ids(ev))
        assert any(
            "move 1/" in str(m)
            for name, data in seen
            if name == "messages"
            for m in data["messages"]
        )
        others = await stream(pg, alice, lambda ev: str(final()[0]) in message_ids(ev))
        assert str(page.id) not in message_ids(others), "Bob's replay is his alone"
