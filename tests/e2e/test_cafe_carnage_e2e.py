"""Café Carnage in Discord, end to end: the real bot, through discord.py, against the emulator.

Every move is made by clicking the components a player would click.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest

from emulator import DiscordEmulator, InteractionResult, Message
from games.rng import Rng
from tests.e2e.harness import (
    World,
    bot_process_env,
    button_rows,
    ephemeral_text,
    normalise,
    open_game,
    picked,
    start_bot_process,
    world,
)

GAME = "cafe-carnage"
CONFIRM = "Confirm order & ballot"
CHOICES = 4  # a row of buttons per course (starter, main, dessert), then the action card's


def choice(message: Message, row: int, index: int = 0) -> str:
    """The custom_id of the ``index``-th button of a choice row (0-2 the courses, 3 the card)."""
    return str(button_rows(message)[row][index]["custom_id"])


async def tap(w: World, user: int, message: Message, row: int, index: int = 0) -> str:
    """``user`` taps a choice of ``message`` and sees it shown as picked; its custom_id."""
    custom_id = choice(w.emu.get_message(message.id), row, index)
    await shows_update(w, await w.emu.click(user, message.id, custom_id), message)
    assert picked(button_rows(w.emu.get_message(message.id))[row]) == [custom_id]
    return custom_id


async def order(w: World, user: int, rng: Rng | None, message: Message | None = None) -> Message:
    """Tap a starter, main, dessert and action card in the player's private message."""
    message = message or w.latest_dm(user)
    rows = button_rows(w.emu.get_message(message.id))
    assert len(rows) == CHOICES + 1 and [len(r) for r in rows][-1] == 1, "4 choices, Confirm"
    for row in range(CHOICES):
        count = len(button_rows(w.emu.get_message(message.id))[row])
        await tap(w, user, message, row, rng.randint(0, count - 1) if rng else 0)
    return w.emu.get_message(message.id)


async def shows_update(w: World, result: InteractionResult, message: Message) -> None:
    """A click on a DM updates that DM in the click's own answer (7), or is acknowledged (6)
    when the next step's DM comes as a new message; an ephemeral copy is edited by the
    response itself."""
    if message.ephemeral_to is None:
        assert result.type in (6, 7) and not result.ephemeral
        await w.settle()
    else:
        assert result.type == 7


async def confirm(w: World, user: int, message: Message) -> None:
    current = w.emu.get_message(message.id)
    result = await w.emu.click(user, message.id, current.button(CONFIRM))
    await shows_update(w, result, message)


async def play_round(w: World, rng: Rng | None = None) -> None:
    for user in w.users:
        await confirm(w, user, await order(w, user, rng))
    await w.settle()


def finished(w: World) -> bool:
    return any("final standings" in t for t in w.channel_texts())


async def test_a_full_four_player_game_by_clicking(tmp_path: Path) -> None:
    async with world(tmp_path, 4) as w, w.bot_running() as bot:
        table = await open_game(w, GAME)
        assert "round 1/5" in table.current_text()
        rng = Rng(seed=11)
        for round_number in range(1, 6):
            assert not finished(w)
            dms = {u: w.latest_dm(u) for u in w.users}
            await play_round(w, rng)
            reveal = [
                t for t in w.channel_texts() if f"Round {round_number} — dinner is served" in t
            ]
            assert len(reveal) == 1, f"round {round_number} is revealed exactly once"
            if round_number < 5:
                new_dms = {u: w.latest_dm(u) for u in w.users}
                assert all(new_dms[u].id != dms[u].id for u in w.users), "new menus are DMed"
        assert finished(w)
        final = next(t for t in w.channel_texts() if "final standings" in t)
        assert "bonus" in final.lower()
        table = w.emu.get_message(table.id)
        assert not table.buttons() and not table.selects(), "a finished table offers no controls"
        assert all(not m.selects() for u in w.users for m in w.emu.dm_messages(u)), "no dropdown"
        session = await bot.service.load(1)
        assert session.status == "finished"
        assert await bot.service.replay(1) == session.state
        history = await w.emu.slash(w.users[1], w.channel, "game history")
        assert "Café Carnage" in (await history.final()).current_text()


async def test_restart_mid_round_with_old_components(tmp_path: Path) -> None:
    async with world(tmp_path, 4) as w:
        async with w.bot_running():
            await open_game(w, GAME)
            # Two players order and confirm, one only orders, one does nothing yet.
            for user in w.users[:2]:
                await confirm(w, user, await order(w, user, None))
            half_done = await order(w, w.users[2], None)
            untouched = w.latest_dm(w.users[3])
        async with w.bot_running() as bot:
            # The messages sent before the restart still work.
            await confirm(w, w.users[2], half_done)
            await confirm(
                w,
                w.users[3],
                await order(w, w.users[3], None, untouched),
            )
            await w.settle()
            assert any("Round 1 — dinner is served" in t for t in w.channel_texts())
            for _ in range(4):
                await play_round(w, Rng(seed=5))
            assert finished(w)
            assert (await bot.service.load(1)).status == "finished"


async def test_a_player_with_closed_dms_plays_through_game_hand(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        closed = w.users[2]
        w.emu.set_dms_open(closed, False)
        async with w.bot_running():
            host = w.users[0]
            result = await w.emu.slash(host, w.channel, "game new", {"game": GAME})
            table = await result.final()
            await w.emu.click(w.users[1], table.id, table.button("Join"))
            join = await w.emu.click(closed, table.id, w.emu.get_message(table.id).button("Join"))
            help_text = await w.emu.wait_until(
                lambda: [m for m in join.followups() if "Direct Messages" in m.current_text()]
            )
            assert help_text[0].ephemeral_to == closed
            await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
            await w.settle()
            assert any(
                f"<@{closed}>" in m.content and "/game hand" in m.content for m in w.game_messages()
            )
            for _ in range(5):
                for user in w.users[:2]:
                    await confirm(w, user, await order(w, user, None))
                hand = await w.emu.slash(closed, w.channel, "game hand")
                assert hand.ephemeral and hand.message is not None
                await confirm(w, closed, await order(w, closed, None, hand.message))
                await w.settle()
            assert finished(w)
            assert w.emu.dm_messages(closed) == []


async def test_everyone_confirming_at_once_resolves_the_round_once(tmp_path: Path) -> None:
    async with world(tmp_path, 6) as w, w.bot_running() as bot:
        await open_game(w, GAME)
        ready = [await order(w, u, None) for u in w.users]
        results = await asyncio.gather(
            *(confirm(w, u, m) for u, m in zip(w.users, ready, strict=True))
        )
        assert len(results) == 6
        await w.settle()
        reveals = [t for t in w.channel_texts() if "Round 1 — dinner is served" in t]
        assert len(reveals) == 1
        session = await bot.service.load(1)
        assert session.state is not None
        log = await bot.store.actions(1)
        confirms = [e for e in log if '"confirm"' in e.action]
        assert len(confirms) == 6
        assert "round 2/5" in w.table_message().current_text()


async def test_forged_and_hostile_input_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async with world(tmp_path, 4) as w:
        w.emu.add_user("mallory", guild=w.guild)
        mallory = [u for u in w.emu.users if u not in w.users and u != w.emu.bot_user_id][-1]
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            alice, bob = w.users[0], w.users[1]
            alice_dm = await order(w, alice, None)
            stale_hand = await w.emu.slash(alice, w.channel, "game hand")  # round 1's controls
            before = await bot.store.actions(1)

            # A stranger presses the table's buttons.
            hand = await w.emu.click(mallory, table.id, table.button("Show my hand"))
            assert "not playing" in ephemeral_text(hand)
            # Bob forges Alice's controls (her seat) on his own message.
            bob_dm = w.latest_dm(bob)
            alice_button = choice(alice_dm, 0)
            forged = await w.emu.forge_component(bob, bob_dm.id, alice_button)
            assert "isn't on this message" in ephemeral_text(forged)
            # ... and on a message that does carry a custom_id of his own, naming her seat.
            own_button = choice(bob_dm, 0)
            parts = own_button.split(":")
            parts[3] = "0"
            forged_seat = await w.emu.forge_component(bob, bob_dm.id, ":".join(parts))
            assert forged_seat.ephemeral
            # Another session's id, another move's key, a button sent as a select.
            other = own_button.replace("cb:g:1:", "cb:g:99:")
            assert (await w.emu.forge_component(bob, bob_dm.id, other)).ephemeral
            parts = own_button.split(":")
            parts[4] = "0" * len(parts[4])
            bad_key = await w.emu.forge_component(bob, bob_dm.id, ":".join(parts))
            assert "isn't on this message" in ephemeral_text(bad_key)
            nonsense = await w.emu.forge_component(
                bob, bob_dm.id, own_button, component_type=3, values=["x; drop"]
            )
            assert nonsense.ephemeral
            assert await bot.store.actions(1) == before, "nothing changed"

            # Replaying an old custom_id after the round moved on.
            for user in w.users:
                await confirm(w, user, await order(w, user, None))
            await w.settle()
            assert stale_hand.message is not None
            old_button = choice(stale_hand.message, 0)
            log = await bot.store.actions(1)
            replay = await w.emu.click(alice, stale_hand.message.id, old_button)
            assert "moved on" in ephemeral_text(replay)
            assert replay.message is not None and button_rows(replay.message), "a fresh view"
            assert await bot.store.actions(1) == log
            # A non-player joins a running game; the table's start button is gone.
            status = await w.emu.slash(mallory, w.channel, "game join")
            assert "already started" in ephemeral_text(status)


async def _visible_to(w: World, user: int) -> list[str]:
    return [normalise(m.text()) for m in w.emu.visible_to(user)]


async def _secret_round(
    tmp_path: Path, alice_picks: list[int], bob_card: int
) -> tuple[list[str], list[str]]:
    """One round where only Alice's picks and Alice/Bob's ballots differ between runs.

    Returns what Carol could see before the reveal and what Carol and Dave saw by the end."""
    tmp_path.mkdir()
    async with world(tmp_path, 4) as w, w.bot_running():
        await open_game(w, GAME)
        alice, bob, carol, dave = w.users
        # Alice: her picks vary; Bob: his card varies; Carol and Dave: fixed.
        message = w.latest_dm(alice)
        for row, pick in enumerate(alice_picks):
            await tap(w, alice, message, row, pick)
        await confirm(w, alice, message)
        message = w.latest_dm(bob)
        for row in range(CHOICES):
            await tap(w, bob, message, row, bob_card if row == 3 else 0)
        await confirm(w, bob, message)
        await confirm(w, carol, await order(w, carol, None))
        await w.settle()
        before_reveal = await _visible_to(w, carol)
        await confirm(w, dave, await order(w, dave, None))
        await w.settle()
        return before_reveal, await _visible_to(w, carol) + await _visible_to(w, dave)


async def test_secrets_never_reach_anyone_else(tmp_path: Path) -> None:
    # Alice's menu picks differ (same dishes are on her menu either way); before the reveal,
    # nothing Carol can see differs.
    first, _ = await _secret_round(tmp_path / "a", [0, 0, 0, 0], bob_card=0)
    second, _ = await _secret_round(tmp_path / "b", [1, 1, 1, 0], bob_card=0)
    assert first == second, "Carol's view depended on Alice's secret picks"
    # Alice and Bob swap ballots (Alice's card 0/1, Bob's card 1/0): the tally is the same, so
    # nothing Carol or Dave ever sees may differ — not even after the reveal.
    _, swap_a = await _secret_round(tmp_path / "c", [0, 0, 0, 0], bob_card=1)
    _, swap_b = await _secret_round(tmp_path / "d", [0, 0, 0, 1], bob_card=0)
    assert swap_a == swap_b, "the ballot was not anonymous"


async def test_secrets_are_only_in_their_owners_messages(tmp_path: Path) -> None:
    async with world(tmp_path, 4) as w, w.bot_running():
        await open_game(w, GAME)
        for _ in range(5):
            await play_round(w, Rng(seed=2))
        for seat, owner in enumerate(w.users):
            marker = f"cb:g:1:{seat}:"
            for other in w.users:
                if other == owner:
                    continue
                for message in w.emu.visible_to(other):
                    ids = [cid for _, cid, _ in message.buttons()] + [
                        c for c, _ in message.selects()
                    ]
                    assert not any(cid.startswith(marker) for cid in ids), (
                        "a private control leaked"
                    )
                    assert (
                        "Your private view" not in message.text()
                        or message.ephemeral_to == other
                        or (message.channel_id == w.emu.dm_channel_id(other))
                    )


async def test_an_idle_player_is_reminded_then_auto_played(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        idle = w.users[2]
        async with w.bot_running() as bot:
            await open_game(w, GAME, timeout=300)
            for user in w.users[:2]:
                await confirm(w, user, await order(w, user, None))
            w.clock.advance(151)
            await w.fire_timers()
            reminder = [
                m
                for m in w.emu.dm_messages(idle)
                if "Reminder" in m.text() or "waiting for your move" in m.text()
            ]
            assert len(reminder) == 1, "a reminder was DMed halfway"
            # It says when it was true: clock times, no relative time that keeps counting.
            assert re.search(r"<t:\d+:t>", reminder[0].content) and ":R>" not in reminder[0].content
            # A reminder of a step that is over says nothing.
            assert not await bot.service.remind(1, "an-old-step", w.clock() + 60)
            assert not any(
                "waiting for your move" in m.text()
                for u in w.users[:2]
                for m in w.emu.dm_messages(u)
            )
            w.clock.advance(150)
            await w.fire_timers()
            assert any("Round 1 — dinner is served" in t for t in w.channel_texts())
            assert any("Auto-played" in t or "default move" in t for t in w.channel_texts())
        # The next deadline passes while the bot is stopped: it fires when the bot is back.
        w.clock.advance(10_000)
        async with w.bot_running() as bot:
            await w.fire_timers()
            assert any("Round 2 — dinner is served" in t for t in w.channel_texts())
            session = await bot.service.load(1)
            log = await bot.store.actions(1)
            assert sum(e.source == "timeout" for e in log) >= 4
            assert session.state is not None


async def test_the_real_entry_point_against_the_emulator(tmp_path: Path) -> None:
    emu = DiscordEmulator()
    await emu.start()
    try:
        guild = emu.add_guild("Game Night")
        channel = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        env = bot_process_env(emu, guild, CAFEBOT_DATABASE_PATH=str(tmp_path / "real.sqlite3"))
        process = await start_bot_process(
            env, tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        try:
            await emu.wait_for_bot_ready(timeout=30)
            commands = emu.synced_commands(guild)
            assert [c["name"] for c in commands] == ["game"]
            result = await emu.slash(alice, channel, "game new", {"game": "monster-cafe"})
            table = await result.final()
            assert "Monster Café — lobby" in table.current_text()
            rules = await emu.slash(alice, channel, "game rules", {"game": GAME})
            assert "Café Carnage" in ephemeral_text(rules)
        finally:
            process.terminate()
            output, _ = await asyncio.wait_for(process.communicate(), timeout=20)
        assert b"emulated" not in output and emu.token.encode() not in output, "token logged"
        assert process.returncode in (0, -15)
    finally:
        await emu.stop()
    emu.assert_clean()


@pytest.mark.parametrize("user_index", [1])
async def test_lobby_refusals(tmp_path: Path, user_index: int) -> None:
    async with world(tmp_path, 3) as w, w.bot_running():
        host, other = w.users[0], w.users[user_index]
        table = await (await w.emu.slash(host, w.channel, "game new", {"game": GAME})).final()
        second = await w.emu.slash(other, w.channel, "game new", {"game": "monster-cafe"})
        assert "already has a game" in ephemeral_text(second)
        early = await w.emu.click(host, table.id, table.button("Start"))
        assert "needs 3–8 players" in ephemeral_text(early)
        await w.emu.click(other, table.id, table.button("Join"))
        twice = await w.emu.click(other, table.id, w.emu.get_message(table.id).button("Join"))
        assert "already joined" in ephemeral_text(twice)
        not_host = await w.emu.click(other, table.id, w.emu.get_message(table.id).button("Start"))
        assert "Only the host" in ephemeral_text(not_host)
        bad = await w.emu.slash(host, w.channel, "game abandon")
        assert bad.ephemeral and bad.message is not None
        stranger = await w.emu.slash(other, w.channel, "game abandon")
        assert "Only the host" in ephemeral_text(stranger)
        yes = bad.message.button("Yes, abandon it")
        done = await w.emu.click(host, bad.message.id, yes)
        assert "abandoned" in (done.message.current_text() if done.message else "")
        await w.settle()
        assert "lobby closed" in w.emu.get_message(table.id).current_text()


async def test_table_edits_are_spaced_and_coalesced(tmp_path: Path) -> None:
    """Discord rate-limits channel message edits: changes within the interval are shown
    together in one later edit, and the table ends up showing the latest state."""
    async with world(tmp_path, 4) as w:
        w.table_edit_interval = 0.5
        async with w.bot_running():
            table = await open_game(w, GAME)
            before = len(w.emu.rest_calls)
            for user in w.users:  # 20 clicks in quick succession, each once the DM shows it
                message = w.latest_dm(user)
                for row in range(CHOICES):
                    custom_id = choice(w.emu.get_message(message.id), row)
                    await w.emu.click(user, message.id, custom_id)

                    def shown(cid: str = custom_id, mid: int = message.id, r: int = row) -> bool:
                        return picked(button_rows(w.emu.get_message(mid))[r]) == [cid]

                    await w.emu.wait_until(shown)
                await w.emu.wait_until(
                    lambda m=message: any(
                        label == CONFIRM and not off
                        for label, _, off in w.emu.get_message(m.id).buttons()
                    )
                )
                await w.emu.click(user, message.id, w.emu.get_message(message.id).button(CONFIRM))
            await w.settle()
            path = f"/channels/{w.channel}/messages/{table.id}"
            edits = [
                c
                for c in w.emu.rest_calls[before:]
                if c.method == "PATCH" and c.path.endswith(path)
            ]
            assert 1 <= len(edits) <= 4, f"{len(edits)} table edits for 20 clicks"
            assert "round 2/5" in w.emu.get_message(table.id).current_text()


async def test_last_rounds_menu_is_closed_by_a_click_not_by_an_edit(tmp_path: Path) -> None:
    """Issue 15: a new round's DM came with an edit of each player's previous DM (one REST call
    per player per round). The previous DM is left as it was; a click on it is refused, and its
    own answer closes it (no call beyond the callback), pointing at the newer message."""
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        await open_game(w, GAME)
        late = w.users[1]  # orders, but the round's time runs out before they confirm
        for user in w.users:
            message = await order(w, user, None)
            if user != late:
                await confirm(w, user, message)
        stale = w.latest_dm(late)
        before = len(w.emu.rest_calls)
        deadline = await bot.service.deadline(1)
        assert deadline is not None
        w.clock.advance(deadline.due_at - w.clock() + 1)
        await w.fire_timers()
        assert "round 2/5" in w.latest_dm(late).current_text().lower()
        dm_channels = {str(w.emu.dm_channel_id(u)) for u in w.users}
        dm_edits = [
            c
            for c in w.emu.rest_calls[before:]
            if c.method == "PATCH" and any(f"/channels/{d}/" in c.path for d in dm_channels)
        ]
        assert dm_edits == [], "the new round's DMs came without edits of the old ones"
        version = (await bot.service.load(1)).version
        user = late
        stale = w.emu.get_message(stale.id)
        assert button_rows(stale), "the last round's menu was left as it was"
        calls = len(w.emu.rest_calls)
        result = await w.emu.click(user, stale.id, choice(stale, 0))
        assert result.type == 7, "the click's own answer updates the old DM"
        closed = w.emu.get_message(stale.id)
        assert closed.selects() == [] and closed.buttons() == []
        assert "newer message" in closed.current_text()
        assert len(w.emu.rest_calls) == calls + 1, "nothing but the callback"
        assert (await bot.service.load(1)).version == version, "nothing was played"
        assert w.latest_dm(user).id != stale.id and button_rows(w.latest_dm(user))
        # Round 2 runs out too; then the game is abandoned: the newest DM says so at once, and
        # a click on round 2's (left open) closes it the same way.
        round_two = w.latest_dm(late)
        deadline = await bot.service.deadline(1)
        assert deadline is not None
        w.clock.advance(deadline.due_at - w.clock() + 1)
        await w.fire_timers()
        round_three = w.latest_dm(late)
        assert round_three.id != round_two.id and button_rows(w.emu.get_message(round_two.id))
        ask = await w.emu.slash(w.users[0], w.channel, "game abandon", {})
        assert ask.message is not None
        await w.emu.click(w.users[0], ask.message.id, ask.message.button("Yes, abandon it"))
        await w.settle()
        assert "abandoned" in w.emu.get_message(round_three.id).current_text()
        result = await w.emu.click(late, round_two.id, choice(w.emu.get_message(round_two.id), 0))
        assert result.type == 7
        closed = w.emu.get_message(round_two.id)
        assert "abandoned" in closed.current_text()
        assert closed.selects() == [] and closed.buttons() == []


async def test_a_slow_sync_does_not_give_a_closed_menu_its_controls_back(tmp_path: Path) -> None:
    """Found by the kill -9 soak: the sync that follows a restart loads the game, then waits
    on Discord (here: a slow edit of the table). Meanwhile the last player confirms, which ends
    the round, and the click's answer closes their menu. The sync, reaching that player's DM
    with the game as it had loaded it, must not draw the older round over it: the menu would
    show its controls again, for a round that is over."""
    async with world(tmp_path, 3) as w:
        async with w.bot_running():
            table = await open_game(w, GAME)
            for user in w.users[:2]:
                await confirm(w, user, await order(w, user, None))
            last = w.users[2]
            menu = await order(w, last, None)  # shown by the clicks' answers only
        # As after a kill -9: no record of what the messages show, so the start syncs the game.
        with sqlite3.connect(w.db_path) as db:
            assert db.execute("DELETE FROM meta WHERE key LIKE 'memo:shown:%'").rowcount == 1
        slow_table = w.emu.inject_fault(
            "PATCH", f"/channels/{w.channel}/messages/{table.id}", delay=1.0
        )
        async with w.bot_running():
            while not slow_table.hits:  # the start-up sync has loaded the game and waits
                await asyncio.sleep(0.01)
            result = await w.emu.click(last, menu.id, w.emu.get_message(menu.id).button(CONFIRM))
            assert result.type == 7 and not result.ephemeral
            closed = w.emu.get_message(menu.id)
            assert closed.selects() == [] and closed.buttons() == [], "the answer closes it"
            await w.settle()
            assert any("Round 1 — dinner is served" in t for t in w.channel_texts())
            after = w.emu.get_message(menu.id)
            assert after.selects() == [] and after.buttons() == [], "still closed after the sync"
            assert after.current_text() == closed.current_text()
            assert "round 2/5" in w.latest_dm(last).current_text().lower()


async def test_a_pick_on_a_private_copy_shows_in_the_dm_too(tmp_path: Path) -> None:
    """A pick made on the private copy /game hand gives is answered on that copy; the DM, which
    the click's answer does not draw, is brought up to date by the sync right after."""
    async with world(tmp_path, 3) as w, w.bot_running():
        await open_game(w, GAME)
        alice = w.users[0]
        dm = w.latest_dm(alice)
        copy = await w.emu.slash(alice, w.channel, "game hand")
        assert copy.ephemeral and copy.message is not None
        custom_id = choice(copy.message, 0, -1)
        result = await w.emu.click(alice, copy.message.id, custom_id)
        assert result.type == 7, "the copy is updated by the click's own answer"
        assert result.message is not None
        assert picked(button_rows(result.message)[0]) == [custom_id]
        await w.settle()
        starters = button_rows(w.emu.get_message(dm.id))[0]
        assert picked(starters) == [custom_id], "the DM shows the pick too"
        # And a pick on the DM itself is shown there by its own answer, nothing more.
        other_id = choice(w.emu.get_message(dm.id), 1)
        calls = len(w.emu.rest_calls)
        result = await w.emu.click(alice, dm.id, other_id)
        assert result.type == 7
        await w.settle()
        assert picked(button_rows(w.emu.get_message(dm.id))[1]) == [other_id]
        assert len(w.emu.rest_calls) == calls + 1, "the callback alone"
