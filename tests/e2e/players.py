"""A player for any game, through Discord: whoever the game awaits clicks a random enabled
control of that game on a message they can see (the table, their DMs, their private copies from
/game hand); a step that drags on is ended by its deadline, as an absent player's would be.
Used by tests/e2e/test_every_game_e2e.py and bench/bot.py --game."""

from __future__ import annotations

import asyncio

from bot.app import CafeBot
from bot.core.seats import is_robot
from bot.core.store import SessionStatus
from emulator import DiscordEmulator, Message
from games.engine import Game, PrivatePanel
from games.rng import Rng
from tests.e2e.harness import Clock, Control, controls, press

CLICKS_PER_STEP = 12  # then the step's deadline is played, as for an absent player
MAX_CLICKS = 3000


def seats_for(game: Game[object, object]) -> int:
    return min(max(3, game.min_players), game.max_players)


def latest_with_controls(messages: list[Message], session_id: int) -> Message | None:
    for message in reversed(messages):
        if not message.deleted and controls(message, session_id):
            return message
    return None


async def play_to_the_end(
    emu: DiscordEmulator,
    bot: CafeBot,
    clock: Clock,
    game: Game[object, object],
    channel: int,
    users: list[int],
    seed: int,
    pace: float = 0.0,
    clicks_per_player: int | None = None,
    bots: int = 0,
) -> dict[str, int]:
    """Open, fill and start a lobby for ``game`` in ``channel``, then click until it ends.
    A step ends by its deadline after CLICKS_PER_STEP clicks in all, or with
    ``clicks_per_player``, after that many per player it awaited when it began (as people who
    finish their moves; the absent are timed out). ``bots``: the host adds that many bot
    players to the lobby; they play on their own (the loop waits for them)."""
    host, *others = users
    options: dict[str, object] = {"game": game.id}
    if game.timer_option is not None:
        options["timeout"] = 60
    table = await (await emu.slash(host, channel, "game new", options)).final()
    for user in others:
        await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
    for _ in range(bots):
        await emu.click(host, table.id, emu.get_message(table.id).button("Add a bot"))
    await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
    session = await bot.service.open_in_channel(channel)
    assert session is not None
    sid = session.id
    rng = Rng(seed=seed)
    counts = {"clicks": 0, "deadlines": 0, "hand": 0}
    seen: set[int] = set()  # DMs that showed this game's controls
    step, clicks_in_step, step_cap = "", 0, CLICKS_PER_STEP
    while counts["clicks"] < MAX_CLICKS:
        await bot.tables.idle(delayed=not pace)  # at a person's pace, edits may lag behind
        s = await bot.service.load(sid)
        if s.status is not SessionStatus.ACTIVE or s.state is None:
            break
        step_clock = game.clock(s.state)
        key = step_clock.key if step_clock else ""
        active = sorted(game.active_players(s.state))
        if key != step:
            step, clicks_in_step = key, 0
            step_cap = CLICKS_PER_STEP
            if clicks_per_player is not None:
                step_cap = clicks_per_player * max(1, len(active))
        assert active, f"{game.id} waits for nobody but is not over"
        humans = [p for p in active if not is_robot(p)]
        if not humans:  # only bot players are awaited: they move on their own
            await bot.robots.idle()
            await asyncio.sleep(0.01)
            continue
        user = int(rng.choice(humans))
        options = await reachable_controls(emu, game, sid, table.id, user, channel, counts, seen)
        if not options or clicks_in_step >= step_cap:
            assert step_clock is not None, f"{game.id} has a step with no move and no clock"
            deadline = await bot.service.deadline(sid)
            assert deadline is not None, f"{game.id}: no deadline stored for step {key}"
            clock.advance(max(0.0, deadline.due_at - clock()) + 1)
            await bot.scheduler.run_due()
            counts["deadlines"] += 1
            clicks_in_step = 0
            continue
        await press(emu, user, rng.choice(options))
        if pace:
            await asyncio.sleep(pace)  # a person's pace: the edits in between coalesce
        counts["clicks"] += 1
        clicks_in_step += 1
    await bot.tables.idle()
    s = await bot.service.load(sid)
    assert s.status is SessionStatus.FINISHED, f"{game.id} did not finish ({counts})"
    # A quiet channel: the table is its only message; the play-by-play is in the game's thread.
    assert [m.id for m in emu.channel_messages(channel)] == [table.id], game.id
    assert emu.channel_messages(table.id), f"{game.id} posted nothing in its thread"
    # Every picture the final table shows is attached to it.
    final = emu.get_message(table.id)
    wanted = [p.image.name for p in game.table(s.state) if p.image is not None]
    assert sorted(final.files) == sorted(wanted), (game.id, sorted(final.files), wanted)
    outcome = s.outcome()
    assert outcome is not None
    # The final message: the standings, the chart of how it went, and Rematch.
    (final,) = [
        m
        for m in emu.channel_messages(table.id)
        if ("Rematch", f"cb:r:{sid}", False) in m.buttons()
    ]
    assert outcome.progress, f"{game.id} has no progress to chart"
    assert final.file("chart.png").startswith(b"\x89PNG"), game.id
    assert s.outcome() is not None
    assert await bot.service.replay(sid) == s.state, f"{game.id} does not replay"
    return counts


async def reachable_controls(
    emu: DiscordEmulator,
    game: Game[object, object],
    sid: int,
    table_id: int,
    user: int,
    channel: int,
    counts: dict[str, int],
    seen: set[int],
) -> list[Control]:
    """The game controls ``user`` can click now: on the table, in their latest DM, or on the
    private copy /game hand gives them."""
    found = controls(emu.get_message(table_id), sid, "t")
    in_dm: list[Control] = []
    if game.private_panel is PrivatePanel.DM:
        # The newest DM of the game: an older step's, left as it was, is not played on.
        dm = newest_of_session(emu.dm_messages(user), sid, seen)
        if dm is not None:
            in_dm = controls(dm, sid)
    found += in_dm
    if game.private_panel is not PrivatePanel.NEVER and not found:
        await emu.slash(user, channel, "game hand", {})
        counts["hand"] += 1
    # A player whose DM shows their controls plays there; the private copy is for the rest.
    if game.private_panel is not PrivatePanel.NEVER and not in_dm:
        copy = latest_with_controls(emu.ephemerals(user), sid)
        if copy is not None:
            found += controls(copy, sid)
    return found


def newest_of_session(messages: list[Message], session_id: int, seen: set[int]) -> Message | None:
    """The newest of ``messages`` that showed ``session_id``'s controls (now, or when last
    looked at: ``seen`` remembers them), closed since or not."""
    for message in reversed(messages):
        if message.deleted:
            continue
        if message.id in seen or controls(message, session_id):
            seen.add(message.id)
            return message
    return None
