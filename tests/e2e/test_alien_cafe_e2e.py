"""Alien Café in Discord, end to end: the real bot, through discord.py, against the emulator.

Every move is made by clicking the components of a player's DM: the 4×4 tray of cell buttons
(with one control per row: Draw 👽, Draw 🍽️, Take back / Put down, Done) and the row-4 select
(hold a hand tile, give the held tile, take back, declare a Joker). The engine's greedy waiter
decides *what* to do; the test turns each decision into the clicks a player would make.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest

from bot.core.store import TimerRow
from emulator import EmulatorError, InteractionResult, Message
from games.alien_cafe.actions import (
    Action,
    DoneAction,
    DrawAction,
    GiveAction,
    LevelAction,
    MoveAction,
    PlaceAction,
    TakeBackAction,
)
from games.alien_cafe.scoring import score
from games.alien_cafe.state import TARGET, AlienCafeState
from games.alien_cafe.strategies import greedy_action
from games.alien_cafe.tiles import TILES
from tests.e2e.harness import World, ephemeral_text, open_game, world

GAME = "alien-cafe"
FINAL = re.compile(r"🏆 The table wins —|💥 The café closes —")
RESULTS = re.compile(r"Round (\d) — the service (succeeded ✅|failed ❌)")


# -- reading ---------------------------------------------------------------------------------------
async def game_state(w: World) -> AlienCafeState:
    session = await w.running.service.load(1)
    assert session.state is not None
    return cast(AlienCafeState, session.state)


async def deadline(w: World) -> TimerRow:
    timers = [t for t in await w.running.store.timers(1) if t.kind == "deadline"]
    assert len(timers) == 1, timers
    return timers[0]


def rows(message: Message) -> list[list[dict[str, Any]]]:
    """The message's action rows, each a list of its components."""
    return [list(row.get("components") or []) for row in message.components]


def cell_id(message: Message, cell: int) -> str:
    """custom_id of the tray cell button ``cell`` (0–15, row-major) on a service DM."""
    button = rows(message)[cell // 4][cell % 4]
    assert button["type"] == 2
    return str(button["custom_id"])


def cell_labels(message: Message) -> list[str]:
    return [str(rows(message)[c // 4][c % 4].get("label")) for c in range(16)]


def the_select(message: Message) -> tuple[str, list[tuple[str, str]]]:
    selects = message.selects()
    assert len(selects) == 1, f"one select on the panel, got {selects}"
    return selects[0]


def option_value(message: Message, wanted: str, *, exact_hold: bool = False) -> str:
    _, options = the_select(message)
    for label, value in options:
        if exact_hold:
            if label == wanted or label.startswith(wanted + " ×"):
                return value
        elif wanted in label:
            return value
    raise AssertionError(f"no option {wanted!r} in {[label for label, _ in options]}")


def service_dm(w: World, user: int) -> Message:
    message = w.latest_dm(user)
    assert "Your tray" in message.current_text(), message.current_text()[:200]
    return message


def results_texts(w: World) -> list[str]:
    return [t for t in w.channel_texts() if RESULTS.search(t)]


def over(w: World) -> bool:
    return any(FINAL.search(t) for t in w.channel_texts())


# -- clicking --------------------------------------------------------------------------------------
async def press(w: World, user: int, message: Message, custom_id: str) -> InteractionResult:
    result = await w.emu.click(user, message.id, custom_id)
    # A DM is acknowledged (deferred update) and then edited by the bot; an ephemeral copy is
    # edited by the response itself.
    expected = 7 if message.ephemeral_to else 6
    assert result.type == expected, f"a click got {result.type}: {_said(result)}"
    await w.settle()
    return result


async def pick(
    w: World, user: int, message: Message, wanted: str, *, exact_hold: bool = False
) -> InteractionResult:
    current = w.emu.get_message(message.id)
    custom_id, _ = the_select(current)
    value = option_value(current, wanted, exact_hold=exact_hold)
    result = await w.emu.select(user, message.id, custom_id, [value])
    expected = 7 if message.ephemeral_to else 6
    assert result.type == expected, f"a pick got {result.type}: {_said(result)}"
    await w.settle()
    return result


def _said(result: InteractionResult) -> str:
    return result.message.current_text()[:300] if result.message else ""


async def hold(w: World, user: int, message: Message, tile: str) -> None:
    """Make ``tile`` (or, from the hand, a tile with the same face) the held tile, by clicking."""
    seat = (await game_state(w)).seats[str(user)]
    label = TILES[tile].label
    if tile in seat.tray:
        if seat.held == tile:
            return
        if seat.held is not None and seat.held in seat.tray:
            # Holding another tray tile: clicking this one would swap them. Put it down first.
            current = w.emu.get_message(message.id)
            await press(w, user, current, cell_id(current, seat.tray.index(seat.held)))
        current = w.emu.get_message(message.id)
        await press(w, user, current, cell_id(current, seat.tray.index(tile)))
    else:
        assert tile in seat.hand
        if seat.held in seat.hand and TILES[seat.held].label == label:
            return
        await pick(w, user, message, f"Hold {label}", exact_hold=True)
    held = (await game_state(w)).seats[str(user)].held
    assert held is not None and TILES[held].label == label


async def perform(w: World, user: int, message: Message, action: Action) -> None:
    """Make the move ``action`` in ``user``'s DM ``message`` by clicking what a player clicks."""
    if isinstance(action, LevelAction):
        current = w.emu.get_message(message.id)
        seat = (await game_state(w)).seats[str(user)]
        if action.level == seat.level:
            await press(w, user, current, current.button(f"Keep level {seat.level}"))
        else:
            await pick(w, user, current, f"Level {action.level}")
        return
    if isinstance(action, (PlaceAction, MoveAction)):
        await hold(w, user, message, action.tile)
        current = w.emu.get_message(message.id)
        await press(w, user, current, cell_id(current, action.cell))
    elif isinstance(action, TakeBackAction):
        await hold(w, user, message, action.tile)
        current = w.emu.get_message(message.id)
        await press(w, user, current, current.button("Take back"))
    elif isinstance(action, GiveAction):
        await hold(w, user, message, action.tile)
        name = (await w.running.service.load(1)).names()[action.to]
        await pick(w, user, message, f"to {name}")
    elif isinstance(action, DrawAction):
        current = w.emu.get_message(message.id)
        await press(
            w, user, current, current.button("Draw 👽" if action.bag == "red" else "Draw 🍽️")
        )
    elif isinstance(action, DoneAction):
        current = w.emu.get_message(message.id)
        await press(w, user, current, current.button("Done"))
    else:  # pragma: no cover - the greedy waiter never declares
        raise AssertionError(f"no clicks for {action!r}")


async def pick_levels(w: World, levels: dict[int, int]) -> None:
    for user, level in levels.items():
        message = w.latest_dm(user)
        assert "your level" in message.current_text()
        await perform(w, user, message, LevelAction(level=level))


Trays = dict[int, list[str | None]]


async def play_greedily(
    w: World, messages: dict[int, Message] | None = None, *, limit: int = 200
) -> Trays:
    """Each player in turn makes the greedy waiter's next move by clicking, until all are done.

    Returns each player's tray as it was locked when they pressed Done."""
    messages = messages or {u: service_dm(w, u) for u in w.users}
    locked: Trays = {}
    for _ in range(limit):
        for user, message in messages.items():
            state = await game_state(w)
            if state.phase != "service":
                return locked
            seat = state.seats[str(user)]
            if seat.done:
                continue
            action = greedy_action(state, str(user), seat.level)
            if isinstance(action, DoneAction):
                locked[user] = list(seat.tray)
            await perform(w, user, message, action)
    raise AssertionError("the service did not end")


def results_message(w: World, round_number: int) -> Message:
    found = [
        m
        for m in w.emu.channel_messages(w.channel)
        if m.embeds
        and (found := RESULTS.search(str(m.embeds[0].get("title"))))
        and found[1] == str(round_number)
    ]
    assert len(found) == 1, f"round {round_number}'s results are posted exactly once"
    return w.emu.get_message(found[0].id)


def check_results(
    w: World, round_number: int, trays: Trays, scores: dict[str, int], success: bool
) -> None:
    """The channel shows every tray with each tile marked, each total and the verdict."""
    message = results_message(w, round_number)
    embed = message.embeds[0]
    verdict = "succeeded ✅" if success else "failed ❌"
    assert embed["title"].endswith(f"the service {verdict}")
    fields = embed["fields"]
    assert len(fields) == len(w.users)
    for user, field in zip(w.users, fields, strict=True):
        pid = str(user)
        ok = "✅" if scores[pid] >= TARGET else "❌"
        assert field["name"].startswith(f"{ok} ")
        assert f"— {scores[pid]} points" in field["name"]
        grid = field["value"].split("\n")[:4]
        tray = trays.get(user, [None] * 16)
        ev = score(tray, [], 0, {})
        for row in range(4):
            cells = grid[row].split("  ")
            cells[0] = cells[0].split(" ", 1)[1]  # drop the row number
            assert len(cells) == 4, grid[row]
            for col, text in enumerate(cells):
                tile = tray[row * 4 + col]
                if tile is None:
                    assert text == "▫️"
                elif TILES[tile].joker:
                    assert text.startswith("🃏")
                else:
                    assert text.startswith(TILES[tile].icon)
                    assert text.endswith("✅" if ev.marks[row * 4 + col] == 1 else "❌"), text
        assert field["value"].endswith(f"→ **{scores[pid]}**")


def check_service_layout(message: Message) -> None:
    """The DM tray: a 4×4 grid of cell buttons, one control per row, the select in row 4 —
    within Discord's 5 action rows and 25 components (the emulator rejects anything else)."""
    layout = rows(message)
    assert len(layout) == 5
    assert sum(len(row) for row in layout) <= 25
    for row in layout[:4]:
        assert 4 <= len(row) <= 5 and all(c["type"] == 2 for c in row)
    assert [c["type"] for c in layout[4]] == [3], "row 4 is the select, alone"
    labels = [str(c.get("label")) for row in layout[:4] for c in row[4:]]
    assert any(label.startswith("Draw 👽") for label in labels)
    assert any(label.startswith("Draw 🍽️") for label in labels)
    assert "✅ Done" in labels


# -- 1. a whole game by clicking ---------------------------------------------------------------------
async def test_a_two_player_game_by_clicking_with_a_give_a_restart_and_a_timer(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 2) as w:
        alice, bob = w.users
        a, b = str(alice), str(bob)
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            assert "Picking levels for round 1" in table.current_text()

            # Round 1 — each player picks a level in their DM.
            levels_dm = {u: w.latest_dm(u) for u in w.users}
            for message in levels_dm.values():
                assert "round 1: your level" in message.current_text()
                _, options = the_select(message)
                assert [label for label, _ in options] == [f"Level {n}" for n in range(5)]
            await pick(w, alice, levels_dm[alice], "Level 1")
            assert (
                "You're ready at **level 1**"
                in w.emu.get_message(levels_dm[alice].id).current_text()
            )
            assert (await game_state(w)).phase == "levels", "Bob has not picked yet"
            await press(w, bob, levels_dm[bob], levels_dm[bob].button("Keep level 0"))
            assert any("Round 1 — the service begins" in t for t in w.channel_texts())
            state = await game_state(w)
            assert state.phase == "service"
            assert (state.seats[a].level, state.seats[b].level) == (1, 0)
            assert len(state.seats[a].hand) == 7 and len(state.seats[b].hand) == 6
            dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
            assert dm_a.id != levels_dm[alice].id, "the service tray is a new DM"
            for user, message in ((alice, dm_a), (bob, dm_b)):
                check_service_layout(message)
                assert cell_labels(message) == ["·"] * 16, "an empty tray"
                hand = state.seats[str(user)].hand
                assert f"✋ Hand ({len(hand)})" in message.current_text()
                assert all(TILES[t].text in message.current_text() for t in hand)

            # Place: pick a hand tile in the select, click an empty cell.
            tile = next(t for t in state.seats[a].hand if not TILES[t].special)
            await hold(w, alice, dm_a, tile)
            tile = cast(str, (await game_state(w)).seats[a].held)
            assert "Holding" in w.emu.get_message(dm_a.id).current_text()
            await press(w, alice, w.emu.get_message(dm_a.id), cell_id(dm_a, 5))
            seat = (await game_state(w)).seats[a]
            assert seat.tray[5] == tile and tile not in seat.hand and seat.held is None
            assert cell_labels(w.emu.get_message(dm_a.id))[5].startswith(TILES[tile].label)
            # Move: click the placed tile (picks it up), click another cell.
            await press(w, alice, w.emu.get_message(dm_a.id), cell_id(dm_a, 5))
            assert (await game_state(w)).seats[a].held == tile
            await press(w, alice, w.emu.get_message(dm_a.id), cell_id(dm_a, 0))
            seat = (await game_state(w)).seats[a]
            assert seat.tray[0] == tile and seat.tray[5] is None
            # Take back: pick it up, press Take back.
            await press(w, alice, w.emu.get_message(dm_a.id), cell_id(dm_a, 0))
            current = w.emu.get_message(dm_a.id)
            await press(w, alice, current, current.button("Take back"))
            seat = (await game_state(w)).seats[a]
            assert seat.tray == [None] * 16 and tile in seat.hand and len(seat.hand) == 7
            # Draw from both bags.
            red, blue = len(state.red), len(state.blue)
            await perform(w, alice, dm_a, DrawAction(bag="red"))
            await perform(w, alice, dm_a, DrawAction(bag="blue"))
            state = await game_state(w)
            assert (len(state.red), len(state.blue)) == (red - 1, blue - 1)
            drawn_alien, drawn_order = state.seats[a].hand[-2:]
            assert drawn_alien.startswith("A") and drawn_order.startswith("O")
            assert "You drew" in w.emu.get_message(dm_a.id).current_text()
            assert f"Draw 👽 ({red - 1})" in [
                lbl for lbl, _, _ in w.emu.get_message(dm_a.id).buttons()
            ]
            # Give the drawn order to Bob.
            bob_hand = list(state.seats[b].hand)
            await hold(w, alice, dm_a, drawn_order)
            given = cast(str, (await game_state(w)).seats[a].held)
            await pick(w, alice, dm_a, "to Bob")
            state = await game_state(w)
            assert given not in state.seats[a].hand, "the tile left Alice's hand"
            assert state.seats[b].hand == [*bob_hand, given], "and reached Bob's"
            assert "You gave" in w.emu.get_message(dm_a.id).current_text()
            assert "🎁 Alice gave you" in w.emu.get_message(dm_b.id).current_text()
            assert "Give" not in str(w.emu.get_message(dm_b.id).selects())  # nothing held yet

            # Both play on by clicking and press Done: the round ends at once, not at the timer.
            ends_at = await deadline(w)
            trays = await play_greedily(w, {alice: dm_a, bob: dm_b})
            assert ends_at.due_at > w.clock(), "ended before its deadline"
            state = await game_state(w)
            assert state.phase == "levels" and state.round == 2
            first = state.results[0]
            check_results(w, 1, trays, first.scores, first.success)
            assert "done here" in w.emu.get_message(dm_b.id).current_text() or (
                "done here" in w.emu.get_message(dm_a.id).current_text()
            )
            assert (await deadline(w)).key == "levels-2"

            # Round 2 — levels kept by clicking, a move or two, then the bot restarts.
            await pick_levels(w, {alice: 1, bob: 0})
            assert "Keep level" not in str(w.latest_dm(alice).buttons())
            dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
            for _ in range(3):
                state = await game_state(w)
                await perform(w, alice, dm_a, greedy_action(state, a, 1))
            before_restart = await bot.store.actions(1)
            dms_sent = {u: len(w.emu.dm_messages(u)) for u in w.users}
        async with w.bot_running() as bot:
            await w.settle()
            assert await bot.store.actions(1) == before_restart
            assert {u: len(w.emu.dm_messages(u)) for u in w.users} == dms_sent, "no new DMs"
            assert service_dm(w, alice).id == dm_a.id and service_dm(w, bob).id == dm_b.id
            # The DMs sent before the restart still work.
            trays = await play_greedily(w, {alice: dm_a, bob: dm_b})
            state = await game_state(w)
            second = state.results[1]
            check_results(w, 2, trays, second.scores, second.success)
            assert len(await bot.store.actions(1)) > len(before_restart)

            # Round 3 — nobody clicks anything: the level timer keeps the levels, the round timer
            # ends the service.
            level_deadline = await deadline(w)
            assert level_deadline.key == "levels-3"
            w.clock.advance(level_deadline.due_at - w.clock() + 1)
            await w.fire_timers()
            state = await game_state(w)
            assert state.phase == "service" and state.round == 3
            assert (state.seats[a].level, state.seats[b].level) == (1, 0), "levels kept"
            service_deadline = await deadline(w)
            assert service_deadline.key == "service-3"
            assert service_deadline.due_at - w.clock() <= state.options.round_time
            w.clock.advance(service_deadline.due_at - w.clock() - 2)
            await w.fire_timers()
            assert (await game_state(w)).phase == "service", "not before the deadline"
            w.clock.advance(3)
            await w.fire_timers()
            state = await game_state(w)
            third = state.results[2]
            assert not third.success
            assert third.scores == {a: -7, b: -6}, "every tile left in hand scores −1"
            check_results(w, 3, {}, third.scores, third.success)
            log = await bot.store.actions(1)
            timeouts = [e for e in log if e.source == "timeout"]
            assert len(timeouts) == 4, "2 levels kept + 2 players made done, by the timers"

            # Play on by clicking until the game is over (3 successes, 3 failures or 5 rounds).
            while not over(w):
                state = await game_state(w)
                await pick_levels(w, {alice: state.seats[a].level, bob: state.seats[b].level})
                await play_greedily(w)
            state = await game_state(w)
            session = await bot.service.load(1)
            assert state.phase == "over" and session.status == "finished"
            verdicts = {r.success for r in state.results}
            assert verdicts == {True, False}, "services both succeeded and failed on the way"
            outcome = session.outcome()
            assert outcome is not None and outcome.cooperative
            won = state.successes >= 3
            finals = [t for t in w.channel_texts() if FINAL.search(t)]
            assert len(finals) == 1, "the end is announced once"
            assert ("🏆 The table wins" in finals[0]) == won
            assert f"in {len(state.results)} rounds" in finals[0]
            assert (outcome.winners == [a, b]) == won
            assert len(results_texts(w)) == len(state.results)
            assert await bot.service.replay(1) == session.state
            table = w.emu.get_message(table.id)
            assert not table.buttons() and not table.selects()
            assert await bot.store.timers(1) == []
            for user in w.users:
                last = w.emu.dm_messages(user)[-1]
                assert "Alien Café — closed" in last.current_text()
                assert not last.buttons() and not last.selects()


async def start_service(w: World, levels: dict[int, int] | None = None) -> None:
    await pick_levels(w, levels or dict.fromkeys(w.users, 0))
    assert (await game_state(w)).phase == "service"


def progress(w: World) -> dict[str, str]:
    """The table message's fields: name → value."""
    message = w.table_message()
    return {str(f["name"]): str(f["value"]) for f in message.embeds[0]["fields"]}


# -- 2. the channel during a service ---------------------------------------------------------------
async def test_the_table_shows_the_round_timer_and_each_players_progress(tmp_path: Path) -> None:
    async with world(tmp_path, 2) as w, w.bot_running():
        alice, bob = w.users
        await open_game(w, GAME)
        await start_service(w, {alice: 0, bob: 1})
        ends = await deadline(w)
        assert ends.key == "service-1"
        assert abs(ends.due_at - (w.clock() + 180)) < 5, "the default hourglass: 3 minutes"
        text = w.table_message().current_text()
        stamps = re.findall(r"<t:(\d+):R>", text)
        assert stamps == [str(int(ends.due_at))], "the round timer is a relative timestamp"
        fields = progress(w)
        assert "🧩 0 placed · ✋ 6 in hand" in fields["Alice · level 0"]
        assert "⏳ working" in fields["Alice · level 0"]
        assert "🧩 0 placed · ✋ 7 in hand" in fields["Bob · level 1"]
        assert fields["⏳ Waiting for"].startswith("Alice, Bob")

        # Alice places two tiles and is done; the table follows, the deadline does not move.
        dm = service_dm(w, alice)
        hand = (await game_state(w)).seats[str(alice)].hand
        await perform(w, alice, dm, PlaceAction(tile=hand[0], cell=0))
        await perform(w, alice, dm, PlaceAction(tile=hand[1], cell=1))
        fields = progress(w)
        assert "🧩 2 placed · ✋ 4 in hand" in fields["Alice · level 0"]
        assert "⏳ working" in fields["Alice · level 0"]
        await perform(w, alice, dm, DoneAction())
        fields = progress(w)
        assert "🧩 2 placed · ✋ 4 in hand" in fields["Alice · level 0"]
        assert "✅ done" in fields["Alice · level 0"]
        assert "⏳ working" in fields["Bob · level 1"]
        assert fields["⏳ Waiting for"].startswith("Bob\n")
        assert (await deadline(w)) == ends
        assert re.findall(r"<t:(\d+):R>", w.table_message().current_text()) == [
            str(int(ends.due_at))
        ]
        # Alice's tray is locked: her DM has no controls left and says so.
        locked = w.emu.get_message(dm.id)
        assert "You're done" in locked.current_text()
        assert not locked.buttons() and not locked.selects()
        # Bob's DM shows her progress too, and he can no longer give her anything.
        bob_dm = service_dm(w, bob)
        assert "Alice: " in bob_dm.current_text() and "✅ done" in bob_dm.current_text()
        tile = next(t for t in (await game_state(w)).seats[str(bob)].hand if t[0] in "AO")
        await hold(w, bob, bob_dm, tile)
        assert "Give" not in str(w.emu.get_message(bob_dm.id).selects())


# -- 3. downtime is given back ----------------------------------------------------------------------
async def test_the_time_the_bot_was_down_is_given_back_to_the_round(tmp_path: Path) -> None:
    async with world(tmp_path, 2) as w:
        async with w.bot_running():
            await open_game(w, GAME)
            await start_service(w)
            before = await deadline(w)
            w.clock.advance(3)  # the bot runs on a little (less than a heartbeat) and stops
        w.clock.advance(100)  # down for 100 s
        async with w.bot_running() as bot:
            await w.settle()
            after = await deadline(w)
            assert after.key == before.key == "service-1"
            assert abs((after.due_at - before.due_at) - 100) <= 1, after.due_at - before.due_at
            state = await game_state(w)
            assert state.phase == "service" and not state.results, "the round did not end"
            assert re.findall(r"<t:(\d+):R>", w.table_message().current_text()) == [
                str(int(after.due_at))
            ], "the table shows the new deadline"
            # The old deadline passes: nothing happens. The new one ends the round.
            w.clock.advance(before.due_at - w.clock() + 1)
            await w.fire_timers()
            assert (await game_state(w)).phase == "service"
            w.clock.advance(after.due_at - w.clock() + 1)
            await w.fire_timers()
            state = await game_state(w)
            assert state.phase == "levels" and len(state.results) == 1
            assert len(results_texts(w)) == 1
            assert all(e.source == "timeout" for e in (await bot.store.actions(1))[2:])


# -- 4. refusals ----------------------------------------------------------------------------------
async def test_forged_stale_and_impossible_clicks_are_refused_and_change_nothing(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 2) as w, w.bot_running() as bot:
        alice, bob = w.users
        a = str(alice)
        await open_game(w, GAME)
        await start_service(w)
        dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
        hand = (await game_state(w)).seats[a].hand
        await perform(w, alice, dm_a, PlaceAction(tile=hand[0], cell=0))
        await hold(w, alice, dm_a, hand[1])
        dm_a = w.emu.get_message(dm_a.id)
        assert cell_labels(dm_a)[1] == "⬇️", "an empty cell offers to place the held tile"
        # A private copy of the same panel (as /game hand shows it), taken now.
        copy = await w.emu.slash(alice, w.channel, "game hand")
        assert copy.ephemeral and copy.message is not None
        assert cell_id(copy.message, 1) == cell_id(dm_a, 1), "the same controls"
        before = await bot.store.actions(1)
        state_before = await game_state(w)

        # Bob presses Alice's controls: forged onto his own DM, or his own control renamed to
        # her seat — neither is on his message, so the bot refuses before looking at the game.
        forged = await w.emu.forge_component(bob, dm_b.id, cell_id(dm_a, 1))
        assert "isn't on this message" in ephemeral_text(forged)
        parts = cell_id(dm_b, 0).split(":")
        parts[3] = cell_id(dm_a, 1).split(":")[3]
        seat = await w.emu.forge_component(bob, dm_b.id, ":".join(parts))
        assert "isn't on this message" in ephemeral_text(seat)
        # A select value that was never offered; a control index past the panel's end.
        select_id, options = the_select(dm_a)
        for value in (str(len(options)), "x; drop"):
            bad = await w.emu.forge_component(
                alice, dm_a.id, select_id, component_type=3, values=[value]
            )
            assert "moved on" in ephemeral_text(bad), "refused, with the current view"
        beyond = cell_id(dm_a, 0).rsplit(":", 1)[0] + ":24"
        assert (await w.emu.forge_component(alice, dm_a.id, beyond)).ephemeral
        assert await bot.store.actions(1) == before
        assert await game_state(w) == state_before

        # Placing on an occupied cell: Alice places her held tile on cell 1 from her DM; the copy
        # still offers "place on cell 1" — now taken — and is refused with the current view.
        await press(w, alice, dm_a, cell_id(dm_a, 1))
        placed = (await game_state(w)).seats[a].tray[1]
        before = await bot.store.actions(1)
        taken = await w.emu.click(alice, copy.message.id, cell_id(copy.message, 1))
        assert "moved on" in ephemeral_text(taken)
        assert taken.message is not None and len(rows(taken.message)) == 5, "with a fresh view"
        assert (await game_state(w)).seats[a].tray[1] == placed
        assert await bot.store.actions(1) == before
        # Holding a hand tile, a click on an occupied cell never drops it there: it picks the
        # placed tile up instead (no tile moves).
        await hold(w, alice, dm_a, (await game_state(w)).seats[a].hand[0])
        await press(w, alice, dm_a, cell_id(dm_a, 1))
        seat_a = (await game_state(w)).seats[a]
        assert seat_a.held == placed and seat_a.tray[1] == placed and len(seat_a.hand) == 4
        await press(w, alice, dm_a, cell_id(dm_a, 1))  # put it down again
        assert (await game_state(w)).seats[a].held is None

        # Drawing from an empty bag: Alice empties the red bag (Bob's copy still shows it).
        red = len((await game_state(w)).red)
        for _ in range(red - 1):
            current = w.emu.get_message(dm_a.id)
            await press(w, alice, current, current.button("Draw 👽"))
        bob_copy = await w.emu.slash(bob, w.channel, "game hand")
        assert bob_copy.message is not None
        assert "Draw 👽 (1)" in [lbl for lbl, _, _ in bob_copy.message.buttons()]
        current = w.emu.get_message(dm_a.id)
        await press(w, alice, current, current.button("Draw 👽 (1)"))
        assert (await game_state(w)).red == []
        for message in (dm_a, dm_b):
            labels = [str(lbl) for lbl, _, _ in w.emu.get_message(message.id).buttons()]
            assert not any(lbl.startswith("Draw 👽") for lbl in labels), "no draw from an empty bag"
            assert any(lbl.startswith("Draw 🍽️") for lbl in labels)
        before = await bot.store.actions(1)
        empty = await w.emu.click(bob, bob_copy.message.id, bob_copy.message.button("Draw 👽"))
        assert "moved on" in ephemeral_text(empty)
        assert await bot.store.actions(1) == before
        assert len((await game_state(w)).seats[str(bob)].hand) == 6

        # Done is final: Bob's controls go away; a copy from before cannot draw any more.
        bob_copy = await w.emu.slash(bob, w.channel, "game hand")
        assert bob_copy.message is not None
        await perform(w, bob, dm_b, DoneAction())
        before = await bot.store.actions(1)
        late = await w.emu.click(bob, bob_copy.message.id, bob_copy.message.button("Draw 🍽️"))
        assert "moved on" in ephemeral_text(late)
        assert late.message is not None and not late.message.buttons()
        assert await bot.store.actions(1) == before


# -- 5. round_time from 1 minute to 7 days ------------------------------------------------------------
@pytest.mark.parametrize(
    ("seconds", "label", "short"), [(60, "1 minute", "1 min"), (604800, "7 days", "7 days")]
)
async def test_round_time_from_one_minute_to_seven_days(
    tmp_path: Path, seconds: int, label: str, short: str
) -> None:
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        host = w.users[0]
        offered = await w.emu.autocomplete(
            host, w.channel, "game new", {"game": GAME, "setting": ""}, focused="setting"
        )
        values = [str(c["value"]) for c in offered]
        assert values and all(v.startswith("level_time=") for v in values), values
        assert {"level_time=1 minute", "level_time=7 days"} <= set(values)
        typed = await w.emu.autocomplete(
            host, w.channel, "game new", {"game": GAME, "setting": "7 d"}, focused="setting"
        )
        assert [c["value"] for c in typed] == ["level_time=7 days"]
        with pytest.raises(EmulatorError):  # Discord offers only the listed timeouts
            await w.emu.slash(host, w.channel, "game new", {"game": GAME, "timeout": 30})

        result = await w.emu.slash(
            host,
            w.channel,
            "game new",
            {"game": GAME, "timeout": seconds, "setting": f"level_time={label}"},
        )
        lobby = await result.final()
        assert f"**Round time**: {label}" in lobby.current_text()
        _, round_times = lobby.selects()[0]
        assert {"Round time: 1 minute", "Round time: 7 days"} <= {lbl for lbl, _ in round_times}
        session = await bot.service.load(1)
        options = cast(Any, session.options)
        assert (options.round_time, options.level_time) == (seconds, seconds)

        await w.emu.click(host, lobby.id, lobby.button("Start"))
        await w.settle()
        levels = await deadline(w)
        assert levels.key == "levels-1" and abs(levels.due_at - w.clock() - seconds) < 5
        message = w.latest_dm(host)
        assert f"The service lasts {short}." in message.current_text()
        await start_service(w)
        ends = await deadline(w)
        assert ends.key == "service-1" and abs(ends.due_at - w.clock() - seconds) < 5
        assert f"<t:{int(ends.due_at)}:R>" in w.table_message().current_text()
        assert f"Service in progress ({short})" in w.table_message().current_text()
        # The round ends at its timer, not before.
        w.clock.advance(ends.due_at - w.clock() - 1)
        await w.fire_timers()
        assert (await game_state(w)).phase == "service"
        w.clock.advance(2)
        await w.fire_timers()
        assert (await game_state(w)).results[0].scores == {str(host): -6}
        assert len(results_texts(w)) == 1


# -- 6. solo ---------------------------------------------------------------------------------------
async def test_a_solo_game_starts_and_its_dm_works(tmp_path: Path) -> None:
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        (alice,) = w.users
        table = await open_game(w, GAME)
        assert "Alien Café — round 1" in table.current_text()
        await start_service(w, {alice: 2})
        state = await game_state(w)
        hand = state.seats[str(alice)].hand
        assert len(hand) == 8 and sum(TILES[t].special for t in hand) == 2
        dm = service_dm(w, alice)
        check_service_layout(dm)
        special = next(t for t in hand if TILES[t].special)
        await hold(w, alice, dm, special)
        labels = [lbl for lbl, _ in the_select(w.emu.get_message(dm.id))[1]]
        assert not any("Give" in lbl for lbl in labels), "nobody to give to (and never a special)"
        trays = await play_greedily(w, {alice: dm})
        state = await game_state(w)
        assert state.phase == "levels" and state.round == 2
        first = state.results[0]
        check_results(w, 1, trays, first.scores, first.success)
        assert first.success == (first.scores[str(alice)] >= TARGET)
        assert "Keep level 2" in str(w.latest_dm(alice).buttons())
        assert await bot.service.replay(1) == (await bot.service.load(1)).state


async def test_a_view_outdated_by_someone_elses_move_still_works(tmp_path: Path) -> None:
    """Real-time play: Bob's give changes Alice's panel while she looks at an older copy of it.
    A move that copy offers and that is still on offer is applied; one that is no longer on
    offer (the tile she gave away) is refused with the current view."""
    async with world(tmp_path, 2) as w, w.bot_running() as bot:
        alice, bob = w.users
        a, b = str(alice), str(bob)
        await open_game(w, GAME)
        await start_service(w)
        old = await w.emu.slash(alice, w.channel, "game hand")  # Alice's view, now
        assert old.message is not None
        bob_tile = (await game_state(w)).seats[b].hand[0]
        await perform(w, bob, service_dm(w, bob), GiveAction(tile=bob_tile, to=a))
        assert bob_tile in (await game_state(w)).seats[a].hand
        # Alice's old copy: Draw is still offered, so it works although her panel changed.
        hand_before = len((await game_state(w)).seats[a].hand)
        drawn = await w.emu.click(alice, old.message.id, old.message.button("Draw 👽"))
        assert drawn.type == 7, "the copy is an ephemeral: the response edits it"
        assert len((await game_state(w)).seats[a].hand) == hand_before + 1
        # Alice gives away a tile from her DM; the old copy's "hold that tile" is then refused.
        state = await game_state(w)
        faces = [TILES[t].label for t in state.seats[a].hand]
        gift = next(
            t
            for t in state.seats[a].hand
            if t != bob_tile and not t.startswith("X") and faces.count(TILES[t].label) == 1
        )
        copy = w.emu.get_message(old.message.id)  # as the copy shows now, before the give
        await perform(w, alice, service_dm(w, alice), GiveAction(tile=gift, to=b))
        before = await bot.store.actions(1)
        select_id, _ = the_select(copy)
        value = option_value(copy, f"Hold {TILES[gift].label}", exact_hold=True)
        stale = await w.emu.select(alice, copy.id, select_id, [value])
        assert "moved on" in ephemeral_text(stale)
        assert await bot.store.actions(1) == before
