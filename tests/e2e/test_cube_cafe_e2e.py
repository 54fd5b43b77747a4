"""Cube Café in Discord, end to end: the real bot, through discord.py, against the emulator.

Phase 3 is simultaneous: each player works their own restaurant from their private panel, a DM
with the restaurant's picture, a button for each move their staff can make (a select only for a
group that does not fit) and a Done button. The engine's greedy restaurateur decides *what* to do;
the test finds the control offering that move (the game's panel says which) and presses it, as a
player would. A player whose DMs are closed plays from
`/game hand` (an ephemeral copy of the panel, with working controls).

The tests under "what the bot cannot do yet" are marked GAP: each fails until bot/ closes the
gap its comment names (the issue makes this game the test of the contract).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from emulator import Message
from games.cube_cafe import GAME as CUBE_CAFE
from games.cube_cafe.actions import Action, Bus, Done, Rotate, Wheel
from games.cube_cafe.catalogue import ROUNDS, STAFF
from games.cube_cafe.present import restaurant_spec
from games.cube_cafe.state import CubeCafeState
from games.cube_cafe.strategies import greedy
from games.engine import Undo
from games.presentation import Button, Select, panel_rows
from games.rng import Rng
from tests.e2e.harness import (
    Control,
    World,
    controls,
    ephemeral_text,
    invalid_requests,
    open_game,
    press,
    world,
)

GAME = "cube-cafe"
TIMEOUT = 300  # the phase timer chosen at /game new: 5 minutes
PNG = b"\x89PNG\r\n\x1a\n"
WHEEL_SPACE = 4  # the dishwasher space whose bonus turns the wheel to any position
DEFERRED_UPDATE, UPDATE = 6, 7


# -- reading ---------------------------------------------------------------------------------------
async def game_state(w: World) -> CubeCafeState:
    s = await w.running.service.load(1)
    assert s.state is not None, "the game has not started"
    return cast(CubeCafeState, s.state)


async def log_length(w: World) -> int:
    return len(await w.running.store.actions(1))


def embed_texts(w: World) -> list[str]:
    """Every announcement embed's text where the game talks (one move's announcements share a
    message): its title, description and fields, line by line."""
    out = []
    for m in w.game_messages():
        for e in m.embeds:
            fields = [f"{f['name']}\n{f['value']}" for f in e.get("fields", [])]
            out.append("\n".join([e.get("title", ""), e.get("description", ""), *fields]))
    return out


def title(message: Message) -> str:
    return str(message.embeds[0].get("title", ""))


def attachment_ids(message: Message) -> dict[str, str]:
    return {str(a["filename"]): str(a["id"]) for a in message.attachments}


def shows_picture(message: Message, embed: dict[str, Any], name: str, png: bytes) -> None:
    """``embed`` shows the attachment ``name`` of ``message``, and that file is ``png``."""
    attachment = next(a for a in message.attachments if a["filename"] == name)
    assert embed["image"]["url"] == attachment["url"], (name, embed.get("image"))
    assert message.file(name) == png, f"{name} is not the picture of this restaurant now"
    assert png.startswith(PNG)


async def check_pictures(w: World, table_id: int, panels: dict[int, Message]) -> None:
    """The table shows every restaurant's picture (one embed and one attached PNG each, named by
    seat), and each player's panel their own: exactly the pictures of the state now."""
    state = await game_state(w)
    table = w.emu.get_message(table_id)
    names = [f"restaurant-{n}.png" for n in range(1, len(state.players) + 1)]
    assert sorted(attachment_ids(table)) == names and loose_attachments(table) == []
    assert len(table.embeds) == 1 + len(state.players), "the header, then one per restaurant"
    for n, pid in enumerate(state.players, start=1):
        png = CUBE_CAFE.draw(restaurant_spec(state, pid))
        shows_picture(table, table.embeds[n], f"restaurant-{n}.png", png)
        user = int(pid)
        if user in panels:
            panel = w.emu.get_message(panels[user].id)
            assert list(attachment_ids(panel)) == ["restaurant.png"]
            assert loose_attachments(panel) == []
            shows_picture(panel, panel.embeds[0], "restaurant.png", png)
    assert w.emu.unresolved_attachments == []


def loose_attachments(message: Message) -> list[str]:
    """Attachments no embed of ``message`` shows (Discord lists them as files of their own)."""
    shown = {e.get("image", {}).get("url") for e in message.embeds}
    return [str(a["filename"]) for a in message.attachments if a["url"] not in shown]


@dataclass(frozen=True)
class Upload:
    message_id: int
    version: int
    filename: str
    same_picture: bool  # the message showed exactly these bytes under this name just before


def uploads(message: Message) -> list[Upload]:
    """Every file uploaded to ``message``, version by version: an attachment id it did not have
    in its previous version is a new upload (a kept attachment keeps its id)."""
    found = []
    before: dict[str, Any] = {"attachments": [], "files": {}}
    for n, version in enumerate(message.versions()):
        old = {str(a["id"]) for a in before["attachments"]}
        for attachment in version["attachments"]:
            if str(attachment["id"]) in old:
                continue
            name = str(attachment["filename"])
            same = before["files"].get(name) == version["files"][name]
            found.append(Upload(message.id, n, name, same))
        before = version
    return found


def reuploads(messages: list[Message]) -> list[Upload]:
    """Uploads of a picture the message already showed (an edit must keep it instead)."""
    return [u for m in messages for u in uploads(m) if u.same_picture]


# -- playing by clicking ---------------------------------------------------------------------------
@dataclass
class Player:
    user: int
    dms: bool  # plays from DMs; else from /game hand
    hands: dict[int, int] = field(default_factory=dict)  # round → the /game hand message's id

    @property
    def pid(self) -> str:
        return str(self.user)


async def panel_of(w: World, player: Player) -> Message:
    """The player's private panel of the round now: their latest DM, or the ephemeral copy
    /game hand gave them this round (asked for once a round, as a player would)."""
    state = await game_state(w)
    if player.dms:
        message = w.latest_dm(player.user)
    elif state.round in player.hands:
        message = w.emu.get_message(player.hands[state.round])
    else:
        result = await w.emu.slash(player.user, w.channel, "game hand", {})
        message = await result.final()
        assert message.ephemeral and message.ephemeral_to == player.user
        player.hands[state.round] = message.id
    assert title(message) == f"☕ Your restaurant — round {state.round}/{ROUNDS}", title(message)
    return message


def offered(
    message: Message, state: CubeCafeState, pid: str, action: Action
) -> tuple[Control, Action]:
    """The control of ``message`` that offers ``action``, and the move it makes: ``action``, or
    the same job by another staff meeple (a job a wild can do is offered once, by the slot's own
    colour when one is in hand)."""
    board = state.boards[pid]
    found = controls(message)
    if isinstance(action, Done):
        done = [c for c in found if c.value is None and c.label.startswith("Done")]
        assert len(done) == 1, [c.label for c in found]
        staff = len(board.hand)
        assert done[0].label == (f"Done (forfeit {staff} staff)" if staff else "Done")
        return done[0], action
    # The message shows the game's panel as it is now: its buttons row by row, then its selects'
    # options (a button's label is short, its emoji the staff spent: matched by the move).
    rows = panel_rows(CUBE_CAFE.panel(state, pid))
    shown = [c for row in rows for c in row if isinstance(c, Button) and not c.disabled]
    shown += [o for row in rows for c in row if isinstance(c, Select) for o in c.options]
    assert [c.label for c in found] == [c.label for c in shown]
    variants = [action]
    if hasattr(action, "staff") and not isinstance(action, Rotate):
        variants += [action.model_copy(update={"staff": s}) for s in STAFF if s != action.staff]
    for variant in variants:
        wanted = variant.model_dump(mode="json")
        matches = [c for c, s in zip(found, shown, strict=True) if s.action == wanted]
        assert len(matches) <= 1, f"two controls offer {wanted!r}"
        if matches:
            return matches[0], variant
    raise AssertionError(f"{action!r} is not offered: {[c.label for c in found]}")


async def move(w: World, player: Player, action: Action | None = None) -> Action:
    """``player`` makes ``action`` (default: the greedy one) by pressing its control: one log
    entry, theirs, of that move."""
    state = await game_state(w)
    chosen = action or greedy(state, player.pid, Rng(seed=1))
    message = await panel_of(w, player)
    control, expected = offered(message, state, player.pid, chosen)
    before = await log_length(w)
    result = await press(w.emu, player.user, control)
    if player.dms:
        # The DM shows the move in the click's own answer (or, when a new step wants a new
        # DM, the click is only acknowledged and the sync sends it).
        assert result.type in (UPDATE, DEFERRED_UPDATE) and not result.ephemeral
    else:
        assert result.type == UPDATE and result.message is not None
        assert result.message.id == message.id, "the ephemeral panel itself shows the move"
    await w.settle()
    log = await w.running.store.actions(1)
    assert len(log) == before + 1, "one click, one move"
    entry = log[-1]
    assert entry.player == player.pid and entry.source == "player"
    assert json.loads(entry.action) == expected.model_dump(mode="json")
    return expected


@dataclass
class WheelTrick:
    """A move that changes no picture, made once by ``player`` when their restaurant allows it:
    bus a dirty plate to the wheel's dishwasher space, then take the bonus keeping the wheel
    where it is. The panel's text changes (the reward line goes), its picture does not."""

    player: Player
    done: bool = False


async def play(
    w: World, players: list[Player], limit: int | None = None, trick: WheelTrick | None = None
) -> dict[int, int]:
    """Round-robin, one move each, until every one of ``players`` said Done (or made ``limit``
    moves) or the round ends; how many moves each made (the trick's two not counted)."""
    made = dict.fromkeys((p.user for p in players), 0)
    start = (await game_state(w)).round

    def same_phase(state: CubeCafeState) -> bool:
        return state.round == start and not state.over

    while True:
        state = await game_state(w)
        left = [
            p
            for p in players
            if same_phase(state)
            and not state.boards[p.pid].done
            and (limit is None or made[p.user] < limit)
        ]
        if not left:
            return made
        for player in left:
            if not same_phase(await game_state(w)):
                break
            if trick and not trick.done and trick.player is player and await turn_wheel(w, trick):
                continue
            await move(w, player)
            made[player.user] += 1


async def turn_wheel(w: World, trick: WheelTrick) -> bool:
    """Make the trick's move if the restaurant allows it now: its panel is edited, and the edit
    keeps the picture (no upload); the table does not change. False when it cannot be made."""
    player = trick.player
    state = await game_state(w)
    board = state.boards[player.pid]
    dirty = [n for n, t in enumerate(board.tables, start=1) if t.dirty]
    if board.pending or not dirty or board.dishwasher[WHEEL_SPACE - 1] is not None:
        return False
    await move(w, player, Bus(table=dirty[0], space=WHEEL_SPACE))
    state = await game_state(w)
    assert state.boards[player.pid].pending == ["wheel"]
    panel = await panel_of(w, player)
    table = w.table_message()
    panel_versions, table_versions = len(panel.versions()), len(table.versions())
    kept = attachment_ids(panel)
    spec = restaurant_spec(state, player.pid)
    await move(w, player, Wheel(seat=state.boards[player.pid].colour_at(0)))
    trick.done = True
    after = await game_state(w)
    assert restaurant_spec(after, player.pid) == spec, "the same picture"
    assert not after.boards[player.pid].pending
    panel = w.emu.get_message(panel.id)
    assert len(panel.versions()) == panel_versions + 1, "the panel was edited"
    assert "Choose your reward" not in panel.current_text()
    table = w.emu.get_message(table.id)
    assert len(table.versions()) == table_versions, "nothing on the table changed"
    assert attachment_ids(panel) == kept, "the edit kept the picture: nothing uploaded"
    return True


# -- 1. a whole game ----------------------------------------------------------------------------
@pytest.mark.heavy
async def test_a_three_player_game_by_dm_clicks_with_a_hand_a_restart_and_a_timer(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 3) as w:
        alice, bob, carol = (
            Player(w.users[0], True),
            Player(w.users[1], True),
            Player(w.users[2], False),
        )
        everyone = [alice, bob, carol]
        w.emu.set_dms_open(carol.user, False)
        trick = WheelTrick(alice)
        async with w.bot_running() as bot:
            table = await open_game(w, GAME, timeout=TIMEOUT)
            assert title(table) == f"☕ Cube Café — round 1/{ROUNDS}"
            assert (await bot.service.deadline(1)) is not None
            # Carol is told, where the game talks (its thread), how to play without DMs.
            notices = [m for m in w.game_messages() if "/game hand" in m.content]
            assert [m.content.startswith(f"<@{carol.user}>") for m in notices] == [True]
            assert w.emu.dm_messages(carol.user) == []
            panels = {p.user: await panel_of(w, p) for p in everyone}
            await check_pictures(w, table.id, panels)

            # Rounds 1–2: everyone plays to Done.
            for round_no in (1, 2):
                await play(w, everyone, trick=trick)
                state = await game_state(w)
                assert state.round == round_no + 1
                panels = {p.user: await panel_of(w, p) for p in everyone}
                await check_pictures(w, table.id, panels)

            # Round 3: a few moves each, then the bot restarts mid-phase.
            assert await play(w, everyone, limit=2) == {p.user: 2 for p in everyone}
            before_restart = await bot.store.actions(1)
            state_before = await game_state(w)
            dms = {p.user: w.latest_dm(p.user).id for p in (alice, bob)}
            dms_sent = {p.user: len(w.emu.dm_messages(p.user)) for p in everyone}
            resync = len(w.emu.get_message(table.id).versions())  # the next table version
        async with w.bot_running() as bot:
            await w.settle()
            assert await bot.store.actions(1) == before_restart, "every assignment was kept"
            assert await game_state(w) == state_before
            assert {p.user: len(w.emu.dm_messages(p.user)) for p in everyone} == dms_sent
            # The DMs (and Carol's ephemeral panel) sent before the restart still work.
            for player in everyone:
                await move(w, player)
            assert {p.user: w.latest_dm(p.user).id for p in (alice, bob)} == dms
            panels = {p.user: await panel_of(w, p) for p in everyone}
            await check_pictures(w, table.id, panels)
            await play(w, everyone, trick=trick)
            assert (await game_state(w)).round == 4

            # Round 4: Alice and Bob say Done; Carol spends one staff meeple and goes away.
            await play(w, [alice, bob], trick=trick)
            await move(w, carol)
            state = await game_state(w)
            assert state.round == 4 and state.boards[alice.pid].done
            forfeit = len(state.boards[carol.pid].hand)
            assert forfeit > 0
            waiting = {f["name"]: f["value"] for f in w.table_message().embeds[-1]["fields"]}
            assert waiting["⏳ Waiting for"].startswith("Carol\nTime runs out <t:")
            deadline = await bot.service.deadline(1)
            assert deadline is not None
            w.clock.advance(deadline.due_at - w.clock() - 5)
            await w.fire_timers()
            assert (await game_state(w)).round == 4, "not before the deadline"
            w.clock.advance(10)
            await w.fire_timers()
            state = await game_state(w)
            assert state.round == 5
            log = await bot.store.actions(1)
            assert log[-1].player == carol.pid and log[-1].source == "timeout"
            assert json.loads(log[-1].action) == {"type": "done", "timed_out": True}
            results = [t for t in embed_texts(w) if t.startswith("🍽️ Round 4 — feed your people")]
            assert len(results) == 1
            carol_line = next(line for line in results[0].split("\n") if line.startswith("Carol"))
            assert carol_line.endswith(f"⏰ out of time: {forfeit} staff forfeited"), carol_line
            assert "out of time" not in results[0].replace(carol_line, "")
            panels = {p.user: await panel_of(w, p) for p in everyone}
            await check_pictures(w, table.id, panels)

            # Rounds 5–8: to the end.
            while not (await game_state(w)).over:
                await play(w, everyone, trick=trick)
            assert trick.done, "a move that changes no picture was made"
            state = await game_state(w)
            session = await bot.service.load(1)
            assert session.status == "finished" and session.outcome() is not None
            assert await bot.service.replay(1) == state
            finals = [t for t in embed_texts(w) if t.startswith("🏁 Cube Café — final standings")]
            assert len(finals) == 1
            table = w.emu.get_message(table.id)
            assert title(table) == "☕ Cube Café — final"
            assert not controls(table)
            await check_pictures(w, table.id, {})

        # Every upload showed a picture its message did not show just before. (The table's
        # resync at the restart re-uploads all of them: see the GAP test below.)
        seen = [
            *w.game_messages(),
            *(m for p in everyone for m in w.emu.dm_messages(p.user)),
            *w.emu.ephemerals(carol.user),
        ]
        assert [u for u in reuploads(seen) if (u.message_id, u.version) != (table.id, resync)] == []
        assert sum(len(uploads(m)) for m in seen) > 0
        assert w.emu.unresolved_attachments == []
        # Carol's closed DMs cost one refused DM in the whole game, restart included (each
        # step's panel, with its picture, used to be offered to them and refused).
        assert invalid_requests(w.emu) == {"403/50007": 1}, invalid_requests(w.emu)


# -- 2. gaps the tests found in bot/ (closed, but for undo: being built apart) ---------------------
async def test_an_assignment_is_taken_back_through_discord(tmp_path: Path) -> None:
    """Cube Café lets a player take back an assignment on their own board (undo_policy FREE,
    no plate drawn, before Done): /game undo takes it back at once, no one is asked, and the
    DM shows the board as it was (a found gap, closed by the core's undo and /game undo)."""
    async with world(tmp_path, 1) as w, w.bot_running():
        alice = Player(w.users[0], True)
        await open_game(w, GAME)
        before = await game_state(w)
        staff = before.boards[alice.pid].hand[0]
        made = await move(w, alice, Rotate(staff=staff, direction="ccw"))
        after = await game_state(w)
        assert CUBE_CAFE.undo_policy(before, after, alice.pid, made) is Undo.FREE
        dm = w.latest_dm(alice.user)
        undone = await w.emu.slash(alice.user, w.channel, "game undo", {})
        assert "⚠️" not in ephemeral_text(undone)
        await w.settle()
        assert await game_state(w) == before
        dm = w.emu.get_message(dm.id)
        assert dm.file("restaurant.png") == CUBE_CAFE.draw(restaurant_spec(before, alice.pid))


async def test_a_restart_uploads_no_picture_the_table_already_shows(tmp_path: Path) -> None:
    # GAP: after a restart the bot shows the table again (rightly: it cannot know whether a
    # crash came between a move and its edit), but which picture each attachment holds is kept
    # in memory only (TableSync._shown), so that edit uploads every picture anew: 3 PNGs of
    # ~22 kB for a 3-player game, for every game the bot serves, at each restart. Missing: the
    # pictures' (digest, attachment id) of each message stored with the session (as the DMs'
    # digests already are), or read back from the message, so that an unchanged one is kept.
    async with world(tmp_path, 3) as w:
        async with w.bot_running():
            table = await open_game(w, GAME)
        async with w.bot_running():
            await w.settle()
            table = w.emu.get_message(table.id)
            assert reuploads([table]) == [], "the same pictures were uploaded again"


async def test_a_closed_dm_keeps_no_picture_of_its_round(tmp_path: Path) -> None:
    # GAP: at a new round the last DM's controls are closed by an edit to "done here" (Screens.
    # closed_step), which shows no picture, but for a classic (embed) message closed_step gives
    # no game (Rendered.game None), so TableSync._edit leaves the attachments alone: the old
    # round's restaurant.png stays on the message, now outside any embed, and Discord shows it
    # as a loose file under "done here". Missing: closed_step passing the game (as its
    # Components V2 branch does) so the edit removes the pictures it no longer shows.
    async with world(tmp_path, 1) as w, w.bot_running():
        alice = Player(w.users[0], True)
        await open_game(w, GAME)
        first = w.latest_dm(alice.user)
        assert loose_attachments(first) == [] and list(attachment_ids(first)) == ["restaurant.png"]
        await move(w, alice, Done())
        assert (await game_state(w)).round == 2
        closed = w.emu.get_message(first.id)
        assert "done here" in title(closed) and not controls(closed)
        assert loose_attachments(closed) == [], "the old picture hangs under 'done here'"


async def test_a_hand_panel_keeps_its_picture_when_a_move_does_not_change_it(
    tmp_path: Path,
) -> None:
    # GAP: a click on the ephemeral panel of /game hand is answered by editing that message
    # (Replies.update), which always sends the picture as a new file (attachments = files):
    # a move that changes no picture (the dishwasher's wheel bonus keeping the wheel as it is)
    # uploads the same PNG again, where DM panels keep it. Missing: Replies.update keeping the
    # attachments of the clicked message whose picture did not change (Pictures.attachments
    # with what that message shows, e.g. its attachment ids by picture digest).
    async with world(tmp_path, 1, dms_open=False) as w, w.bot_running():
        carol = Player(w.users[0], False)
        await open_game(w, GAME)
        trick = WheelTrick(carol)
        while not trick.done:
            assert not (await game_state(w)).over, "no wheel bonus in a whole game"
            await play(w, [carol], trick=trick)
