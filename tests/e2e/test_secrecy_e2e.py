"""Secrecy as a property of every output: no text reaches anyone a secret is hidden from.

Every registered game, in every mode (each value of each choice among its options), is played to
its end through Discord by two people and a bot player: random clicks on what each can see,
moves taken back (`/game undo`; agreed, then by time, when others must consent), steps ended by
their deadline, `/game hand`, `/game status`, `/game history` and `/game mine` on the way; then a
rematch is started, with one player's DMs closed, and abandoned. After every step a watch (tests/e2e/secrecy.py) reads every new text — channel
and thread messages and their edits, the table, DMs, ephemeral answers, components' labels,
pictures' alt text, INFO-and-above log records — against every secret each game declares, hidden
from that text's reader at that moment.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.app import CafeBot
from bot.core.seat_view import hidden_from
from bot.core.store import SessionStatus
from emulator import DiscordEmulator
from games import REGISTRY
from games.engine import Game
from games.rng import Rng
from tests.e2e.harness import Clock, World, ephemeral_text, press, world
from tests.e2e.players import reachable_controls
from tests.e2e.secrecy import SecrecyWatch

CLICKS_PER_PLAYER = 3  # in a step, per awaited person; then the step's deadline is played
UNDO_TRIES = 16  # in a game, at most this many undos are asked for
UNDO_EVERY = 3  # clicks: after the first move taken back, one is asked for every few clicks


def modes(game: Game[Any, Any]) -> list[dict[str, Any]]:
    """The default options, then each other value of each choice (Literal or bool) alone."""
    found: list[dict[str, Any]] = [{}]
    for name, spec in game.Options.model_fields.items():
        values: tuple[Any, ...] = ()
        if spec.annotation is bool:
            values = (True, False)
        elif typing.get_origin(spec.annotation) is typing.Literal:
            values = typing.get_args(spec.annotation)
        found += [{name: v} for v in values if v != spec.default]
    return found


@dataclass
class Played:
    game: str
    options: dict[str, Any]
    clicks: int = 0
    undo_asked: int = 0
    undos: list[str] = field(default_factory=list)  # the undo notices posted
    deadlines: int = 0
    rematch: bool = False
    abandoned: bool = False
    probed: int = 0  # secrets the watch was shown to flag
    records: int = 0  # records asked for in play (an ended game's, and this one's: refused)


@pytest.mark.heavy
@pytest.mark.parametrize("game_id", sorted(REGISTRY))
async def test_no_secret_reaches_anyone_it_is_hidden_from(tmp_path: Path, game_id: str) -> None:
    game = REGISTRY[game_id]
    async with world(tmp_path, players=2) as w:
        watch = SecrecyWatch(w.emu)  # the log from the bot's start on
        played: list[Played] = []
        try:
            async with w.bot_running() as bot:
                watch.watch(bot)
                for m, options in enumerate(modes(game)):
                    run = Played(game_id, options)
                    played.append(run)
                    await play_one(w, bot, watch, game, run, seed=m)
        finally:
            watch.close()
        leaks = "\n".join(str(leak) for leak in watch.leaks[:10])
        assert not watch.leaks, f"{len(watch.leaks)} secret(s) reached their non-owners:\n{leaks}"

        # The watch looked at real texts with real secrets in them, and can see a leak.
        assert watch.texts > 100 * len(played) and watch.log_records > 0, watch.log_records
        assert watch.secrets_seen, "no secret was ever hidden from anyone"
        for run in played:
            assert run.clicks > 0 and run.deadlines > 0 and run.undo_asked > 0, run
            assert run.rematch and run.abandoned and run.probed and run.records, run


async def play_one(
    w: World, bot: CafeBot, watch: SecrecyWatch, game: Game[Any, Any], run: Played, seed: int
) -> None:
    emu, (host, guest) = w.emu, w.users
    options: dict[str, Any] = {"game": game.id}
    for name, value in run.options.items():  # one setting each (modes() varies one)
        options["setting"] = f"{name}={value}"
    if game.timer_option is not None:
        options["timeout"] = 60
    table = await (await emu.slash(host, w.channel, "game new", options)).final()
    await emu.click(guest, table.id, emu.get_message(table.id).button("Join"))
    await emu.click(host, table.id, emu.get_message(table.id).button("Add a bot"))
    await w.settle()
    await watch.look()  # the lobby, before any secret exists (its options name card kinds)
    await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
    await w.settle()
    session = await bot.service.open_in_channel(w.channel)
    assert session is not None
    sid = session.id
    await watch.look()
    await play(w, bot, watch, game, sid, table.id, run, Rng(seed=seed))
    ended = await bot.store.get_session(sid)
    assert ended is not None and ended.status is SessionStatus.FINISHED, game.id

    # The rematch: seated again (the host's DMs closed now: their hand comes by /game hand),
    # started, a few moves, then abandoned by its host.
    final = [m for m in w.game_messages() if ("Rematch", f"cb:r:{sid}", False) in m.buttons()]
    assert len(final) == 1, f"{game.id}: no final message with Rematch"
    await emu.click(guest, final[0].id, f"cb:r:{sid}")
    await w.settle()
    rematch = await bot.store.rematch_of(sid)
    assert rematch is not None, f"{game.id}: the rematch opened no lobby"
    run.rematch = True
    lobby = w.table_message(rematch.id)
    await watch.look()
    emu.set_dms_open(host, False)
    await emu.click(guest, lobby.id, lobby.button("Start"))
    await w.settle()
    await watch.look()
    await play(w, bot, watch, game, rematch.id, lobby.id, run, Rng(seed=seed + 1), moves=6)
    ask = await emu.slash(guest, w.channel, "game abandon", {})
    assert ask.message is not None
    await emu.click(guest, ask.message.id, ask.message.button("Yes, abandon it"))
    await w.settle()
    row = await bot.store.get_session(rematch.id)
    assert row is not None and row.status is SessionStatus.ABANDONED, game.id
    emu.set_dms_open(host, True)
    run.abandoned = True
    await watch.look()


async def play(
    w: World,
    bot: CafeBot,
    watch: SecrecyWatch,
    game: Game[Any, Any],
    sid: int,
    table_id: int,
    run: Played,
    rng: Rng,
    moves: int | None = None,
) -> None:
    """Click until the game ends (or ``moves`` clicks), with an undo, a deadline and the
    private and public screens on the way; the watch looks after every step."""
    emu: DiscordEmulator = w.emu
    clock: Clock = w.clock
    counts = {"hand": 0}
    seen: set[int] = set()
    step, clicks_in_step, undo_tries, asked_screens = "", 0, 0, False
    for _ in range(3000):
        s = await bot.service.load(sid)
        if s.status is not SessionStatus.ACTIVE or s.state is None:
            break
        if moves is not None and moves <= 0:
            return
        step_clock = game.clock(s.state)
        key = step_clock.key if step_clock else ""
        active = sorted(p for p in game.active_players(s.state) if not p.startswith("bot-"))
        if key != step:
            step, clicks_in_step = key, 0
        humans = [int(p) for p in active]
        user = int(rng.choice([str(u) for u in humans])) if humans else None
        found = []
        if user is not None:
            found = await reachable_controls(
                emu, game, sid, table_id, user, w.channel, counts, seen
            )
        # The first step of a game ends by its deadline, then every step that drags on.
        cap = CLICKS_PER_PLAYER * max(1, len(humans)) if run.deadlines else 2
        if user is None or not found or clicks_in_step >= cap:
            deadline = await bot.service.deadline(sid)
            assert deadline is not None, f"{game.id}: no deadline for step {key}"
            clock.advance(max(0.0, deadline.due_at - clock()) + 1)
            await w.fire_timers()
            run.deadlines += 1
            clicks_in_step = 0
            await watch.look()
            continue
        assert user is not None
        await press(emu, user, rng.choice(found))
        await w.settle()
        run.clicks += 1
        clicks_in_step += 1
        if moves is not None:
            moves -= 1
        # A move taken back as soon as one may be, then more on the way.
        wanted = not run.undos or run.clicks % UNDO_EVERY == 0
        if wanted and undo_tries < UNDO_TRIES:
            undo_tries += 1
            await take_back(w, bot, sid, user, run)
        if not run.probed:
            await probe(bot, watch, game, sid, w.users[1], run)
        if not asked_screens and run.clicks >= 4:
            asked_screens = True
            for who in w.users:
                for command in ("game status", "game history", "game mine"):
                    await emu.slash(who, w.channel, command, {})
            await w.settle()
            await ask_records(w, sid, run)
        await watch.look()


async def take_back(w: World, bot: CafeBot, sid: int, user: int, run: Played) -> None:
    """``user`` asks to take back their last move; when the others must consent, the other
    person agrees and the time to object runs out (a bot player never answers)."""
    before = len(w.game_messages())
    answer = ephemeral_text(await w.emu.slash(user, w.channel, "game undo", {}))
    run.undo_asked += 1
    if "Asked the others" in answer:
        await w.settle()
        (request, *_) = [
            m for m in w.game_messages()[before:] if any(b[0] == "Agree" for b in m.buttons())
        ]
        other = next(u for u in w.users if u != user)
        agreed = await w.emu.click(other, request.id, request.button("Agree"))
        assert agreed.message is not None
        w.clock.advance(bot.service.undo_wait + 1)
        await w.fire_timers()
    elif "Taken back" not in answer:
        return  # refused (a move that revealed something): it stands
    await w.settle()
    notices = [
        m.current_text()
        for m in w.game_messages()[before:]
        if "took back" in m.current_text() or "stands after all" in m.current_text()
    ]
    assert notices, f"no undo notice after: {answer}"
    run.undos += [n for n in notices if "took back" in n]


async def probe(
    bot: CafeBot, watch: SecrecyWatch, game: Game[Any, Any], sid: int, user: int, run: Played
) -> None:
    """The watch sees a secret where it would be one: each id hidden from ``user`` now."""
    state = (await bot.service.load(sid)).state
    assert state is not None
    hidden = hidden_from(game, state, str(user))
    for secret in sorted(hidden)[:5]:
        assert watch.would_flag(str(user), f"psst: {secret}!") == [secret], (game.id, secret)
    run.probed = min(5, len(hidden))


async def ask_records(w: World, sid: int, run: Played) -> None:
    """From /game history's list: the record of an ended game, and (a forged pick) that of the
    game in play, which is refused."""
    found = [
        (m, cid, options)
        for m in w.game_messages()
        for cid, options in m.selects()
        if cid.startswith("cb:x:")
    ]
    if not found:
        return  # no game of this server has ended yet
    message, cid, options = found[-1]
    guest = w.users[1]
    ended = await w.emu.select(guest, message.id, cid, [options[0][1]])
    assert "The record of game" in ephemeral_text(ended)
    forged = await w.emu.forge_component(
        guest, message.id, cid, component_type=3, values=[str(sid)]
    )
    assert "once the game has ended" in ephemeral_text(forged)
    run.records += 1
