"""Monster Café in Discord, end to end: the real bot, through discord.py, against the emulator.

Everything is public: every move is made by clicking the one table message in the channel, as
the player whose turn it is. What the table shows is checked against the engine's state.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import CafeBot
from emulator import InteractionResult, Message
from games.engine import play_timeout
from games.monster_cafe import GAME as MONSTER_CAFE
from games.monster_cafe.cards import (
    KIND_BY_KEY,
    MONSTER_KIND,
    ROUNDS,
    kind_label,
    meal_label,
    meal_of,
)
from games.monster_cafe.scoring import score
from games.monster_cafe.state import MonsterCafeState
from games.rng import Rng
from tests.e2e.harness import World, ephemeral_text, open_game, world

GAME = "monster-cafe"
FREE_SEAT = "▫️"
NOT_YOUR_TURN = "It's not your move right now"
NOT_SEATED = "You're not seated at this table"

# What each kind of control on the table message does, by the start of its label.
KINDS = {"Draw": "draw", "Seat at": "seat", "Clear": "clear", "Discard": "sorbet"}


@dataclass(frozen=True)
class Control:
    label: str
    custom_id: str
    value: str | None = None  # a select option's value; None for a button

    @property
    def kind(self) -> str:
        return next(k for prefix, k in KINDS.items() if self.label.startswith(prefix))


def controls(message: Message, session_id: int = 1) -> list[Control]:
    """Every enabled game control on the table message (a select counts once per option)."""
    prefix = f"cb:g:{session_id}:t:"
    out = [
        Control(label or "", cid)
        for label, cid, disabled in message.buttons()
        if cid and cid.startswith(prefix) and not disabled
    ]
    for cid, options in message.selects():
        component = message.find_component(cid) or {}
        if cid.startswith(prefix) and not component.get("disabled"):
            out += [Control(label, cid, value) for label, value in options]
    return out


async def press(w: World, user: int, message_id: int, control: Control) -> InteractionResult:
    if control.value is None:
        return await w.emu.click(user, message_id, control.custom_id)
    return await w.emu.select(user, message_id, control.custom_id, [control.value])


async def state_of(bot: CafeBot) -> MonsterCafeState:
    s = await bot.service.load(1)
    assert isinstance(s.state, MonsterCafeState)
    return s.state


async def current_player(bot: CafeBot) -> int:
    s = await bot.service.load(1)
    assert s.state is not None
    (pid,) = s.game.active_players(s.state)
    return int(pid)


def pick(rng: Rng, options: list[Control]) -> Control:
    """A seeded choice; drawing is favoured so that rounds run long enough for sorbets, full
    tables and last-diner runs."""
    draws = [c for c in options if c.kind == "draw"]
    if draws and rng.randint(0, 99) < 75:
        return draws[0]
    return rng.choice(options)


def pings(w: World, user: int) -> list[Message]:
    return [m for m in w.emu.channel_messages(w.channel) if f"<@{user}>" in m.content]


def ping_sequence(w: World) -> list[int]:
    """Who was pinged, in the order of the channel's messages."""
    out = []
    for m in w.emu.channel_messages(w.channel):
        out += [u for u in w.users if f"<@{u}>" in m.content]
    return out


def final_scores(w: World) -> list[str]:
    return [t for t in w.channel_texts() if "Monster Café — final scores" in t]


@dataclass
class Played:
    """What a game by clicking went through."""

    kinds: Counter[str] = field(default_factory=Counter)
    refused: set[str] = field(default_factory=set)  # control kinds a wrong clicker was refused
    moves: int = 0


async def refuse_others(
    w: World, bot: CafeBot, table: Message, control: Control, strangers: list[int]
) -> None:
    """Everyone but the current player presses ``control``: a private refusal, nothing changes."""
    before = await bot.store.actions(1)
    shown = table.snapshot()
    current = await current_player(bot)
    for other in [u for u in w.users if u != current] + strangers:
        result = await press(w, other, table.id, control)
        expected = NOT_YOUR_TURN if other in w.users else NOT_SEATED
        assert expected in ephemeral_text(result), ephemeral_text(result)
    await w.settle()
    assert await bot.store.actions(1) == before, "a refused click changed the game"
    assert w.emu.get_message(table.id).snapshot() == shown, "a refused click changed the table"


async def click_one_move(
    w: World,
    bot: CafeBot,
    table_id: int,
    rng: Rng,
    played: Played,
    strangers: list[int],
    prefer: str | None = None,
) -> None:
    """The current player clicks one seeded choice among the table's enabled controls (one of
    kind ``prefer`` when there is one)."""
    table = w.emu.get_message(table_id)
    options = controls(table)
    assert options, "an active table offers the current player a move"
    preferred = [c for c in options if c.kind == prefer]
    control = preferred[0] if preferred else pick(rng, options)
    if control.kind not in played.refused:
        await refuse_others(w, bot, table, control, strangers)
        played.refused.add(control.kind)
    user = await current_player(bot)
    before = len(await bot.store.actions(1))
    result = await press(w, user, table_id, control)
    # Acknowledged at once (deferred update); the table message's one writer then edits it.
    assert result.type == 6 and not result.ephemeral, "a move is acknowledged without a reply"
    await w.settle()
    log = await bot.store.actions(1)
    assert len(log) == before + 1 and log[-1].player == str(user)
    assert f'"type":"{control.kind}"' in log[-1].action.replace(" ", "")
    played.kinds[control.kind] += 1
    played.moves += 1


# -- reading the table -----------------------------------------------------------------------------


def fields_of(message: Message) -> dict[str, str]:
    (embed,) = message.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def check_table(w: World, state: MonsterCafeState, names: dict[str, str], table: Message) -> None:
    """The table message shows what the engine's state holds."""
    (embed,) = table.embeds
    fields = fields_of(table)
    description = embed.get("description", "")
    if state.over:
        assert "game over" in embed["title"]
    else:
        assert f"round {state.round}/{ROUNDS}" in embed["title"]
    # The cards left.
    assert f"Deck: **{len(state.deck)}** monsters left" in description
    draw = [c for c in controls(table) if c.kind == "draw"]
    assert [c.label for c in draw] == ([f"Draw a monster ({len(state.deck)} left)"] if draw else [])
    # Each table: its meal, its seated monsters and its free seats.
    table_fields = [n for n in fields if n[:1] in "ABCD" and n[1:4] == " · "]
    assert len(table_fields) == len(state.tables)
    for t in state.tables:
        meal = meal_of(t.card)
        value = fields[f"{t.slot} · {meal.emoji} {meal.name}"]
        assert value.count(FREE_SEAT) == 4 - len(t.seats)
        seated = Counter(MONSTER_KIND[c] for c in t.seats)
        for kind, n in seated.items():
            assert value.count(kind_label(kind)) == n, (kind, value)
    # Each player: the score if the game ended now, and the collection.
    for seat, pid in enumerate(state.players, start=1):
        collection = state.collections[pid]
        total = score(collection.monsters, collection.tables).total
        unit = "pt" if abs(total) == 1 else "pts"
        when = "final score" if state.over else "if the game ended now"
        value = fields[f"Seat {seat} · {total} {unit} {when}"]
        assert value.startswith(names[pid])
        for kind, n in Counter(MONSTER_KIND[c] for c in collection.monsters).items():
            assert kind_label(kind, n) in value
        for key, n in Counter(meal_of(t).key for t in collection.tables).items():
            assert meal_label(key, n) in value
        if not state.over and pid == state.current:
            assert "playing now" in value
    # Whose turn it is.
    if state.over:
        assert "⏳ Waiting for" not in fields
        return
    assert state.current is not None
    waiting = fields["⏳ Waiting for"]
    assert waiting.splitlines()[0] == names[state.current]
    assert "Time runs out <t:" in waiting
    if state.drawn is None:
        assert f"It's {names[state.current]}'s turn" in description
    else:
        assert f"{names[state.current]} drew **" in description
        assert KIND_BY_KEY[MONSTER_KIND[state.drawn]].name in description


async def names_of(bot: CafeBot) -> dict[str, str]:
    return (await bot.service.load(1)).names()


# -- the tests -------------------------------------------------------------------------------------


async def test_a_full_three_player_game_by_clicking_with_a_restart(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        mallory = w.emu.add_user("mallory", guild=w.guild)
        rng = Rng(seed=7)
        played = Played()
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            assert w.table_message().id == table.id
            assert "Monster Café — round 1/4" in table.current_text()
            # Play into round 2 and stop with a drawn monster waiting for its seat.
            while True:
                state = await state_of(bot)
                if state.round >= 2 and state.drawn is not None and not state.drawn_is_sorbet():
                    break
                await click_one_move(w, bot, table.id, rng, played, [mallory])
            before_restart = await bot.store.actions(1)
            assert all(c.kind == "seat" for c in controls(w.emu.get_message(table.id)))
            shown = w.emu.get_message(table.id).snapshot()
            posted = len(w.emu.channel_messages(w.channel))
        async with w.bot_running() as bot:
            await w.settle()
            assert await bot.store.actions(1) == before_restart
            # The new bot re-posts nothing, and the table message still carries exactly what the
            # first bot rendered (custom_ids included): the seat buttons clicked next are those.
            assert len(w.emu.channel_messages(w.channel)) == posted
            assert w.emu.get_message(table.id).snapshot() == shown
            while (await bot.service.load(1)).status == "active":
                await click_one_move(w, bot, table.id, rng, played, [mallory])
            session = await bot.service.load(1)
            state = await state_of(bot)
            assert session.status == "finished" and state.over
            assert await bot.service.replay(1) == session.state
            assert len(await bot.store.actions(1)) == played.moves
            # Every kind of control was played and refused to the wrong clickers.
            assert set(played.kinds) == {"draw", "seat", "clear", "sorbet"}, played.kinds
            assert played.refused == {"draw", "seat", "clear", "sorbet"}
            # One ping per turn start, none repeated by the restart.
            assert ping_sequence(w) == [int(p) for a in state.announcements for p in a.ping]
            final = final_scores(w)
            assert len(final) == 1, "the final scores are announced once"
            names = session.names()
            assert all(names[pid] in final[0] for pid in state.players)
            best = max(score(c.monsters, c.tables).total for c in state.collections.values())
            assert f"with {best} pt" in final[0]
            finished_table = w.emu.get_message(table.id)
            assert not finished_table.buttons() and not finished_table.selects()
            check_table(w, state, names, finished_table)
            history = await w.emu.slash(w.users[1], w.channel, "game history")
            text = ephemeral_text(history)
            assert "Monster Café · #1" in text
            for pid in state.players:
                c = state.collections[pid]
                assert f"{names[pid]} {score(c.monsters, c.tables).total}" in text


async def test_the_table_shows_the_engine_state_after_every_move(tmp_path: Path) -> None:
    async with world(tmp_path, 4) as w, w.bot_running() as bot:
        table = await open_game(w, GAME)
        names = await names_of(bot)
        rng = Rng(seed=3)
        played = Played(refused={"draw", "seat", "clear", "sorbet"})  # not this test's concern
        check_table(w, await state_of(bot), names, w.emu.get_message(table.id))
        seen_cleared = seen_drawn = False
        while (await state_of(bot)).round <= 2:
            await click_one_move(w, bot, table.id, rng, played, [])
            state = await state_of(bot)
            check_table(w, state, names, w.emu.get_message(table.id))
            seen_drawn |= state.drawn is not None
            seen_cleared |= bool(state.taken)
        assert seen_drawn and seen_cleared
        assert len(state.tables) == 4, "four players: four tables a round"


async def test_one_ping_per_turn_start_not_one_per_move(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        table = await open_game(w, GAME)
        state = await state_of(bot)
        assert state.current is not None
        expected = [int(state.current)]  # the starting player is pinged when the game starts
        assert ping_sequence(w) == expected
        rng = Rng(seed=7)
        played = Played(refused={"draw", "seat", "clear", "sorbet"})
        extra_turns = 0  # turns that start without a ping: the last diner's run goes on
        moves_in_turn, longest_turn = 0, 0
        while not state.over:
            before = (state.round, state.current, state.turn)
            # The last diner keeps drawing for a while: a run of several turns.
            assert state.current is not None
            last_diner_draws = state.is_last(state.current) and moves_in_turn < 6
            prefer = "draw" if last_diner_draws else None
            await click_one_move(w, bot, table.id, rng, played, [], prefer)
            moves_in_turn += 1
            state = await state_of(bot)
            if state.over:
                longest_turn = max(longest_turn, moves_in_turn)
                break
            assert state.current is not None
            if (state.round, state.current) != before[:2]:
                expected.append(int(state.current))  # another player's turn, or a new round
                longest_turn = max(longest_turn, moves_in_turn)
                moves_in_turn = 0
            elif state.turn != before[2]:
                extra_turns += 1
            assert ping_sequence(w) == expected, "a ping exactly when a turn starts"
        assert extra_turns > 0, "the game had a last diner's run of several turns"
        assert longest_turn >= 6, "a last diner's run of several moves is pinged once"
        # Exactly the engine's turn announcements ping, one message each, to the right player.
        announced = [int(p) for a in state.announcements for p in a.ping]
        assert announced == expected
        for user in w.users:
            messages = pings(w, user)
            assert len(messages) == expected.count(user)
            assert all(m.content == f"<@{user}>" for m in messages)
            assert all("it's your turn" in m.current_text() for m in messages)
        turns = state.turn
        assert len(expected) < turns, "fewer pings than engine turns: no ping per move"


def default_moves(state: MonsterCafeState, user: int) -> list[dict[str, Any]]:
    """What the game's own on_timeout plays for ``user`` until their turn is over."""
    assert state.current == str(user)
    _, actions = play_timeout(MONSTER_CAFE, state, str(user))
    assert actions and all(a.auto for a in actions)
    return [a.model_dump(mode="json") for a in actions]


def reminders(w: World, user: int) -> list[Message]:
    return [m for m in w.emu.dm_messages(user) if "waiting for your move" in m.current_text()]


def times_up(w: World) -> list[str]:
    return [t for t in w.channel_texts() if "Time's up" in t]


async def test_an_idle_player_is_reminded_then_played_for(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        async with w.bot_running() as bot:
            await open_game(w, GAME, timeout=300)
            names = await names_of(bot)
            first = await current_player(bot)
            assert (await state_of(bot)).turn_timeout == 300
            # Halfway: a reminder by DM to the current player, nobody else.
            w.clock.advance(149)
            await w.fire_timers()
            assert all(reminders(w, u) == [] for u in w.users)
            w.clock.advance(2)
            await w.fire_timers()
            assert len(reminders(w, first)) == 1
            assert all(reminders(w, u) == [] for u in w.users if u != first)
            assert await bot.store.actions(1) == [], "a reminder plays nothing"
            # The deadline: the game's on_timeout is played, the channel is told, the turn passes.
            expected = default_moves(await state_of(bot), first)
            w.clock.advance(150)
            await w.fire_timers()
            log = await bot.store.actions(1)
            assert [e.source for e in log] == ["timeout", "timeout"]
            assert [json.loads(e.action) for e in log] == expected
            assert [a["type"] for a in expected] == ["draw", "seat"]
            assert all(e.player == str(first) for e in log)
            state = await state_of(bot)
            assert state.current is not None and int(state.current) != first
            told = times_up(w)
            assert len(told) == 1, "one message tells the channel"
            assert f"{names[str(first)]} ran out of time, so the bot played for them" in told[0]
            assert "seated it at" in told[0]
            second = int(state.current)
            assert len(pings(w, second)) == 1, "the next player is pinged"
            check_table(w, state, names, w.table_message())
            # The next deadline passes while the bot is stopped: it fires when a bot starts again.
            expected = default_moves(state, second)
        w.clock.advance(10_000)
        async with w.bot_running() as bot:  # starting fires what fell due while it was down
            await w.fire_timers()
            log = await bot.store.actions(1)
            assert [e.source for e in log] == ["timeout"] * 4
            assert [json.loads(e.action) for e in log[2:]] == expected
            assert [e.player for e in log[2:]] == [str(second)] * 2
            state = await state_of(bot)
            assert state.current is not None and int(state.current) not in (first, second)
            assert len(times_up(w)) == 2
            assert reminders(w, second) == [], "no reminder for a deadline already passed"
            assert len(pings(w, int(state.current))) == 1
            assert await bot.service.replay(1) == state


async def test_others_pressing_the_current_players_buttons_are_refused(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        stranger = w.emu.add_user("mallory", guild=w.guild)
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)

            async def refused(user: int, kind: str, expected: str) -> None:
                before, shown = await bot.store.actions(1), w.emu.get_message(table.id).snapshot()
                public = len(w.emu.channel_messages(w.channel))
                private = len(w.emu.ephemerals(user))
                control = next(c for c in controls(w.emu.get_message(table.id)) if c.kind == kind)
                result = await press(w, user, table.id, control)
                text = ephemeral_text(result)
                assert text.startswith("⚠️") and expected in text, text
                await w.settle()
                assert await bot.store.actions(1) == before, "a refused click changed the game"
                assert w.emu.get_message(table.id).snapshot() == shown, "the table changed"
                assert len(w.emu.channel_messages(w.channel)) == public, "the refusal is private"
                assert len(w.emu.ephemerals(user)) == private + 1, "one answer to the clicker"

            async def play(kind: str) -> None:
                user = await current_player(bot)
                control = next(c for c in controls(w.emu.get_message(table.id)) if c.kind == kind)
                assert (await press(w, user, table.id, control)).type == 6
                await w.settle()

            first = await current_player(bot)
            others = [u for u in w.users if u != first]
            for other in others:
                await refused(other, "draw", NOT_YOUR_TURN)
            await refused(stranger, "draw", NOT_SEATED)
            await play("draw")
            await refused(others[0], "seat", NOT_YOUR_TURN)
            await refused(stranger, "seat", NOT_SEATED)
            await play("seat")
            # A monster is seated: the next player may clear it, nobody else may.
            second = await current_player(bot)
            assert second != first
            assert any(c.kind == "clear" for c in controls(w.emu.get_message(table.id)))
            await refused(first, "clear", NOT_YOUR_TURN)
            await refused(stranger, "clear", NOT_SEATED)
            await refused(first, "draw", NOT_YOUR_TURN)
            await play("clear")
            (third,) = [u for u in w.users if u not in (first, second)]
            assert await current_player(bot) == third
            log = await bot.store.actions(1)
            assert [e.player for e in log] == [str(first), str(first), str(second)]
            assert [e.source for e in log] == ["player"] * 3


async def test_lobbies_of_two_and_four_players(tmp_path: Path) -> None:
    (tmp_path / "four").mkdir()
    async with world(tmp_path / "four", 5) as w, w.bot_running() as bot:
        host, *others = w.users
        table = await (await w.emu.slash(host, w.channel, "game new", {"game": GAME})).final()
        assert "Monster Café — lobby" in table.current_text()
        alone = await w.emu.click(host, table.id, table.button("Start"))
        assert "needs 2–4 players" in ephemeral_text(alone)
        for user in others[:3]:
            await w.emu.click(user, table.id, w.emu.get_message(table.id).button("Join"))
        fifth = await w.emu.click(others[3], table.id, w.emu.get_message(table.id).button("Join"))
        assert "The table is full (4 players)" in ephemeral_text(fifth)
        await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
        await w.settle()
        state = await state_of(bot)
        assert state.players == [str(u) for u in w.users[:4]]
        assert len(state.tables) == 4 and state.out_of_play == []
        check_table(w, state, await names_of(bot), w.emu.get_message(table.id))
        late = await w.emu.slash(others[3], w.channel, "game join")
        assert "already started" in ephemeral_text(late)

    (tmp_path / "two").mkdir()
    async with world(tmp_path / "two", 2) as w, w.bot_running() as bot:
        table = await open_game(w, GAME)
        state = await state_of(bot)
        names = await names_of(bot)
        assert state.players == [str(u) for u in w.users]
        assert len(state.tables) == 3 and state.dummy
        assert "Two players" in w.emu.get_message(table.id).current_text()
        check_table(w, state, names, w.emu.get_message(table.id))
        # A whole two-player game, dummy tables and all.
        rng, played = Rng(seed=5), Played(refused={"draw", "seat", "clear", "sorbet"})
        while (await bot.service.load(1)).status == "active":
            await click_one_move(w, bot, table.id, rng, played, [])
            check_table(w, await state_of(bot), names, w.emu.get_message(table.id))
        state = await state_of(bot)
        assert state.over and len(final_scores(w)) == 1
        assert sum(1 for t in w.channel_texts() if "The dummy table" in t) == ROUNDS
        assert await bot.service.replay(1) == state


async def test_controls_on_a_status_copy_also_update_the_table_message(tmp_path: Path) -> None:
    """`/game status` shows a private copy of the table, with working controls: what is done
    there must show on the channel's table message too."""
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        host, bob, carol = w.users
        table = await (await w.emu.slash(host, w.channel, "game new", {"game": GAME})).final()
        # In the lobby: an option and a join from the private copy.
        lobby = (await w.emu.slash(host, w.channel, "game status")).message
        assert lobby is not None and lobby.ephemeral_to == host
        ((select, options),) = lobby.selects()
        value = next(v for lbl, v in options if lbl == "Turn timeout: 5 min")
        await w.emu.select(host, lobby.id, select, [value])
        await w.settle()
        assert "Turn timeout**: 5 min" in w.emu.get_message(table.id).current_text()
        copy = (await w.emu.slash(bob, w.channel, "game status")).message
        assert copy is not None
        await w.emu.click(bob, copy.id, copy.button("Join"))
        await w.settle()
        assert "Bob" in fields_of(w.emu.get_message(table.id))["Players (2/4)"]
        await w.emu.click(carol, table.id, w.emu.get_message(table.id).button("Join"))
        await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
        await w.settle()
        assert (await state_of(bot)).turn_timeout == 300
        # In the game: the current player draws and seats from the private copy.
        names = await names_of(bot)
        for kind in ("draw", "seat"):
            user = await current_player(bot)
            status = (await w.emu.slash(user, w.channel, "game status")).message
            assert status is not None and status.ephemeral_to == user
            control = next(c for c in controls(status) if c.kind == kind)
            result = await press(w, user, status.id, control)
            assert result.type == 7 and result.ephemeral
            await w.settle()
            check_table(w, await state_of(bot), names, w.emu.get_message(table.id))
        assert [e.player for e in await bot.store.actions(1)] == [str(user)] * 2
