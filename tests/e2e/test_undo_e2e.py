"""Undo by consent: a player asks to take back their last move; the others agree (undone),
object (it stands) or let the time pass (undone); a move that revealed something, or that a
later move revealed something after, stands; on your own board it needs nobody's consent.
The log only grows: an undo is an entry naming the move, and replays skip both."""

from __future__ import annotations

from pathlib import Path

from bot.app import CafeBot
from bot.core.record import verify
from emulator import Message
from tests.e2e.harness import (
    World,
    button_rows,
    controls,
    ephemeral_text,
    open_game,
    press,
    state_of,
    world,
)


async def click_table(w: World, user: int, label_start: str) -> None:
    table = w.table_message()
    (control,) = [c for c in controls(table, 1, "t") if c.label.startswith(label_start)][:1]
    await press(w.emu, user, control)
    await w.settle()


def undo_request(w: World) -> Message:
    found = [m for m in w.game_messages() if "asks to take back" in m.current_text()]
    assert found, "no undo request was posted"
    return w.emu.get_message(found[-1].id)


async def replays(bot: CafeBot) -> bool:
    s = await bot.service.load(1)
    return await bot.service.replay(1) == s.state


async def test_an_undo_agreed_and_one_refused(tmp_path: Path) -> None:
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        alice, bob = w.users
        await open_game(w, "monster-cafe")
        assert (await state_of(bot)).current == str(alice), "precondition: Alice starts"
        await click_table(w, alice, "Draw a monster")
        drawn = await state_of(bot)
        await click_table(w, alice, "Seat at")
        seated = await state_of(bot)
        assert seated.current == str(bob)
        log = await bot.store.actions(1)

        asked = await w.emu.slash(alice, w.channel, "game undo", {})
        assert "Asked the others" in ephemeral_text(asked)
        await w.settle()
        request = undo_request(w)
        assert f"<@{bob}>" in request.content, "Bob is asked"
        assert "Seat at" in request.content, "the move is named as its button read"
        assert await state_of(bot) == seated, "nothing is undone before Bob answers"
        mine = await w.emu.click(alice, request.id, request.button("Agree"))
        assert "your own request" in ephemeral_text(mine)

        agreed = await w.emu.click(bob, request.id, request.button("Agree"))
        assert agreed.type == 7, "the request shows the answer in place"
        await w.settle()
        assert await state_of(bot) == drawn, "the game is back to before the seat"
        request = w.emu.get_message(request.id)
        assert "took back" in request.content and request.buttons() == []
        after = await bot.store.actions(1)
        assert after[: len(log)] == log, "nothing was deleted from the log"
        assert after[-1].undoes == log[-1].seq and after[-1].player == str(alice)
        assert await replays(bot), "the replay skips the undone move"
        assert any("took back" in t for t in w.channel_texts())

        # Seated again; this time Bob objects.
        await click_table(w, alice, "Seat at")
        seated = await state_of(bot)
        before = await bot.store.actions(1)
        await w.emu.slash(alice, w.channel, "game undo", {})
        await w.settle()
        request = undo_request(w)
        objected = await w.emu.click(bob, request.id, request.button("Object"))
        assert objected.type == 7
        await w.settle()
        assert await state_of(bot) == seated, "the move stands"
        assert await bot.store.actions(1) == before, "a refused undo logs nothing"
        assert "objected" in w.emu.get_message(request.id).content
        assert await bot.store.undo_request(1) is None

        # A draw revealed a card: it stands, and so does the move before it.
        await click_table(w, bob, "Draw a monster")
        drawn_by_bob = await state_of(bot)
        for user, why in ((bob, "revealed something"), (alice, "Too late: Bob's move since")):
            refused = await w.emu.slash(user, w.channel, "game undo", {})
            assert why in ephemeral_text(refused), ephemeral_text(refused)
        assert await state_of(bot) == drawn_by_bob
        assert await bot.store.undo_request(1) is None


async def test_an_undo_nobody_objects_to_is_granted_in_time(tmp_path: Path) -> None:
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        alice = w.users[0]
        await open_game(w, "monster-cafe")
        await click_table(w, alice, "Draw a monster")
        drawn = await state_of(bot)
        await click_table(w, alice, "Seat at")
        await w.emu.slash(alice, w.channel, "game undo", {})
        await w.settle()
        request = await bot.store.undo_request(1)
        assert request is not None
        w.clock.advance(request.due_at - w.clock() - 5)
        await w.fire_timers()
        assert await bot.store.undo_request(1) is not None, "not yet"
        w.clock.advance(10)
        await w.fire_timers()
        assert await state_of(bot) == drawn
        assert await bot.store.undo_request(1) is None
        assert any("nobody objected" in t for t in w.channel_texts())
        assert await replays(bot)
        message = undo_request(w)
        # Decided: its buttons are gone, and it no longer counts down.
        assert message.buttons() == [] and ":R>" not in message.content
        assert await state_of(bot) == drawn


async def test_on_your_own_board_undo_needs_no_consent(tmp_path: Path) -> None:
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        alice, bob = w.users
        await open_game(w, "cube-cafe")
        start = await state_of(bot)
        for user in (alice, bob):  # each makes a move on their own board (the first offered)
            (first, *_) = [c for c in controls(w.latest_dm(user), 1) if c.label != "Done"]
            await press(w.emu, user, first)
            await w.settle()
        both = await state_of(bot)
        assert both.boards[str(alice)] != start.boards[str(alice)]
        posts = len(w.game_messages())

        undone = await w.emu.slash(alice, w.channel, "game undo", {})
        assert "Taken back" in ephemeral_text(undone)
        await w.settle()
        state = await state_of(bot)
        assert state.boards[str(alice)] == start.boards[str(alice)], "her board as it was"
        assert state.boards[str(bob)] == both.boards[str(bob)], "Bob's move stays"
        assert not [m for m in w.game_messages()[posts:] if m.buttons()], "nobody was asked"
        assert await replays(bot)

        nothing = await w.emu.slash(alice, w.channel, "game undo", {})
        assert "no move to take back" in ephemeral_text(nothing)

        # The record replays exactly, the undo skipped as in the service.
        await w.finish_by_deadlines()
        record = await bot.service.record(1, w.guild)
        assert [a.undoes for a in record.actions if a.undoes is not None] == [1]
        verdict = verify(record)
        assert verdict.ok, verdict.lines
        assert verdict.state == await state_of(bot)


async def test_a_private_move_taken_back_is_not_named_to_the_table(tmp_path: Path) -> None:
    async with world(tmp_path, players=3) as w, w.bot_running():
        alice = w.users[0]
        await open_game(w, "cafe-carnage")
        menu = w.latest_dm(alice)
        starter = button_rows(menu)[0][0]
        dish = starter["label"].split(" (")[0]  # "Watermelon Salad ($1)"
        await w.emu.click(alice, menu.id, starter["custom_id"])
        await w.settle()
        posts = len(w.game_messages())

        undone = await w.emu.slash(alice, w.channel, "game undo", {})
        assert dish in ephemeral_text(undone), "Alice herself is told which dish"
        await w.settle()
        notices = [m.current_text() for m in w.game_messages()[posts:]]
        assert any("took back a dish of their order" in t for t in notices), notices
        assert not any(dish in t for t in notices), "the table never reads her hidden menu"
