"""Monster Café in Discord, end to end: the real bot, through discord.py, against the emulator.

Everything is public: every move is made by clicking the one table message in the channel, as
the player whose turn it is. What the table shows is checked against the engine's state after
every tap. A clear takes two taps (Clear, then Confirm: clear or Cancel), one decision.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.adapter.turns import AS_OF_THIS_MOVE
from bot.app import CafeBot
from emulator import Message
from games.engine import play_timeout
from games.monster_cafe import GAME as MONSTER_CAFE
from games.monster_cafe.catalogue import (
    COLLECTABLE_KINDS,
    KIND_BY_KEY,
    MEALS,
    MONSTER_KIND,
    ROUNDS,
    SEATS_PER_TABLE,
    TABLE_MEAL,
    kind_short,
    meal_of,
    meal_short,
)
from games.monster_cafe.scoring import score
from games.monster_cafe.state import (
    CancelClear,
    Clear,
    ConfirmClear,
    Draw,
    MonsterCafeState,
    Move,
    Seat,
    Sorbet,
)
from games.presentation import PLAYER_TOKEN
from games.rng import Rng
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

GAME = "monster-cafe"
FREE_SEAT = "▫️"
NOT_YOUR_TURN = "It's not your move right now"
NOT_SEATED = "You're not seated at this table"

# What each control of the table does (its move's wire type), by the start of its label.
KINDS = {
    "Draw": "draw",
    "Seat at": "seat",
    "Clear": "ask_clear",  # the first tap of a clear: nothing is taken yet
    "Confirm: clear": "clear",  # the second: takes the table, ends the player's round
    "Cancel": "cancel_clear",  # or the request is taken back
    "Discard": "sorbet",
}
ALL_KINDS = set(KINDS.values())


def kind_of(control: Control) -> str:
    return next(k for prefix, k in KINDS.items() if control.label.startswith(prefix))


def table_controls(message: Message) -> list[Control]:
    """The enabled game controls of session 1's table on ``message``."""
    return controls(message, 1, "t")


async def current_player(bot: CafeBot) -> int:
    s = await bot.service.load(1)
    assert s.state is not None
    (pid,) = s.game.active_players(s.state)
    return int(pid)


async def cafe_state(bot: CafeBot) -> MonsterCafeState:
    state = await state_of(bot)
    assert isinstance(state, MonsterCafeState)
    return state


async def names_of(bot: CafeBot) -> dict[str, str]:
    return (await bot.service.load(1)).names()


def pick(rng: Rng, options: list[Control]) -> Control:
    """A seeded choice; drawing is favoured so that rounds run long enough for sorbets, full
    tables and last-diner runs."""
    draws = [c for c in options if kind_of(c) == "draw"]
    if draws and rng.randint(0, 99) < 75:
        return draws[0]
    return rng.choice(options)


def posted(w: World) -> list[Message]:
    """What the game posted in its channel and thread, deleted messages too (a turn notice goes
    when the next one comes), oldest first."""
    places = {w.channel} | {c.id for c in w.emu.channels.values() if c.parent_id == w.channel}
    found = [m for m in w.emu.all_messages() if m.channel_id in places and not m.ephemeral]
    return sorted(found, key=lambda m: m.id)


def first_content(m: Message) -> str:
    """The text a message was posted with (pings are in it; a later edit may drop them)."""
    return str(m.versions()[0].get("content") or "")


def pings(w: World, user: int) -> list[Message]:
    return [m for m in posted(w) if f"<@{user}>" in first_content(m)]


def ping_sequence(w: World) -> list[int]:
    """Who was pinged, in the order of the channel's messages."""
    out = []
    for m in posted(w):
        out += [u for u in w.users if f"<@{u}>" in first_content(m)]
    return out


def final_scores(w: World) -> list[str]:
    return [t for t in w.channel_texts() if "Monster Café — final scores" in t]


def log_types(log: list[Any]) -> list[str]:
    return [json.loads(e.action)["type"] for e in log]


# -- reading the table -----------------------------------------------------------------------------


def fields_of(message: Message) -> dict[str, str]:
    (embed,) = message.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def with_names(text: str, names: dict[str, str]) -> str:
    return PLAYER_TOKEN.sub(lambda m: names[m.group(1)], text)


def unwrapped(value: str) -> list[str]:
    """A field's lines with the wrapped continuations ("   item") joined back to their line."""
    lines: list[str] = []
    for line in value.split("\n"):
        if line.startswith("   ") and lines:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


def seats_shown(seats: list[str]) -> str:
    """A table's seats: the seated monsters grouped by kind (catalogue order), then free seats."""
    counts = Counter(MONSTER_KIND[c] for c in seats)
    seated = ", ".join(kind_short(k, counts[k]) for k in COLLECTABLE_KINDS if counts[k])
    free = FREE_SEAT * (SEATS_PER_TABLE - len(seats))
    return " ".join(part for part in (seated, free) if part)


def collection_lines(state: MonsterCafeState, pid: str) -> list[str]:
    collection = state.collections[pid]
    lines = []
    took = next((t for t in state.taken if t.player == pid), None)
    if took is not None and not state.over:
        lines.append(f"✅ took {took.slot} · {meal_short(TABLE_MEAL[took.table])}")
    meals = Counter(TABLE_MEAL[t] for t in collection.tables)
    kinds = Counter(MONSTER_KIND[c] for c in collection.monsters)
    eaten = [meal_short(m.key, meals[m.key]) for m in MEALS if meals[m.key]]
    eaters = [kind_short(k, kinds[k]) for k in COLLECTABLE_KINDS if kinds[k]]
    lines.append("🍽️ " + (", ".join(eaten) or "none yet"))
    lines.append("👾 " + (", ".join(eaters) or "none yet"))
    return lines


def status_shown(state: MonsterCafeState, names: dict[str, str]) -> list[str]:
    """The description's lines: whose move and what it must be, the deck and the discard (at
    the end: only that the café is closed)."""
    if state.over:
        return ["🏁 The café is closed: see the final scores."]
    assert state.current is not None
    who = names[state.current]
    if state.clearing is not None:
        asked = state.table(state.clearing)
        assert asked is not None
        meal = meal_of(asked.card)
        lines = [
            f"❓ {who} asks to clear **{asked.slot} · {meal.emoji} {meal.short}**.",
            "✅ Confirm or ↩️ cancel: nothing is taken yet.",
        ]
    elif state.drawn is not None and state.drawn_is_sorbet():
        lines = [f"🍋 {who} drew **Lemon Sorbet**: pick a type."]
    elif state.drawn is not None:
        kind = KIND_BY_KEY[MONSTER_KIND[state.drawn]]
        lines = [f"🎴 {who} drew **{kind.emoji} {kind.name}**."]
    else:
        lines = [f"▶️ {who}'s turn: draw or clear."]
        if state.is_last(state.current):
            lines.append("🏃 Last diner: draws until they clear.")
        if not state.deck:
            lines.append("📭 The deck is empty: clear a table (empty ones too).")
        elif not state.seatable():
            lines.append("🈵 Every table is full: clear one.")
        elif not state.clearable():
            lines.append("🍽️ No monster seated yet: draw.")
    lines.append(f"🎴 Deck: {len(state.deck)} · 🗑️ Discard: {len(state.discard)}")
    if state.dummy:
        lines.append("🎭 The table left after both clears is discarded.")
    return lines


def label_of(state: MonsterCafeState, move: Move) -> str:
    """The label of the control that offers ``move``."""
    if isinstance(move, Draw):
        return f"Draw a monster ({len(state.deck)} left)"
    if isinstance(move, Sorbet):
        assert state.current is not None
        n = sum(MONSTER_KIND[c] == move.kind for c in state.collections[state.current].monsters)
        return f"Discard {KIND_BY_KEY[move.kind].name} ×{n}"
    if isinstance(move, CancelClear):
        return "Cancel"
    table = state.table(move.table)
    assert table is not None
    where = f"{table.slot} · {meal_of(table.card).name.split(' (')[0]}"  # short on buttons
    if isinstance(move, Seat):
        return f"Seat at {where}"
    if isinstance(move, ConfirmClear):
        return f"Confirm: clear {table.slot}"
    assert isinstance(move, Clear)
    n = len(table.seats)
    return f"Clear {where} ×{n}"


async def check_table(bot: CafeBot, table: Message) -> None:
    """The table message shows what the engine's state holds, and offers exactly the current
    player's legal moves."""
    state = await cafe_state(bot)
    names = await names_of(bot)
    (embed,) = table.embeds
    fields = fields_of(table)
    round_text = "game over" if state.over else f"round {state.round}/{ROUNDS}"
    assert embed["title"] == f"👹 Monster Café · {round_text}"
    assert embed.get("description", "").split("\n") == status_shown(state, names)
    # The controls: one per legal move of the current player, in order.
    legal = [] if state.current is None else MONSTER_CAFE.legal_actions(state, state.current)
    assert [c.label for c in table_controls(table)] == [label_of(state, m) for m in legal]
    # The fields, in order: the tables, the players, the latest events, whom we wait for.
    table_names = [f"{t.slot} · {meal_short(TABLE_MEAL[t.card])}" for t in state.tables]
    player_names = []
    for pid in state.players:
        collection = state.collections[pid]
        total = score(collection.monsters, collection.tables).total
        if state.over:
            player_names.append(f"🏁 {names[pid]} · {total} {'pt' if abs(total) == 1 else 'pts'}")
        else:
            mark = "▶️ " if pid == state.current else ""
            player_names.append(f"{mark}{names[pid]} · 📈 now: {total}")
    expected = [*table_names, *player_names]
    if state.log:
        expected.append("📜 Latest")
    if not state.over:
        expected.append("⏳ Waiting for")
    assert [f["name"] for f in embed["fields"]] == expected
    for t, name in zip(state.tables, table_names, strict=True):
        assert fields[name] == seats_shown(t.seats), (name, fields[name])
    for pid, name in zip(state.players, player_names, strict=True):
        assert unwrapped(fields[name]) == collection_lines(state, pid), fields[name]
    if state.log:
        assert fields["📜 Latest"] == "\n".join(with_names(line, names) for line in state.log[-3:])
    if not state.over:
        assert state.current is not None
        deadline = await bot.service.deadline(1)
        assert deadline is not None
        assert fields["⏳ Waiting for"] == (
            f"{names[state.current]}\nTime runs out <t:{int(deadline.due_at)}:R>"
        )
    footer = " ".join(embed["footer"]["text"].split())
    assert footer.endswith("Game #1")
    if state.out_of_play:
        kinds = {MONSTER_KIND[c] for c in state.out_of_play if c in MONSTER_KIND}
        gone = [KIND_BY_KEY[k].name for k in COLLECTABLE_KINDS if k in kinds]
        assert footer.startswith("Out of play: " + ", ".join([*gone, "their tables"]))


# -- playing by clicking ---------------------------------------------------------------------------


@dataclass
class Played:
    """What a game by clicking went through."""

    taps: Counter[str] = field(default_factory=Counter)  # by the move's wire type
    refused: set[str] = field(default_factory=set)  # control kinds a wrong clicker was refused
    decisions: int = 0  # one per draw, seat, sorbet or confirmed clear (a clear is two taps)


async def refuse_others(w: World, bot: CafeBot, control: Control, strangers: list[int]) -> None:
    """Everyone but the current player presses ``control``: a private refusal, nothing changes."""
    before = await bot.store.actions(1)
    shown = w.emu.get_message(control.message_id).snapshot()
    posted = len(w.game_messages())
    current = await current_player(bot)
    for other in [u for u in w.users if u != current] + strangers:
        result = await press(w.emu, other, control)
        expected = NOT_YOUR_TURN if other in w.users else NOT_SEATED
        text = ephemeral_text(result)
        assert text.startswith("⚠️") and expected in text, text
    await w.settle()
    assert await bot.store.actions(1) == before, "a refused click changed the game"
    assert w.emu.get_message(control.message_id).snapshot() == shown, "a refused click showed"
    assert len(w.game_messages()) == posted, "a refusal is private"


async def tap(
    w: World, bot: CafeBot, control: Control, played: Played, strangers: list[int]
) -> None:
    """The current player presses ``control`` on the table: one log entry of its kind. The first
    time a kind is pressed in a game, everyone else is refused it first."""
    kind = kind_of(control)
    if kind not in played.refused:
        await refuse_others(w, bot, control, strangers)
        played.refused.add(kind)
    user = await current_player(bot)
    before = await bot.store.actions(1)
    result = await press(w.emu, user, control)
    # The table message shows the move in the tap's own answer (one writer at a time per
    # message: the sync then finds it up to date).
    assert result.type == 7 and not result.ephemeral, "a tap updates the table, no reply"
    await w.settle()
    log = await bot.store.actions(1)
    assert log[: len(before)] == before and len(log) == len(before) + 1
    assert log[-1].player == str(user) and log[-1].source == "player"
    assert log_types(log[-1:]) == [kind]
    # What the move posted has gone (the tests post at once: nothing is held for later moves),
    # not left in the outbox for a later pass to bring.
    assert await bot.store.unsent_posts(1) == [], "the move's posts went before settle() ended"
    played.taps[kind] += 1
    await check_table(bot, w.emu.get_message(control.message_id))


@dataclass
class Unasked:
    """The game before the first tap of a clear."""

    shown: dict[str, Any]  # the table message's snapshot
    state: MonsterCafeState
    posted: int  # messages in the channel


async def decide(
    w: World,
    bot: CafeBot,
    rng: Rng,
    played: Played,
    strangers: list[int],
    prefer: str | None = None,
) -> None:
    """The current player makes one seeded decision among the table's enabled controls (one of
    kind ``prefer`` when there is one): one tap, or two for a clear (Clear, then Confirm).
    The first clear of a game is asked, cancelled and asked again before it is confirmed."""
    table = w.table_message()
    options = table_controls(table)
    assert options, "an active table offers the current player a move"
    assert all(kind_of(c) in ("draw", "seat", "ask_clear", "sorbet") for c in options)
    preferred = [c for c in options if kind_of(c) == prefer]
    control = preferred[0] if preferred else pick(rng, options)
    unasked = Unasked(table.snapshot(), await cafe_state(bot), len(w.game_messages()))
    await tap(w, bot, control, played, strangers)
    if kind_of(control) == "ask_clear":
        await confirm_clear(w, bot, unasked, control, played, strangers)
    played.decisions += 1


async def confirm_clear(
    w: World,
    bot: CafeBot,
    unasked: Unasked,
    ask: Control,
    played: Played,
    strangers: list[int],
) -> None:
    """The second tap of a clear, after the first (``ask``)."""
    asked = await cafe_state(bot)
    assert asked.clearing is not None and asked.current is not None
    table = asked.table(asked.clearing)
    assert table is not None and ask.label.startswith(f"Clear {table.slot} · ")
    # Asking takes nothing and ends nothing: the same turn, nothing posted, no ping.
    assert asked.model_copy(update={"clearing": None}) == unasked.state
    posted = unasked.posted
    assert len(w.game_messages()) == posted, "asking posts nothing"
    confirm, cancel = table_controls(w.table_message())
    assert (kind_of(confirm), kind_of(cancel)) == ("clear", "cancel_clear")
    if not played.taps["cancel_clear"]:
        # Once a game: take the request back. The turn is as it was, the table shows it again.
        await tap(w, bot, cancel, played, strangers)
        assert await cafe_state(bot) == unasked.state
        assert w.table_message().snapshot() == unasked.shown
        assert len(w.game_messages()) == posted
        (again,) = [c for c in table_controls(w.table_message()) if c.label == ask.label]
        assert again == ask, "the same Clear control as before the ask"
        await tap(w, bot, again, played, strangers)
        assert await cafe_state(bot) == asked
        assert table_controls(w.table_message()) == [confirm, cancel]
        assert len(w.game_messages()) == posted
    await tap(w, bot, confirm, played, strangers)
    after = await cafe_state(bot)
    assert after.clearing is None and after.table(table.card) is None
    taker = after.collections[asked.current]
    assert taker.tables[-1] == table.card, "the confirmed table was taken"
    if table.seats:
        assert taker.monsters[-len(table.seats) :] == table.seats, "with its monsters"
    log = await bot.store.actions(1)
    # The two taps of the decision, by the same player, for the same table.
    assert [json.loads(e.action) for e in log[-2:]] == [
        {"type": "ask_clear", "table": table.card, "auto": False},
        {"type": "clear", "table": table.card, "auto": False},
    ]
    assert log[-2].player == log[-1].player == asked.current


def check_clears_took_two_taps(log: list[Any]) -> None:
    """Every clear in the log is the second tap of a decision whose first asked for that table;
    every ask is answered (confirmed or cancelled) by the same player's next tap."""
    entries = [(e.player, json.loads(e.action)) for e in log]
    for i, (who, action) in enumerate(entries):
        if action["type"] == "clear":
            assert i > 0 and entries[i - 1] == (who, {**action, "type": "ask_clear"})
        if action["type"] == "ask_clear":
            assert i + 1 < len(entries)
            nxt_who, nxt = entries[i + 1]
            assert nxt_who == who and nxt["type"] in ("clear", "cancel_clear")


# -- the tests -------------------------------------------------------------------------------------


async def test_a_full_three_player_game_by_clicking_with_a_restart(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        mallory = w.emu.add_user("mallory", guild=w.guild)
        rng = Rng(seed=7)
        played = Played()
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            assert w.table_message().id == table.id
            assert "👹 Monster Café · round 1/4" in table.current_text()
            await check_table(bot, table)
            # Play into round 2 and stop with a drawn monster waiting for its seat.
            while True:
                state = await cafe_state(bot)
                if state.round >= 2 and state.drawn is not None and not state.drawn_is_sorbet():
                    break
                await decide(w, bot, rng, played, [mallory])
            before_restart = await bot.store.actions(1)
            assert all(kind_of(c) == "seat" for c in table_controls(w.table_message()))
            shown = w.emu.get_message(table.id).snapshot()
            posted = len(w.game_messages())
        async with w.bot_running() as bot:
            await w.settle()
            assert await bot.store.actions(1) == before_restart
            # The new bot re-posts nothing, and the table message still carries exactly what the
            # first bot rendered (custom_ids included): the seat buttons clicked next are those.
            assert len(w.game_messages()) == posted
            assert w.emu.get_message(table.id).snapshot() == shown
            while (await bot.service.load(1)).status == "active":
                await decide(w, bot, rng, played, [mallory])
            session = await bot.service.load(1)
            state = await cafe_state(bot)
            assert session.status == "finished" and state.over
            assert await bot.service.replay(1) == session.state
            log = await bot.store.actions(1)
            assert len(log) == sum(played.taps.values()), "one log entry per tap"
            assert Counter(log_types(log)) == played.taps
            # A clear is two taps of one decision: every player cleared once a round.
            check_clears_took_two_taps(log)
            assert played.taps["clear"] == ROUNDS * len(state.players)
            assert played.taps["ask_clear"] == played.taps["clear"] + played.taps["cancel_clear"]
            assert (
                played.decisions
                == len(log) - played.taps["ask_clear"] - played.taps["cancel_clear"]
            )
            # Every kind of control was played and refused to the wrong clickers.
            assert set(played.taps) == ALL_KINDS, played.taps
            assert played.refused == ALL_KINDS
            # One ping per turn start, none repeated by the restart.
            assert ping_sequence(w) == [int(p) for a in state.announcements for p in a.ping]
            # A turn notice posted on its own went when the next came; one told with its move
            # stays in the log as of that move (no call per turn change); once the game is
            # over no notice is left that could be read as current.
            left = [m for m in w.game_messages() if "🍽️ Your turn" in m.current_text()]
            assert all(AS_OF_THIS_MOVE in m.current_text() for m in left)
            assert all(len(m.embeds) > 1 or "\n" in m.content for m in left), "with its move"
            final = final_scores(w)
            assert len(final) == 1, "the final scores are announced once"
            names = session.names()
            assert all(names[pid] in final[0] for pid in state.players)
            best = max(score(c.monsters, c.tables).total for c in state.collections.values())
            assert f"with {best} pt" in final[0]
            # A short ending: the winner, then one line a player (the final table and its
            # picture show every café); before, a field of every monster's line a player.
            (ending,) = [
                e
                for m in w.game_messages()
                for e in m.embeds
                if e.get("title") == "🏆 Monster Café — final scores"
            ]
            assert not ending.get("fields")
            assert len(ending["description"].splitlines()) == 1 + len(state.players), ending
            finished_table = w.emu.get_message(table.id)
            assert not finished_table.buttons() and not finished_table.selects()
            await check_table(bot, finished_table)
            history = await w.emu.slash(w.users[1], w.channel, "game history")
            text = (await history.final()).current_text()
            assert "Monster Café · #1" in text
            for pid in state.players:
                c = state.collections[pid]
                assert f"{names[pid]} {score(c.monsters, c.tables).total}" in text


async def test_the_table_shows_the_engine_state_after_every_move(tmp_path: Path) -> None:
    async with world(tmp_path, 4) as w, w.bot_running() as bot:
        table = await open_game(w, GAME)
        rng = Rng(seed=3)
        played = Played(refused=set(ALL_KINDS))  # not this test's concern
        await check_table(bot, w.emu.get_message(table.id))
        seen_cleared = seen_drawn = False
        while (await cafe_state(bot)).round <= 2:
            await decide(w, bot, rng, played, [])  # checks the table after each tap
            state = await cafe_state(bot)
            await check_table(bot, w.emu.get_message(table.id))
            seen_drawn |= state.drawn is not None
            seen_cleared |= bool(state.taken)
        assert seen_drawn and seen_cleared
        assert played.taps["ask_clear"] > played.taps["clear"] >= 8, "asked and confirmed clears"
        assert played.taps["cancel_clear"] == 1
        assert len(state.tables) == 4, "four players: four tables a round"


async def test_one_ping_per_turn_start_not_one_per_move(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        await open_game(w, GAME)
        state = await cafe_state(bot)
        assert state.current is not None
        expected = [int(state.current)]  # the starting player is pinged when the game starts
        assert ping_sequence(w) == expected
        rng = Rng(seed=7)
        played = Played(refused=set(ALL_KINDS))
        extra_turns = 0  # turns that start without a ping: the last diner's run goes on
        moves_in_turn, longest_turn = 0, 0
        while not state.over:
            before = (state.round, state.current, state.turn)
            # The last diner keeps drawing for a while: a run of several turns.
            assert state.current is not None
            last_diner_draws = state.is_last(state.current) and moves_in_turn < 6
            prefer = "draw" if last_diner_draws else None
            await decide(w, bot, rng, played, [], prefer)  # a clear: two taps, one decision
            moves_in_turn += 1
            state = await cafe_state(bot)
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
        assert played.taps["clear"] == ROUNDS * 3 and played.taps["cancel_clear"] == 1
        # Exactly the engine's turn announcements ping, one message each, to the right player.
        turn_notices = [a for a in state.announcements if a.kind == "turn"]
        assert all(a.ping for a in turn_notices)
        assert not any(a.ping for a in state.announcements if a.kind != "turn")
        announced = [int(p) for a in turn_notices for p in a.ping]
        assert announced == expected
        for user in w.users:
            messages = pings(w, user)
            assert len(messages) == expected.count(user)
            assert all(first_content(m).split("\n")[0] == f"<@{user}>" for m in messages)
            assert all("it's your turn" in m.text() for m in messages)
        turns = state.turn
        assert len(expected) < turns, "fewer pings than engine turns: no ping per move"
        assert len(expected) < played.decisions < sum(played.taps.values())


async def test_a_last_diners_move_is_told_in_the_thread_at_once(tmp_path: Path) -> None:
    """A last diner's run starts no turn, so a seat or a sorbet there announces nothing: the
    move's line for the game's log is its only post. It goes with the move like any other (a
    late one would land amid the next moves: "asking to clear posts nothing" would not hold)."""
    async with world(tmp_path, 2) as w, w.bot_running() as bot:
        await open_game(w, GAME)
        rng, played = Rng(seed=5), Played(refused=set(ALL_KINDS))
        # Until one player has cleared: the other is the round's last diner.
        while len((await cafe_state(bot)).remaining()) != 1:
            await decide(w, bot, rng, played, [], prefer="ask_clear")
        (diner,) = (await cafe_state(bot)).remaining()
        names = await names_of(bot)
        logged = 0
        while (state := await cafe_state(bot)).is_last(diner):
            before = (len(state.announcements), list(state.log))
            table = w.table_message()
            draws = [c for c in table_controls(table) if kind_of(c) == "draw"]
            control = draws[0] if draws else table_controls(table)[0]
            if kind_of(control) == "ask_clear":
                break  # the run ends: the clear is not what this test is about
            await tap(w, bot, control, played, [])
            after = await cafe_state(bot)
            if after.log == before[1]:
                continue  # a drawn monster waits for its seat: nothing to tell yet
            assert len(after.announcements) == before[0], "the run goes on unannounced"
            line = with_names(after.log[-1], names)
            assert line in w.game_messages()[-1].current_text(), "the move's line is posted"
            logged += 1
        assert logged >= 2, "the last diner seated (or lost to a sorbet) a few monsters"


async def test_a_player_at_the_table_is_not_pinged_one_who_stepped_away_is(
    tmp_path: Path,
) -> None:
    """``ping_after_idle``: a turn notice pings the awaited player only if they made no move in
    the game for that long (one at the table sees it come; one who left is called back). The
    notice itself still comes, naming them."""
    idle = 300.0
    async with world(tmp_path, 3) as w:
        w.ping_after_idle = idle
        async with w.bot_running() as bot:
            await open_game(w, GAME)
            state = await cafe_state(bot)
            assert state.current is not None
            expected = [int(state.current)]  # nobody has moved yet: the first player is pinged
            rng = Rng(seed=7)
            played = Played(refused=set(ALL_KINDS))
            moved: set[str] = set()
            unpinged: list[str] = []  # turns that came back to a player who had just moved
            while len(unpinged) < 3:
                before = (state.round, state.current)
                assert state.current is not None
                moved.add(state.current)
                await decide(w, bot, rng, played, [])
                state = await cafe_state(bot)
                assert not state.over and state.current is not None
                if (state.round, state.current) != before:
                    if state.current in moved:
                        unpinged.append(state.current)
                    else:
                        expected.append(int(state.current))
                assert ping_sequence(w) == expected
            # Each of those turns was still announced in the thread, naming the player.
            names = await names_of(bot)
            notices = [m for m in posted(w) if "it's your turn" in m.text()]
            for player in unpinged:
                assert any(
                    f"{names[player]}, it's your turn" in m.text()
                    and f"<@{player}>" not in first_content(m)
                    for m in notices
                )
            # Everyone steps away for longer than the window: the next turn's player is pinged.
            w.clock.advance(idle + 1)
            before = (state.round, state.current)
            while (state.round, state.current) == before:
                await decide(w, bot, rng, played, [])
                state = await cafe_state(bot)
            assert state.current is not None
            assert ping_sequence(w) == [*expected, int(state.current)]


def default_moves(state: MonsterCafeState, user: int) -> tuple[MonsterCafeState, list[Any]]:
    """What the game's own on_timeout plays for ``user`` at one deadline, and the state after."""
    assert state.current == str(user)
    after, actions = play_timeout(MONSTER_CAFE, state, str(user))
    assert actions and all(a.auto for a in actions)
    return after, [a.model_dump(mode="json") for a in actions]


def reminders(w: World, user: int) -> list[Message]:
    return [m for m in w.emu.dm_messages(user) if "waiting for your move" in m.current_text()]


def times_up(w: World) -> list[str]:
    return [t for t in w.channel_texts() if "Time's up" in t]


def drawn_words(state: MonsterCafeState, name: str, moves: list[Any]) -> str:
    """What the channel is told for an absent player's draw and what followed it: a seat, or
    the monsters a sorbet scared off."""
    assert state.current is not None
    if [m["type"] for m in moves] == ["draw", "sorbet"]:
        kind = moves[1]["kind"]
        lost = [c for c in state.collections[state.current].monsters if MONSTER_KIND[c] == kind]
        assert MONSTER_KIND[state.deck[0]] == "sorbet" and lost
        return f"🍋 Sorbet! {name} lost {kind_short(kind, len(lost))}."
    assert [m["type"] for m in moves] == ["draw", "seat"]
    kind_of_drawn = KIND_BY_KEY[MONSTER_KIND[state.deck[0]]]
    table = state.table(moves[1]["table"])
    assert table is not None
    return f"🪑 {name}: {kind_of_drawn.emoji} {kind_of_drawn.name} → {table.slot}."


async def timed_out_as_announced(w: World, after: MonsterCafeState, names: dict[str, str]) -> None:
    """The channel's last "Time's up" message shows the engine's own announcement."""
    (announcement,) = [a for a in after.announcements if a.title == "⏰ Time's up"][-1:]
    assert with_names(announcement.description, names) in times_up(w)[-1]


async def test_an_idle_player_is_reminded_then_played_for(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        async with w.bot_running() as bot:
            await open_game(w, GAME, timeout=300)
            names = await names_of(bot)
            first = await current_player(bot)
            assert (await cafe_state(bot)).turn_timeout == 300
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
            state = await cafe_state(bot)
            after, expected = default_moves(state, first)
            words = drawn_words(state, names[str(first)], expected)
            w.clock.advance(150)
            await w.fire_timers()
            log = await bot.store.actions(1)
            assert [e.source for e in log] == ["timeout", "timeout"]
            assert [json.loads(e.action) for e in log] == expected
            assert all(e.player == str(first) for e in log)
            state = await cafe_state(bot)
            assert state == after
            assert state.current is not None and int(state.current) != first
            told = times_up(w)
            assert len(told) == 1, "one message tells the channel"
            assert f"{names[str(first)]} ran out of time, so the bot played for them" in told[0]
            assert words in told[0]
            await timed_out_as_announced(w, state, names)
            second = int(state.current)
            assert len(pings(w, second)) == 1, "the next player is pinged"
            await check_table(bot, w.table_message())
            # The next deadline passes while the bot is stopped: it fires when a bot starts again.
            after, expected = default_moves(state, second)
            words = drawn_words(state, names[str(second)], expected)
        w.clock.advance(10_000)
        async with w.bot_running() as bot:  # starting fires what fell due while it was down
            await w.fire_timers()
            log = await bot.store.actions(1)
            assert [e.source for e in log] == ["timeout"] * 4
            assert [json.loads(e.action) for e in log[2:]] == expected
            assert [e.player for e in log[2:]] == [str(second)] * 2
            state = await cafe_state(bot)
            assert state == after
            assert state.current is not None and int(state.current) not in (first, second)
            assert len(times_up(w)) == 2
            assert words in times_up(w)[1]
            assert reminders(w, second) == [], "no reminder for a deadline already passed"
            assert len(pings(w, int(state.current))) == 1
            await check_table(bot, w.table_message())

            # The present players clear (leaving a monster seated somewhere) until one player is
            # left in the round: the last diner, who is absent. One deadline is one decision:
            # the bot clears a table for them at once.
            played = Played(refused=set(ALL_KINDS))
            rng = Rng(seed=1)
            while not state.is_last(state.current or ""):
                prefer = "ask_clear" if len(state.clearable()) > 1 else "draw"
                await decide(w, bot, rng, played, [], prefer)
                state = await cafe_state(bot)
                assert state.round == 1
            assert state.current is not None
            last = int(state.current)
            assert state.clearable(), "a table with monsters for the last diner"
            assert pings(w, last)[-1].id == w.game_messages()[-1].id
            taps = len(await bot.store.actions(1))
            told_before, reminded = len(times_up(w)), len(reminders(w, last))
            after, expected = default_moves(state, last)
            assert [m["type"] for m in expected] == ["ask_clear", "clear"]
            assert expected[0]["table"] == expected[1]["table"]
            cleared = state.table(expected[1]["table"])
            assert cleared is not None
            assert len(cleared.seats) == max(len(t.seats) for t in state.tables), "the fullest"
            w.clock.advance(151)
            await w.fire_timers()
            assert len(reminders(w, last)) == reminded + 1, "the last diner is reminded"
            assert len(await bot.store.actions(1)) == taps
            w.clock.advance(150)  # one deadline
            await w.fire_timers()
            log = await bot.store.actions(1)
            assert [json.loads(e.action) for e in log[taps:]] == expected
            assert [(e.player, e.source) for e in log[taps:]] == [(str(last), "timeout")] * 2
            state = await cafe_state(bot)
            assert state == after
            # Their turn, and with it the round, is over: they start the next one.
            assert state.round == 2 and state.taken == [] and state.clearing is None
            assert state.collections[str(last)].tables[-1] == cleared.card
            assert state.current == str(last)
            assert len(times_up(w)) == told_before + 1, "one message tells the channel"
            meal = meal_short(TABLE_MEAL[cleared.card])
            took = f"✅ {names[str(last)]} took {cleared.slot} · {meal} ({len(cleared.seats)} 👾)."
            assert took in times_up(w)[-1]
            await timed_out_as_announced(w, state, names)
            assert sum("Round 1/4 is over" in t for t in w.channel_texts()) == 1
            await check_table(bot, w.table_message())
            assert await bot.service.replay(1) == state


async def test_others_pressing_the_current_players_buttons_are_refused(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        stranger = w.emu.add_user("mallory", guild=w.guild)
        async with w.bot_running() as bot:
            table = await open_game(w, GAME)
            assert w.table_message().id == table.id

            def control_of(kind: str) -> Control:
                return next(c for c in table_controls(w.table_message()) if kind_of(c) == kind)

            async def refused(user: int, kind: str, expected: str) -> None:
                before, shown = await bot.store.actions(1), w.table_message().snapshot()
                state = await cafe_state(bot)
                public = len(w.game_messages())
                private = len(w.emu.ephemerals(user))
                result = await press(w.emu, user, control_of(kind))
                text = ephemeral_text(result)
                assert text.startswith("⚠️") and expected in text, text
                await w.settle()
                assert await bot.store.actions(1) == before, "a refused click changed the game"
                assert await cafe_state(bot) == state
                assert w.table_message().snapshot() == shown, "the table changed"
                assert len(w.game_messages()) == public, "the refusal is private"
                assert len(w.emu.ephemerals(user)) == private + 1, "one answer to the clicker"

            async def play(kind: str) -> None:
                user = await current_player(bot)
                assert (await press(w.emu, user, control_of(kind))).type == 7
                await w.settle()
                await check_table(bot, w.table_message())

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
            (third,) = [u for u in w.users if u not in (first, second)]
            assert any(kind_of(c) == "ask_clear" for c in table_controls(w.table_message()))
            await refused(first, "ask_clear", NOT_YOUR_TURN)
            await refused(stranger, "ask_clear", NOT_SEATED)
            await refused(first, "draw", NOT_YOUR_TURN)
            before_ask = w.table_message().snapshot()
            unasked = await cafe_state(bot)
            await play("ask_clear")
            assert [kind_of(c) for c in table_controls(w.table_message())] == [
                "clear",
                "cancel_clear",
            ]
            # The confirmation and the cancel are the asker's only.
            for user in (first, third):
                await refused(user, "clear", NOT_YOUR_TURN)
                await refused(user, "cancel_clear", NOT_YOUR_TURN)
            await refused(stranger, "clear", NOT_SEATED)
            await refused(stranger, "cancel_clear", NOT_SEATED)
            # Cancel: the turn is back as it was before the ask, and so is the table message.
            confirm = control_of("clear")
            await play("cancel_clear")
            assert await cafe_state(bot) == unasked
            assert w.table_message().snapshot() == before_ask
            assert await current_player(bot) == second
            # The Confirm pressed after the cancel (by a client still showing it) is refused too.
            before = await bot.store.actions(1)
            stale = await w.emu.forge_component(second, w.table_message(), confirm.custom_id)
            assert "isn't on this message any more" in ephemeral_text(stale)
            await w.settle()
            assert await bot.store.actions(1) == before and await cafe_state(bot) == unasked
            assert w.table_message().snapshot() == before_ask
            await play("ask_clear")
            await refused(third, "clear", NOT_YOUR_TURN)
            await play("clear")
            assert await current_player(bot) == third
            log = await bot.store.actions(1)
            assert [e.player for e in log] == [str(first)] * 2 + [str(second)] * 4
            assert log_types(log) == [
                "draw",
                "seat",
                "ask_clear",
                "cancel_clear",
                "ask_clear",
                "clear",
            ]
            assert [e.source for e in log] == ["player"] * 6
            assert [int(p) for a in (await cafe_state(bot)).announcements for p in a.ping] == [
                first,
                second,
                third,
            ], "one ping per turn start: the ask and the cancel ping nobody"
            assert ping_sequence(w) == [first, second, third]


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
        state = await cafe_state(bot)
        assert state.players == [str(u) for u in w.users[:4]]
        assert len(state.tables) == 4 and state.out_of_play == []
        await check_table(bot, w.emu.get_message(table.id))
        late = await w.emu.slash(others[3], w.channel, "game join")
        assert "already started" in ephemeral_text(late)

    (tmp_path / "two").mkdir()
    async with world(tmp_path / "two", 2) as w, w.bot_running() as bot:
        table = await open_game(w, GAME)
        state = await cafe_state(bot)
        assert state.players == [str(u) for u in w.users]
        assert len(state.tables) == 3 and state.dummy
        assert "🎭 The table left after both clears is discarded." in (
            w.emu.get_message(table.id).current_text()
        )
        await check_table(bot, w.emu.get_message(table.id))
        # A whole two-player game, dummy tables and all.
        rng, played = Rng(seed=5), Played(refused=set(ALL_KINDS))
        while (await bot.service.load(1)).status == "active":
            await decide(w, bot, rng, played, [])
            await check_table(bot, w.emu.get_message(table.id))
        state = await cafe_state(bot)
        assert state.over and len(final_scores(w)) == 1
        assert played.taps["clear"] == ROUNDS * 2, "each player clears once a round"
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
        assert (await cafe_state(bot)).turn_timeout == 300
        # In the game: the current player draws and seats from the private copy, then the next
        # one clears from theirs, both taps of the clear on that copy (it is updated in place).
        players = []
        for kinds in (("draw", "seat"), ("ask_clear", "clear")):
            user = await current_player(bot)
            status = (await w.emu.slash(user, w.channel, "game status")).message
            assert status is not None and status.ephemeral_to == user
            for kind in kinds:
                control = next(c for c in table_controls(status) if kind_of(c) == kind)
                result = await press(w.emu, user, control)
                assert result.type == 7 and result.ephemeral
                assert result.message is not None and result.message.id == status.id
                await w.settle()
                await check_table(bot, w.emu.get_message(table.id))
                status = w.emu.get_message(status.id)
                players.append(str(user))
        assert [e.player for e in await bot.store.actions(1)] == players
        assert log_types(await bot.store.actions(1)) == ["draw", "seat", "ask_clear", "clear"]
        assert len(set(players)) == 2
