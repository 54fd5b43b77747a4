"""Alien Café in Discord, end to end: the real bot, through discord.py, against the emulator.

Every move is made by tapping the components of a player's DM, a Components V2 message: a
container holding the panel's text and its action rows. Rows 0–3 are the 4×4 tray (4 cell buttons
each, nothing else); then the hand's faces as buttons, five a row (tap to hold, tap the held one
to put it down; a select with the rest of a hand too large for the message); then the commands
(Draw 👽, Draw 🍽️, ↩️ Take back while a tray tile is held, ✅ Done); last, what to do with the
held tile (🎁 give it, 📣 offer it) or, with nothing held, an "Ask the table" select. The engine's greedy waiter decides *what*
to do; the test turns each decision into the taps a player would make.

The emulator's ``Message.buttons()`` / ``selects()`` / ``find_component()`` walk nested components
(containers, action rows), so the harness's ``controls()`` and ``press()`` work on V2 messages as
they are; only the row layout (which cell is where) needs :func:`action_rows` below.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from bot.adapter.screens import named_picture
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
from games.alien_cafe.catalogue import TILES, TYPES
from games.alien_cafe.picture import draw, results_spec
from games.alien_cafe.scoring import score
from games.alien_cafe.state import TARGET, AlienCafeState
from games.alien_cafe.strategies import greedy_action
from games.alien_cafe.words import offer_words, type_words
from games.presentation import Picture
from tests.e2e.harness import (
    Control,
    World,
    controls,
    ephemeral_text,
    open_game,
    press,
    state_of,
    world,
)

GAME = "alien-cafe"
FINAL = re.compile(r"🏆 The table wins —|💥 The café closes —")
RESULTS = re.compile(r"Round (\d) — the service (succeeded ✅|failed ❌)")
COMPONENTS_V2 = 1 << 15
CONTAINER, ACTION_ROW, BUTTON, TEXT_DISPLAY = 17, 1, 2, 10
POSTS = "📣 Requests & offers"
ASK = "📣 Ask the table for a tile…"


# -- a bot bug worked around for every test but the one that shows it ------------------------------
def _walk(components: Iterable[Any]) -> Iterator[Any]:
    """discord.py's components of a message, nested ones included (containers, rows, sections)."""
    for component in components:
        yield component
        yield from _walk(getattr(component, "children", None) or [])
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            yield from _walk([accessory])


# -- reading ---------------------------------------------------------------------------------------
async def game_state(w: World) -> AlienCafeState:
    return cast(AlienCafeState, await state_of(w.running))


async def deadline(w: World) -> TimerRow:
    timers = [t for t in await w.running.store.timers(1) if t.kind == "deadline"]
    assert len(timers) == 1, timers
    return timers[0]


def action_rows(message: Message) -> list[list[dict[str, Any]]]:
    """The message's action rows (nested in a V2 container or not), each a list of its
    components."""
    return [list(c.get("components") or []) for c in message.all_components() if c.get("type") == 1]


@dataclass
class TrayPanel:
    """A service DM's controls, by place: 16 cells (row-major), the hand's buttons, the rest of
    the hand, the commands' row, the held tile's (or the request's) row."""

    message: Message
    cells: list[dict[str, Any]]
    hand: list[dict[str, Any]] = field(default_factory=list)
    more: dict[str, Any] | None = None
    commands: list[dict[str, Any]] = field(default_factory=list)
    context: list[dict[str, Any]] = field(default_factory=list)

    def labels(self, components: list[dict[str, Any]]) -> list[str]:
        return [str(c.get("label") or c.get("placeholder")) for c in components]


def tray_panel(message: Message) -> TrayPanel:
    rows = action_rows(message)
    assert len(rows) >= 5, f"a service DM starts with the tray's 4 rows: {message.current_text()}"
    for row in rows[:4]:
        assert all(c["type"] == BUTTON for c in row) and len(row) == 4, "the grid alone"
    panel = TrayPanel(message, [c for r in rows[:4] for c in r])
    for row in rows[4:]:
        if panel.commands:  # after the commands: one row, for the held tile or a request
            assert not panel.context, "one row after the commands"
            panel.context = row
        elif row[0]["type"] != BUTTON:
            assert len(row) == 1, "a select is alone in its row"
            assert str(row[0].get("placeholder")).startswith("✋") and panel.more is None
            panel.more = row[0]
        elif any(str(c.get("label")) == "✅ Done" for c in row):
            panel.commands = row
        else:
            assert panel.more is None, "the hand's buttons come before the rest of the hand"
            panel.hand += row
    assert panel.commands, "a row of commands with Done"
    return panel


def as_control(message: Message, component: dict[str, Any]) -> Control:
    assert component["type"] == BUTTON and not component.get("disabled"), component
    return Control(message.id, str(component.get("label") or ""), str(component["custom_id"]))


def cell(message: Message, n: int) -> Control:
    """The tray cell ``n`` (0–15, row-major) of a service DM, as a control to press."""
    return as_control(message, tray_panel(message).cells[n])


def cell_labels(message: Message) -> list[str]:
    return [str(c.get("label")) for c in tray_panel(message).cells]


def labelled(message: Message, label: str) -> Control:
    """The one enabled control (a button, or a select's option) labelled exactly ``label``."""
    found = [c for c in controls(message) if c.label == label]
    assert len(found) == 1, f"one {label!r} on the message: {[c.label for c in controls(message)]}"
    return found[0]


def labels(message: Message) -> list[str]:
    return [c.label for c in controls(message)]


def hand_control(message: Message, face: str) -> Control:
    """The hand button (or the large hand's select option) that holds a tile of ``face``."""
    panel = tray_panel(message)
    for button in panel.hand:
        label = str(button.get("label"))
        if label == face or label.startswith(face + " ×"):
            return as_control(message, button)
    wanted = f"Hold {face}"
    for control in controls(message):
        if control.value is not None and (
            control.label == wanted or control.label.startswith(wanted + " ×")
        ):
            return control
    raise AssertionError(f"no hand control for {face!r}: {labels(message)}")


def service_dm(w: World, user: int) -> Message:
    message = w.latest_dm(user)
    assert "Your tray" in message.current_text(), message.current_text()[:200]
    return message


def results_texts(w: World) -> list[str]:
    return [t for t in w.channel_texts() if RESULTS.search(t)]


def over(w: World) -> bool:
    return any(FINAL.search(t) for t in w.channel_texts())


def table_fields(w: World, table_id: int | None = None) -> dict[str, str]:
    """The table message's fields: name → value."""
    table = w.emu.get_message(table_id) if table_id else w.table_message()
    return {str(f["name"]): str(f["value"]) for f in table.embeds[0].get("fields") or []}


def progress(w: World) -> dict[str, tuple[str, str, str]]:
    """Each player's field on the table during a service: name → (level, status, value)."""
    out = {}
    for name, value in table_fields(w).items():
        parts = name.split(" · ")
        if len(parts) == 3 and parts[1].startswith("L"):
            out[parts[0]] = (parts[1], parts[2], value)
    return out


def dm_edits(w: World, message: Message) -> int:
    """How many times the bot edited ``message`` (REST calls, refused ones included)."""
    path = f"/channels/{message.channel_id}/messages/{message.id}"
    return sum(1 for call in w.emu.rest_calls if call.method == "PATCH" and call.path == path)


# -- tapping ---------------------------------------------------------------------------------------
async def tap(w: World, user: int, control: Control) -> InteractionResult:
    """``user`` taps ``control``; the bot shows the result on the tapped message, in the
    interaction's own answer (7: the message updated), or acknowledges it (6: a new step's
    DM comes as a new message); never a reply of its own."""
    message = w.emu.get_message(control.message_id)
    result = await press(w.emu, user, control)
    expected = {7} if message.ephemeral_to else {6, 7}
    said = result.message.current_text()[:300] if result.message else ""
    assert result.type in expected, f"a tap on {control.label!r} got {result.type}: {said}"
    assert not result.ephemeral
    await w.settle()
    return result


async def tap_label(w: World, user: int, message: Message, label: str) -> InteractionResult:
    return await tap(w, user, labelled(w.emu.get_message(message.id), label))


async def tap_cell(w: World, user: int, message: Message, n: int) -> InteractionResult:
    return await tap(w, user, cell(w.emu.get_message(message.id), n))


async def hold(w: World, user: int, message: Message, tile: str) -> None:
    """Make ``tile`` (or, from the hand, a tile with the same face) the held tile, by tapping."""
    seat = (await game_state(w)).seats[str(user)]
    face = TILES[tile].label
    if tile in seat.tray:
        if seat.held == tile:
            return
        if seat.held is not None and seat.held in seat.tray:
            # Holding another tray tile: tapping this one would swap them. Put it down first.
            await tap_cell(w, user, message, seat.tray.index(seat.held))
        await tap_cell(w, user, message, seat.tray.index(tile))
    else:
        assert tile in seat.hand
        if seat.held in seat.hand and TILES[seat.held].label == face:
            return
        await tap(w, user, hand_control(w.emu.get_message(message.id), face))
    held = (await game_state(w)).seats[str(user)].held
    assert held is not None and TILES[held].label == face


async def perform(w: World, user: int, message: Message, action: Action) -> None:
    """Make the move ``action`` in ``user``'s DM ``message`` by tapping what a player taps."""
    if isinstance(action, LevelAction):
        seat = (await game_state(w)).seats[str(user)]
        keep = action.level == seat.level
        await tap_label(
            w, user, message, f"Keep level {seat.level}" if keep else f"Level {action.level}"
        )
        return
    if isinstance(action, (PlaceAction, MoveAction)):
        await hold(w, user, message, action.tile)
        await tap_cell(w, user, message, action.cell)
    elif isinstance(action, TakeBackAction):
        await hold(w, user, message, action.tile)
        await tap_label(w, user, message, "↩️ Take back")
    elif isinstance(action, GiveAction):
        await hold(w, user, message, action.tile)
        name = (await w.running.service.load(1)).names()[action.to]
        await tap_label(w, user, message, f"🎁 {name}")
    elif isinstance(action, DrawAction):
        await tap_label(w, user, message, "Draw 👽" if action.bag == "red" else "Draw 🍽️")
    elif isinstance(action, DoneAction):
        await tap_label(w, user, message, "✅ Done")
    else:  # pragma: no cover - the greedy waiter never declares
        raise AssertionError(f"no taps for {action!r}")


async def pick_levels(w: World, levels: dict[int, int]) -> None:
    for user, level in levels.items():
        message = w.latest_dm(user)
        assert "your level" in message.current_text()
        await perform(w, user, message, LevelAction(level=level))


async def start_service(w: World, levels: dict[int, int] | None = None) -> None:
    await pick_levels(w, levels or dict.fromkeys(w.users, 0))
    assert (await game_state(w)).phase == "service"


Trays = dict[int, list[str | None]]


async def play_greedily(
    w: World, messages: dict[int, Message] | None = None, *, limit: int = 200
) -> Trays:
    """Each player in turn makes the greedy waiter's next move by tapping, until all are done.

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


# -- checking --------------------------------------------------------------------------------------
def results_message(w: World, round_number: int) -> Message:
    found = [
        m
        for m in w.game_messages()
        if m.embeds
        and (found := RESULTS.search(str(m.embeds[0].get("title"))))
        and found[1] == str(round_number)
    ]
    assert len(found) == 1, f"round {round_number}'s results are posted exactly once"
    return w.emu.get_message(found[0].id)


async def check_results(w: World, round_number: int, trays: Trays) -> None:
    """The channel shows every tray as a grid with each tile marked, each total and level, and
    the verdict; the announcement pings nobody."""
    state = await game_state(w)
    result = state.results[round_number - 1]
    names = (await w.running.service.load(1)).names()
    message = results_message(w, round_number)
    assert "<@" not in (message.content or ""), "announcements ping nobody"
    embed = message.embeds[0]
    verdict = "succeeded ✅" if result.success else "failed ❌"
    assert embed["title"].endswith(f"the service {verdict}")
    assert result.success == all(s >= TARGET for s in result.scores.values())
    fields = embed["fields"]
    assert len(fields) == len(w.users)
    for user, shown in zip(w.users, fields, strict=True):
        pid = str(user)
        total = result.scores[pid]
        ok = "✅" if total >= TARGET else "❌"
        assert shown["name"] == f"{ok} {names[pid]} — {total} points · L{result.levels[pid]}"
        lines = shown["value"].split("\n")
        assert lines[-1].endswith(f"→ **{total}**"), lines[-1]
        tray = trays.get(user, [None] * 16)
        if not any(tray):
            assert len(lines) == 1, "no grid for an empty tray"
            continue
        assert len(lines) == 5, lines
        ev = score(tray, [], 0, {})
        for row in range(4):
            cells = lines[row].split(" ")
            assert len(cells) == 4, lines[row]
            for col, text in enumerate(cells):
                tile = tray[row * 4 + col]
                if tile is None:
                    assert text == "▫️▫️"
                elif TILES[tile].joker:
                    assert text.endswith("🃏"), text
                else:
                    mark = {1: "✅", -1: "❌"}.get(ev.marks[row * 4 + col] or 0, "▫️")
                    assert text == TILES[tile].symbol + mark, (text, tile)


async def check_picture(w: World, table_id: int) -> None:
    """After a service, the table message shows the picture of every tray: its embed image is
    the attached file, and that file is the picture of the last service (exactly these bytes)."""
    state = await game_state(w)
    result = state.results[-1]
    name = f"service-{result.round}.png"
    table = w.emu.get_message(table_id)
    assert [a["filename"] for a in table.attachments] == [name], "only the last service's"
    attachment = table.attachments[0]
    verdict = "succeeded" if result.success else "failed"
    assert str(attachment.get("description")).startswith(f"Round {result.round}: the service")
    assert verdict in str(attachment.get("description"))
    assert table.embeds[0]["image"]["url"] == attachment["url"], "the embed shows the attachment"
    assert table.embed_images() == [attachment["url"]]
    # The picture of these trays, with the players' names written in (not "Player 1").
    names = (await w.running.service.load(1)).names()
    spec = named_picture(Picture(name=name, alt="", spec=results_spec(state)), names).spec
    assert table.file(name) == draw(spec), "the picture of these trays"
    assert all(names[p] in str(attachment.get("description")) for p in state.players)
    assert "Player 1" not in str(attachment.get("description"))
    assert table.file(name).startswith(b"\x89PNG")
    assert w.emu.unresolved_attachments == []


def check_v2(message: Message) -> None:
    """A Components V2 message: one container with the panel's text first, then action rows."""
    assert message.flags & COMPONENTS_V2 and not message.content and not message.embeds
    assert [c["type"] for c in message.components] == [CONTAINER]
    inner = message.components[0]["components"]
    assert inner[0]["type"] == TEXT_DISPLAY
    assert all(c["type"] == ACTION_ROW for c in inner[1:])
    assert len(message.all_components()) <= 40


async def check_service_layout(w: World, user: int, message: Message) -> TrayPanel:
    """The DM tray as the brief lays it out, for ``user``'s seat as it is now."""
    state = await game_state(w)
    pid = str(user)
    seat = state.seats[pid]
    names = (await w.running.service.load(1)).names()
    message = w.emu.get_message(message.id)
    check_v2(message)
    panel = tray_panel(message)
    held_on_tray = seat.held is not None and seat.held in seat.tray
    assert panel.labels(panel.commands) == (
        (["Draw 👽"] if state.red else [])
        + (["Draw 🍽️"] if state.blue else [])
        + (["↩️ Take back"] if held_on_tray else [])
        + ["✅ Done"]
    )
    # Under the grid: one button per face, five a row, as many as the message holds (every
    # face of the hands these games reach); the rest in a select.
    faces: list[str] = []
    for tid in seat.hand:
        if TILES[tid].label not in faces:
            faces.append(TILES[tid].label)
    shown = [label.split(" ×")[0] for label in panel.labels(panel.hand)]
    assert shown == faces[: len(shown)]
    assert len(shown) >= min(len(faces), 6), "at least 6 faces as buttons"
    assert all(len(row) <= 5 for row in action_rows(message))
    if len(faces) > len(shown):
        assert panel.more is not None
        options = [str(o["label"]) for o in panel.more["options"]]
        assert [o.removeprefix("Hold ").split(" ×")[0] for o in options] == faces[len(shown) :]
    else:
        assert panel.more is None
    # The last row: what to do with the held hand tile, or a request to the table.
    others = [names[p] for p in state.players if p != pid and not state.seats[p].done]
    context = panel.labels(panel.context)
    held = seat.held
    multiplayer = len(state.players) > 1
    if held is not None and held in seat.hand:
        if TILES[held].special:
            assert context == []
        else:
            offer = ["📣 Withdraw offer" if seat.offer == held else "📣 Offer it"]
            assert context == [f"🎁 {n}" for n in others] + (offer if multiplayer else [])
    elif held is None:
        assert context == ([ASK] if multiplayer else [])
    return panel


# -- 1. a whole game by tapping --------------------------------------------------------------------
async def test_a_two_player_game_by_tapping_with_a_give_a_restart_and_a_timer(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 2) as w:
        alice, bob = w.users
        a, b = str(alice), str(bob)
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            assert "Picking levels for round 1" in table.current_text()
            levels_timer = await deadline(w)
            assert levels_timer.key == "levels-1"
            assert abs(levels_timer.due_at - w.clock() - 120) < 5, "the level pick: 2 minutes"

            # Round 1 — each player picks a level in their DM: 5 buttons.
            levels_dm = {u: w.latest_dm(u) for u in w.users}
            for message in levels_dm.values():
                check_v2(message)
                assert "round 1: your level" in message.current_text()
                assert labels(message) == ["Keep level 0"] + [f"Level {n}" for n in range(1, 5)]
                assert len(action_rows(message)) == 1
            await tap_label(w, alice, levels_dm[alice], "Level 1")
            ready = w.emu.get_message(levels_dm[alice].id)
            assert "You're ready at **level 1**" in ready.current_text()
            assert not controls(ready), "no more level buttons once ready"
            assert (await game_state(w)).phase == "levels", "Bob has not picked yet"
            await tap_label(w, bob, levels_dm[bob], "Keep level 0")
            assert any("Round 1 — the service begins" in t for t in w.channel_texts())
            state = await game_state(w)
            assert state.phase == "service"
            assert (state.seats[a].level, state.seats[b].level) == (1, 0)
            assert len(state.seats[a].hand) == 7 and len(state.seats[b].hand) == 6
            dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
            assert dm_a.id != levels_dm[alice].id, "the service tray is a new DM"
            for user, message in ((alice, dm_a), (bob, dm_b)):
                panel = await check_service_layout(w, user, message)
                assert cell_labels(message) == ["·"] * 16, "an empty tray"
                assert all(c.get("disabled") for c in panel.cells), "nothing held: nothing to do"
                hand = state.seats[str(user)].hand
                assert f"✋ Hand ({len(hand)})" in message.current_text()
                assert all(TILES[t].text in message.current_text() for t in hand)

            # Place: tap a hand tile, tap an empty cell.
            tile = next(t for t in state.seats[a].hand if not TILES[t].special)
            await hold(w, alice, dm_a, tile)
            tile = cast(str, (await game_state(w)).seats[a].held)
            holding = w.emu.get_message(dm_a.id)
            assert "Holding" in holding.current_text()
            assert cell_labels(holding) == ["⬇️"] * 16, "every empty cell takes the held tile"
            await check_service_layout(w, alice, holding)
            held_button = [
                b for b in tray_panel(holding).hand if b["label"].startswith(TILES[tile].label)
            ]
            assert held_button[0]["style"] == 1, "the held face stands out"
            await tap_cell(w, alice, dm_a, 5)
            seat = (await game_state(w)).seats[a]
            assert seat.tray[5] == tile and tile not in seat.hand and seat.held is None
            assert cell_labels(w.emu.get_message(dm_a.id))[5].startswith(TILES[tile].label)
            # Move: tap the placed tile (picks it up), tap another cell.
            await tap_cell(w, alice, dm_a, 5)
            assert (await game_state(w)).seats[a].held == tile
            await check_service_layout(w, alice, dm_a)  # with ↩️ Take back in row 2
            await tap_cell(w, alice, dm_a, 0)
            seat = (await game_state(w)).seats[a]
            assert seat.tray[0] == tile and seat.tray[5] is None
            # Take back: pick it up, tap ↩️ Take back.
            await tap_cell(w, alice, dm_a, 0)
            await tap_label(w, alice, dm_a, "↩️ Take back")
            seat = (await game_state(w)).seats[a]
            assert seat.tray == [None] * 16 and tile in seat.hand and len(seat.hand) == 7
            # Draw from both bags: the table shows what is left in each.
            red, blue = len(state.red), len(state.blue)
            await perform(w, alice, dm_a, DrawAction(bag="red"))
            await perform(w, alice, dm_a, DrawAction(bag="blue"))
            state = await game_state(w)
            assert (len(state.red), len(state.blue)) == (red - 1, blue - 1)
            drawn_alien, drawn_order = state.seats[a].hand[-2:]
            assert drawn_alien.startswith("A") and drawn_order.startswith("O")
            assert "You drew" in w.emu.get_message(dm_a.id).current_text()
            bags = f"👽 Red bag: {red - 1} · 🍽️ Blue bag: {blue - 1}"
            assert bags in w.table_message().current_text()
            # Give the drawn order to Bob.
            bob_hand = list(state.seats[b].hand)
            await hold(w, alice, dm_a, drawn_order)
            given = cast(str, (await game_state(w)).seats[a].held)
            await tap_label(w, alice, dm_a, "🎁 Bob")
            state = await game_state(w)
            assert given not in state.seats[a].hand, "the tile left Alice's hand"
            assert state.seats[b].hand == [*bob_hand, given], "and reached Bob's"
            assert "You gave" in w.emu.get_message(dm_a.id).current_text()
            assert "🎁 Alice gave you" in w.emu.get_message(dm_b.id).current_text()
            assert not any(lbl.startswith("🎁") for lbl in labels(w.emu.get_message(dm_b.id)))
            await check_service_layout(w, bob, dm_b)  # nothing held: Ask the table

            # Both play on by tapping and press Done: the round ends at once, not at the timer.
            ends_at = await deadline(w)
            trays = await play_greedily(w, {alice: dm_a, bob: dm_b})
            assert ends_at.due_at > w.clock(), "ended before its deadline"
            state = await game_state(w)
            assert state.phase == "levels" and state.round == 2
            await check_results(w, 1, trays)
            await check_picture(w, table.id)
            old = [w.emu.get_message(m.id) for m in (dm_a, dm_b)]
            assert any("done here" in m.current_text() for m in old), "the last tray is closed"
            for message in old:
                assert "done here" in message.current_text() or (
                    "You're done" in message.current_text()
                )
                assert not controls(message), "no controls left on a service that ended"
            assert (await deadline(w)).key == "levels-2"

            # Round 2 — levels kept by tapping, a move or two, then the bot restarts.
            await pick_levels(w, {alice: 1, bob: 0})
            assert not w.emu.get_message(table.id).attachments, "no picture during a service"
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
            await check_results(w, 2, trays)
            await check_picture(w, table.id)
            assert len(await bot.store.actions(1)) > len(before_restart)

            # Round 3 — nobody taps anything: the level timer keeps the levels, the round timer
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
            await check_results(w, 3, {})
            await check_picture(w, table.id)
            log = await bot.store.actions(1)
            timeouts = [e for e in log if e.source == "timeout"]
            assert len(timeouts) == 4, "2 levels kept + 2 players made done, by the timers"

            # Play on by tapping until the game is over (3 successes, 3 failures or 5 rounds).
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
            for n in range(4, len(state.results) + 1):
                results_message(w, n)  # each round's results once
            assert await bot.service.replay(1) == session.state
            table = w.emu.get_message(table.id)
            assert "Alien Café — closed" in table.current_text()
            assert not table.buttons() and not table.selects()
            await check_picture(w, table.id)  # the last service's picture stays
            assert await bot.store.timers(1) == []
            for user in w.users:
                last = w.emu.dm_messages(user)[-1]
                assert "Alien Café — closed" in last.current_text()
                assert not last.buttons() and not last.selects()
            # Announcements and notices ping nobody: every player had their DM.
            assert not [m.content for m in w.game_messages() if "<@" in m.content]


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
        assert "🍽️ Service (3 min) — still working: Alice, Bob" in text
        fields = progress(w)
        assert fields["Alice"][:2] == ("L0", "⏳")
        assert "🧩 0 placed · ✋ 6 in hand" in fields["Alice"][2]
        assert fields["Bob"][:2] == ("L1", "⏳")
        assert "🧩 0 placed · ✋ 7 in hand" in fields["Bob"][2]
        assert table_fields(w)["⏳ Waiting for"].startswith("Alice, Bob\n")

        # Bob holds a tile he could give Alice.
        dm_b = service_dm(w, bob)
        gift = next(t for t in (await game_state(w)).seats[str(bob)].hand if t[0] in "AO")
        await hold(w, bob, dm_b, gift)
        assert "🎁 Alice" in labels(w.emu.get_message(dm_b.id))
        bob_versions = len(w.emu.get_message(dm_b.id).history)

        # Alice places two tiles and is done; the table follows, the deadline does not move.
        dm = service_dm(w, alice)
        hand = (await game_state(w)).seats[str(alice)].hand
        await perform(w, alice, dm, PlaceAction(tile=hand[0], cell=0))
        await perform(w, alice, dm, PlaceAction(tile=hand[1], cell=1))
        fields = progress(w)
        assert fields["Alice"][:2] == ("L0", "⏳")
        placed, *grid = fields["Alice"][2].split("\n")
        assert "🧩 2 placed · ✋ 4 in hand" in placed
        assert len(grid) == 4 and grid[0].count("▫️▫️") == 2, "her tray, as a grid"
        assert len(w.emu.get_message(dm_b.id).history) == bob_versions, "Bob's DM stays as it is"
        await perform(w, alice, dm, DoneAction())
        fields = progress(w)
        assert "🧩 2 placed · ✋ 4 in hand" in fields["Alice"][2]
        assert fields["Alice"][:2] == ("L0", "✅ done")
        assert fields["Bob"][:2] == ("L1", "⏳")
        assert table_fields(w)["⏳ Waiting for"].startswith("Bob\n")
        assert "still working: Bob" in w.table_message().current_text()
        assert (await deadline(w)) == ends
        assert re.findall(r"<t:(\d+):R>", w.table_message().current_text()) == [
            str(int(ends.due_at))
        ]
        # Alice's tray is locked: her DM has no controls left and says so.
        locked = w.emu.get_message(dm.id)
        assert "You're done" in locked.current_text()
        assert not locked.buttons() and not locked.selects()
        # Bob's DM shows nobody's progress (the table does), but he can no longer give Alice
        # anything: the 🎁 button went as she pressed Done.
        bob_dm = w.emu.get_message(dm_b.id)
        assert "Alice" not in bob_dm.current_text()
        assert not any(lbl.startswith("🎁") for lbl in labels(bob_dm))
        assert "📣 Offer it" in labels(bob_dm)
        await check_service_layout(w, bob, bob_dm)


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
        old_step = w.latest_dm(alice)  # the level pick: its controls belong to an earlier step
        old_key = labelled(old_step, "Level 1").custom_id.split(":")[4]
        await start_service(w)
        dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
        hand = (await game_state(w)).seats[a].hand
        await perform(w, alice, dm_a, PlaceAction(tile=hand[0], cell=0))

        # A select value that was never offered, or one from an earlier step; a control index
        # past the panel's end: refused, with the current view.
        before = await bot.store.actions(1)
        state_before = await game_state(w)
        dm_a = w.emu.get_message(dm_a.id)
        ask = labelled(dm_a, "Need " + type_words(TYPES[0]))
        for value in ("x; drop", "0123456789", old_key):
            bad = await w.emu.forge_component(
                alice, dm_a.id, ask.custom_id, component_type=3, values=[value]
            )
            assert "moved on" in ephemeral_text(bad), "refused, with the current view"
        assert bad.message is not None and bad.message.flags & COMPONENTS_V2
        beyond = cell(dm_a, 0).custom_id.rsplit(":", 1)[0] + ":39"
        assert "isn't on this message" in ephemeral_text(
            await w.emu.forge_component(alice, dm_a.id, beyond)
        )
        assert await bot.store.actions(1) == before
        assert await game_state(w) == state_before

        await hold(w, alice, dm_a, hand[1])
        dm_a = w.emu.get_message(dm_a.id)
        assert cell_labels(dm_a)[1] == "⬇️", "an empty cell offers to place the held tile"
        # A private copy of the same panel (as /game hand shows it), taken now.
        copy = await w.emu.slash(alice, w.channel, "game hand")
        assert copy.ephemeral and copy.message is not None
        check_v2(copy.message)
        assert cell(copy.message, 1).custom_id == cell(dm_a, 1).custom_id, "the same controls"
        before = await bot.store.actions(1)
        state_before = await game_state(w)

        # Bob presses Alice's controls: forged onto his own DM, or his own control renamed to
        # her seat — neither is on his message, so the bot refuses before looking at the game.
        forged = await w.emu.forge_component(bob, dm_b.id, cell(dm_a, 1).custom_id)
        assert "isn't on this message" in ephemeral_text(forged)
        parts = labelled(dm_b, "✅ Done").custom_id.split(":")
        parts[3] = cell(dm_a, 1).custom_id.split(":")[3]
        seat = await w.emu.forge_component(bob, dm_b.id, ":".join(parts))
        assert "isn't on this message" in ephemeral_text(seat)
        assert await bot.store.actions(1) == before
        assert await game_state(w) == state_before

        # Placing on an occupied cell: Alice places her held tile on cell 1 from her DM; the copy
        # still offers "place on cell 1" — now taken — and is refused with the current view.
        await tap_cell(w, alice, dm_a, 1)
        placed = (await game_state(w)).seats[a].tray[1]
        before = await bot.store.actions(1)
        taken = await w.emu.click(alice, copy.message.id, cell(copy.message, 1).custom_id)
        assert "moved on" in ephemeral_text(taken)
        assert taken.message is not None
        check_v2(taken.message)
        assert cell_labels(taken.message)[1] != "⬇️", "with a fresh view"
        assert (await game_state(w)).seats[a].tray[1] == placed
        assert await bot.store.actions(1) == before
        # Holding a hand tile, a tap on an occupied cell never drops it there: it picks the
        # placed tile up instead (no tile moves).
        await hold(w, alice, dm_a, (await game_state(w)).seats[a].hand[0])
        await tap_cell(w, alice, dm_a, 1)
        seat_a = (await game_state(w)).seats[a]
        assert seat_a.held == placed and seat_a.tray[1] == placed and len(seat_a.hand) == 4
        await tap_cell(w, alice, dm_a, 1)  # put it down again
        assert (await game_state(w)).seats[a].held is None

        # Drawing from an empty bag: Alice empties the red bag (Bob's copy still shows it).
        red = len((await game_state(w)).red)
        for _ in range(red - 1):
            await tap_label(w, alice, dm_a, "Draw 👽")
        assert "👽 Red bag: 1 ·" in w.table_message().current_text()
        bob_copy = await w.emu.slash(bob, w.channel, "game hand")
        assert bob_copy.message is not None
        assert "Draw 👽" in labels(bob_copy.message)
        await tap_label(w, alice, dm_a, "Draw 👽")
        assert (await game_state(w)).red == []
        assert "👽 Red bag: 0 ·" in w.table_message().current_text()
        for message in (dm_a, dm_b):
            shown = labels(w.emu.get_message(message.id))
            assert not any(lbl.startswith("Draw 👽") for lbl in shown), "no draw from an empty bag"
            assert "Draw 🍽️" in shown
        await check_service_layout(w, alice, dm_a)  # a large hand: the rest in a select
        assert tray_panel(w.emu.get_message(dm_a.id)).more is not None
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
@pytest.mark.parametrize("seconds,label", [(60, "1 min"), (604800, "7 days")])
async def test_round_time_from_one_minute_to_seven_days(
    tmp_path: Path, seconds: int, label: str
) -> None:
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        host = w.users[0]
        offered = await w.emu.autocomplete(
            host, w.channel, "game new", {"game": GAME, "setting": ""}, focused="setting"
        )
        values = [str(c["value"]) for c in offered]
        assert values and all(v.startswith("level_time=") for v in values), values
        assert {"level_time=1 min", "level_time=7 days"} <= set(values)
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
        assert f"**Level time**: {label}" in lobby.current_text()
        round_times = next(opts for cid, opts in lobby.selects() if cid.endswith(":0"))
        assert {"Round time: 1 min", "Round time: 7 days"} <= {lbl for lbl, _ in round_times}
        session = await bot.service.load(1)
        options = cast(Any, session.options)
        assert (options.round_time, options.level_time) == (seconds, seconds)

        # Each deadline is set on the bot's clock between these readings of it (no tolerance
        # for how long the machine took).
        began = w.clock()
        await w.emu.click(host, lobby.id, lobby.button("Start"))
        await w.settle()
        levels = await deadline(w)
        assert levels.key == "levels-1"
        assert began + seconds <= levels.due_at <= w.clock() + seconds
        message = w.latest_dm(host)
        assert f"The service lasts {label}." in message.current_text()
        began = w.clock()
        await start_service(w)
        ends = await deadline(w)
        assert ends.key == "service-1"
        assert began + seconds <= ends.due_at <= w.clock() + seconds
        assert f"<t:{int(ends.due_at)}:R>" in w.table_message().current_text()
        assert f"🍽️ Service ({label})" in w.table_message().current_text()
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
        await check_service_layout(w, alice, dm)  # no "Ask the table": nobody to ask
        assert not any(lbl.startswith("📣") for lbl in labels(dm))
        special = next(t for t in hand if TILES[t].special)
        await hold(w, alice, dm, special)
        await check_service_layout(w, alice, dm)
        shown = w.emu.get_message(dm.id)
        assert "can't be given away" in shown.current_text()
        assert not any(lbl.startswith(("🎁", "📣")) for lbl in labels(shown)), "never a special"
        plain = next(t for t in hand if not TILES[t].special)
        await hold(w, alice, dm, plain)
        await check_service_layout(w, alice, dm)
        assert not any(lbl.startswith(("🎁", "📣")) for lbl in labels(w.emu.get_message(dm.id)))
        trays = await play_greedily(w, {alice: dm})
        state = await game_state(w)
        assert state.phase == "levels" and state.round == 2
        await check_results(w, 1, trays)
        await check_picture(w, table.id)
        assert "Keep level 2" in labels(w.latest_dm(alice))
        assert await bot.service.replay(1) == (await bot.service.load(1)).state


# -- 7. an older view still works ------------------------------------------------------------------
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
        hold_gift = hand_control(copy, TILES[gift].label)
        await perform(w, alice, service_dm(w, alice), GiveAction(tile=gift, to=b))
        before = await bot.store.actions(1)
        stale = await press(w.emu, alice, hold_gift)
        assert "moved on" in ephemeral_text(stale)
        assert await bot.store.actions(1) == before


# -- 8. two taps, and nobody else's DM moves ---------------------------------------------------------
async def test_a_tile_is_placed_in_two_taps_and_other_dms_stay_as_they_are(tmp_path: Path) -> None:
    async with world(tmp_path, 2) as w, w.bot_running():
        alice, bob = w.users
        a, b = str(alice), str(bob)
        await open_game(w, GAME)
        await start_service(w)
        dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
        bob_before = w.emu.get_message(dm_b.id)
        bob_text, bob_versions, bob_edits = (
            bob_before.current_text(),
            len(bob_before.history),
            dm_edits(w, bob_before),
        )
        alice_edits = dm_edits(w, dm_a)
        alice_versions = len(w.emu.get_message(dm_a.id).history)

        # Alice places a tile from her hand: a tap on the tile, a tap on the cell.
        tile = (await game_state(w)).seats[a].hand[0]
        taps = len(w.emu.interactions)
        await tap(w, alice, hand_control(w.emu.get_message(dm_a.id), TILES[tile].label))
        await tap_cell(w, alice, dm_a, 6)
        assert len(w.emu.interactions) - taps == 2, "exactly 2 interactions"
        seat = (await game_state(w)).seats[a]
        assert seat.tray[6] is not None and TILES[seat.tray[6]].label == TILES[tile].label
        assert cell_labels(w.emu.get_message(dm_a.id))[6].startswith(TILES[tile].label)
        versions = len(w.emu.get_message(dm_a.id).history) - alice_versions
        assert 1 <= versions <= 2, "her DM follows her taps"
        assert dm_edits(w, dm_a) == alice_edits, "in the taps' own answers, not by REST edits"
        assert "🧩 1 placed" in progress(w)["Alice"][2], "the table shows her progress"

        # A move, a draw, a place and a request by Alice change Bob's DM 0 times.
        bob_dms = len(w.emu.dm_messages(bob))
        await perform(w, alice, dm_a, MoveAction(tile=seat.tray[6], cell=7))
        await perform(w, alice, dm_a, DrawAction(bag="blue"))
        await tap_cell(w, alice, dm_a, 6)  # a drawn tile comes held: place it
        await tap_label(w, alice, dm_a, "Need " + type_words("green"))
        assert "🧩 2 placed" in progress(w)["Alice"][2]
        bob_after = w.emu.get_message(dm_b.id)
        assert dm_edits(w, bob_after) == bob_edits, "no edit of Bob's DM"
        assert len(bob_after.history) == bob_versions
        assert bob_after.current_text() == bob_text
        assert len(w.emu.dm_messages(bob)) == bob_dms, "no new DM either"

        # A give reaches Bob's own hand: now his DM changes.
        dms = len(w.emu.dm_messages(bob))
        gift = next(t for t in (await game_state(w)).seats[a].hand if t[0] in "AO")
        await perform(w, alice, dm_a, GiveAction(tile=gift, to=b))
        assert dm_edits(w, w.emu.get_message(dm_b.id)) > bob_edits
        assert "🎁 Alice gave you" in w.emu.get_message(dm_b.id).current_text()
        assert len(w.emu.dm_messages(bob)) == dms, "an edit, not a new DM"


# -- 9. requests and offers ------------------------------------------------------------------------
async def test_a_request_and_an_offer_show_on_the_table_and_clear_when_met(tmp_path: Path) -> None:
    async with world(tmp_path, 2) as w, w.bot_running() as bot:
        alice, bob = w.users
        a, b = str(alice), str(bob)
        await open_game(w, GAME)
        await start_service(w)
        dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
        tile = next(t for t in (await game_state(w)).seats[b].hand if TILES[t].type is not None)
        want = cast(str, TILES[tile].type)
        assert POSTS not in table_fields(w)

        # Alice asks the table, from the select of her DM (nothing held).
        ask = w.emu.get_message(dm_a.id)
        assert [c.label for c in controls(ask) if c.value is not None] == [
            "Need " + type_words(t) for t in TYPES
        ]
        bob_edits = dm_edits(w, dm_b)
        await tap_label(w, alice, dm_a, "Need " + type_words(want))
        assert (await game_state(w)).seats[a].request == want
        assert table_fields(w)[POSTS] == f"🙋 Alice needs {type_words(want)}"
        shown = w.emu.get_message(dm_a.id)
        assert f"📣 On the table: you need {type_words(want)}" in shown.current_text()
        assert "Withdraw my request" in labels(shown)
        assert "Need " + type_words(want) not in labels(shown), "asked already"
        assert dm_edits(w, dm_b) == bob_edits, "Bob sees it on the table, not in his DM"

        # Bob offers the tile she needs: the table shows its type, never which tile it is.
        await hold(w, bob, dm_b, tile)
        tile = cast(str, (await game_state(w)).seats[b].held)
        await tap_label(w, bob, dm_b, "📣 Offer it")
        assert (await game_state(w)).seats[b].offer == tile
        assert table_fields(w)[POSTS] == (
            f"🙋 Alice needs {type_words(want)}\n🎁 Bob has {offer_words(tile)} to give"
        )
        assert tile not in w.table_message().text()
        offered = w.emu.get_message(dm_b.id)
        assert f"you offer {TILES[tile].label}" in offered.current_text()
        assert "📣 Withdraw offer" in labels(offered)

        # He gives it to her: the request is met and the offer taken, both leave the table.
        actions = len(await bot.store.actions(1))
        await tap_label(w, bob, dm_b, "🎁 Alice")
        state = await game_state(w)
        assert tile in state.seats[a].hand
        assert state.seats[a].request is None and state.seats[b].offer is None
        assert POSTS not in table_fields(w)
        assert "On the table" not in w.emu.get_message(dm_a.id).current_text()
        assert "On the table" not in w.emu.get_message(dm_b.id).current_text()
        assert len(await bot.store.actions(1)) == actions + 1, "one move did both"

        # A request can also be withdrawn from the DM.
        await tap_label(w, alice, dm_a, "Need " + type_words(TYPES[-1]))
        assert "needs" in table_fields(w)[POSTS]
        await tap_label(w, alice, dm_a, "Withdraw my request")
        assert POSTS not in table_fields(w)
        assert (await game_state(w)).seats[a].request is None


# -- 10. the results picture -----------------------------------------------------------------------
async def test_the_table_shows_the_picture_of_every_tray_after_a_service(tmp_path: Path) -> None:
    async with world(tmp_path, 2) as w, w.bot_running():
        alice, bob = w.users
        table = await open_game(w, GAME)
        assert not table.attachments and not table.embed_images(), "no service yet: no picture"
        await start_service(w)
        dm_a, dm_b = service_dm(w, alice), service_dm(w, bob)
        hand = (await game_state(w)).seats[str(alice)].hand
        await perform(w, alice, dm_a, PlaceAction(tile=hand[0], cell=5))
        await perform(w, alice, dm_a, DoneAction())
        await perform(w, bob, dm_b, DoneAction())
        assert (await game_state(w)).phase == "levels"
        await check_picture(w, table.id)
        picture = w.emu.get_message(table.id).file("service-1.png")
        # The next service hides it; its end shows the new one, and only that one.
        await start_service(w)
        during = w.emu.get_message(table.id)
        assert not during.attachments and not during.embed_images()
        await perform(w, alice, service_dm(w, alice), DoneAction())
        await perform(w, bob, service_dm(w, bob), DoneAction())
        await check_picture(w, table.id)
        assert w.emu.get_message(table.id).file("service-2.png") != picture
        assert w.emu.unresolved_attachments == []


# -- a bug found here ------------------------------------------------------------------------------
# CafeBot.on_interaction looked for the tapped custom_id one level deep only: in a Components V2
# message the controls sit in action rows inside a container, so every tap on a V2 DM was taken
# for a forged click and answered with an error while the move went on in parallel.
async def test_a_tap_on_a_v2_dm_is_answered_by_its_control_alone(tmp_path: Path) -> None:
    async with world(tmp_path, 2) as w, w.bot_running() as bot:
        alice, _ = w.users
        await open_game(w, GAME)
        dm = w.latest_dm(alice)
        result = await press(w.emu, alice, labelled(dm, "Level 1"))
        await w.emu.wait_until(lambda: "ready at" in w.emu.get_message(dm.id).current_text())
        seat = (await state_of(bot)).seats[str(alice)]
        assert seat.ready and seat.level == 1, "the move is applied"
        errors = [m.current_text() for m in w.emu.ephemerals(alice)]
        assert not errors, f"a valid tap got an error: {errors}"
        assert result.type == 7, "a tap on a DM updates that DM in the tap's own answer"
