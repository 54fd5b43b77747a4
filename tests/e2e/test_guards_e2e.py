"""Guards that only a hostile client or an unlucky moment reaches, through Discord: a click
carrying another seat's controls, a forged confirmation of an abandon, an undo after a later
move revealed something, and a post whose first try Discord processed but answered with an
error (the outbox's own retry must carry the same nonce, so Discord shows it once)."""

from __future__ import annotations

import asyncio
import collections
import re
from pathlib import Path

from emulator import DiscordEmulator
from games.presentation import Announcement
from tests.e2e.harness import (
    controls,
    ephemeral_text,
    game_messages,
    open_game,
    press,
    state_of,
    world,
)


async def test_a_click_with_another_seats_controls_is_refused(tmp_path: Path) -> None:
    """A modified client sends, as Alice, a control of Bob's private copy of his panel (from
    /game hand: his seat number in its custom_id): refused, nothing moves, and the answer
    shows nothing of Bob's panel."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, _ = w.users
        await open_game(w, "cafe-carnage")
        s = await bot.service.load(1)
        seat = {p.user_id: p.seat for p in s.players}
        hand = await w.emu.slash(bob, w.channel, "game hand", {})
        assert hand.ephemeral and hand.message is not None
        copy = w.emu.get_message(hand.message.id)
        mine = controls(copy, 1, str(seat[str(bob)]))
        his = [c for c in mine if not c.label.startswith("Confirm")]
        assert his, "Bob's copy offers his picks"
        before = await state_of(bot)
        log = await bot.store.actions(1)

        for pick in his[:3]:
            forged = await w.emu.forge_component(alice, copy.id, pick.custom_id, skip_checks=True)
            text = ephemeral_text(forged)
            assert "Those controls belong to another player" in text, text
            assert pick.label not in text
        await w.settle()
        assert await state_of(bot) == before
        assert await bot.store.actions(1) == log

        # Bob's own click on it is played: the forged ones failed only on the seat.
        await press(w.emu, bob, his[0])
        await w.settle()
        assert len(await bot.store.actions(1)) == len(log) + 1


async def test_a_forged_abandon_confirmation_from_a_player_is_refused(tmp_path: Path) -> None:
    """Only /game abandon checks who asks before it offers "Yes, abandon it" (to the host,
    privately); a modified client can send that button's click as another player. The service
    refuses it for anyone but the host (or someone with Manage Channels): the game goes on."""
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        host, bob = w.users
        await open_game(w, "monster-cafe")
        ask = await w.emu.slash(host, w.channel, "game abandon", {})
        assert ask.ephemeral and ask.message is not None
        yes = ask.message.button("Yes, abandon it")
        forged = await w.emu.forge_component(bob, ask.message.id, yes, skip_checks=True)
        assert "Only the host or someone with Manage Channels" in ephemeral_text(forged)
        await w.settle()
        s = await bot.service.load(1)
        assert s.status.is_open
        assert not any("abandoned" in t for t in w.channel_texts())


async def test_an_undo_after_another_players_revealing_move_is_refused(tmp_path: Path) -> None:
    """Cube Café: Alice moves on her own board (free to take back), then Bob ends his turn
    (Done: a move that can't be taken back). Alice's undo, though nothing of Bob's depends on
    her move, is refused: a move since revealed something."""
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        alice, bob = w.users
        await open_game(w, "cube-cafe")
        (first, *_) = [c for c in controls(w.latest_dm(alice), 1) if not c.label.startswith("Done")]
        await press(w.emu, alice, first)
        await w.settle()
        (done,) = [c for c in controls(w.latest_dm(bob), 1) if c.label.startswith("Done")]
        await press(w.emu, bob, done)
        await w.settle()
        before = await state_of(bot)
        assert before.round == 1, "precondition: Bob's Done alone does not end the round"
        log = await bot.store.actions(1)

        refused = await w.emu.slash(alice, w.channel, "game undo", {})
        text = ephemeral_text(refused)
        assert "Too late" in text and "revealed something" in text, text
        await w.settle()
        assert await state_of(bot) == before
        assert await bot.store.actions(1) == log


async def test_a_post_discord_processed_but_failed_is_shown_once(tmp_path: Path) -> None:
    """A post reaches Discord, which creates the message but answers 503 (discord.py does not
    retry that one itself). The outbox tries again later, with the same nonce: Discord answers
    with the message it made, and players see it once."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        posting = re.compile(rf"/channels/({w.channel}|{table.id})/messages$")
        w.emu.inject_fault("POST", posting, status=503, processed=True, times=1)
        rounds = 0
        while not any(p.attempts for p in await bot.store.posts(1)):
            s = await bot.service.load(1)
            assert s.state is not None and rounds < 200, "no post was tried"
            (current,) = s.game.active_players(s.state)
            await press(w.emu, int(current), controls(w.table_message(), 1, "t")[0])
            await w.settle()
            rounds += 1
        w.clock.advance(60)  # the outbox's backoff, on the bot's clock
        for _ in range(300):  # bounded: the retry loop wakes at least every 5 s
            if all(p.sent_at is not None for p in await bot.store.posts(1)):
                break
            await asyncio.sleep(0.1)
        posts = await bot.store.posts(1)
        assert all(p.sent_at is not None and p.message_id for p in posts)
        assert max(p.attempts for p in posts) >= 1, "the outbox itself retried"
        assert w.emu.nonce_duplicates, "Discord answered the retry with the message it made"
        s = await bot.service.load(1)
        assert s.state is not None
        assert_announced_once(w.emu, w.channel, s.row.table_message_id, s.state.announcements)
        ids = [m.id for m in game_messages(w.emu, w.channel)]
        # (or deleted since: an old turn notice posted on its own)
        gone = {m.id for m in w.emu.all_messages() if m.deleted}
        assert {p.message_id for p in posts} <= set(ids) | gone


async def test_only_the_games_players_answer_an_undo_request(tmp_path: Path) -> None:
    """An undo request is posted where everyone can click it: a bystander's Object (or
    Agree) is refused and the request still stands; the players' answers settle it."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, carol = w.users
        table = await w.emu.slash(alice, w.channel, "game new", {"game": "monster-cafe"})
        lobby = await table.final()
        await w.emu.click(bob, lobby.id, w.emu.get_message(lobby.id).button("Join"))
        await w.emu.click(alice, lobby.id, w.emu.get_message(lobby.id).button("Start"))
        await w.settle()
        for label in ("Draw a monster", "Seat at"):
            (control, *_) = [
                c for c in controls(w.table_message(), 1, "t") if c.label.startswith(label)
            ]
            await press(w.emu, alice, control)
            await w.settle()
        seated = await state_of(bot)
        await w.emu.slash(alice, w.channel, "game undo", {})
        await w.settle()
        (request,) = [m for m in w.game_messages() if "asks to take back" in m.current_text()]
        for label in ("Object", "Agree"):
            refused = await w.emu.click(carol, request.id, request.button(label))
            assert "Only the players of this game decide" in ephemeral_text(refused)
        await w.settle()
        assert await bot.store.undo_request(1) is not None, "the request stands"
        assert await state_of(bot) == seated
        assert "objected" not in w.emu.get_message(request.id).current_text()


async def test_the_host_cannot_leave_their_own_lobby(tmp_path: Path) -> None:
    """A lobby without its host could never start: the host is told to abandon it instead."""
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        host, bob = w.users
        lobby = await (
            await w.emu.slash(host, w.channel, "game new", {"game": "monster-cafe"})
        ).final()
        await w.emu.click(bob, lobby.id, w.emu.get_message(lobby.id).button("Join"))
        left = await w.emu.click(host, lobby.id, w.emu.get_message(lobby.id).button("Leave"))
        assert "You're the host" in ephemeral_text(left)
        s = await bot.service.load(1)
        assert s.player_ids == [str(host), str(bob)]
        started = await w.emu.click(host, lobby.id, w.emu.get_message(lobby.id).button("Start"))
        assert not started.ephemeral, "the host still starts it"


async def test_a_failed_post_is_not_overtaken_by_later_ones(tmp_path: Path) -> None:
    """Posts pile up while the channel refuses them (503); when it is back, the oldest one's
    first try fails again: it holds back the posts after it, and they appear in the order the
    moves made them."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        posting = re.compile(rf"/channels/({w.channel}|{table.id})/messages$")
        outage = w.emu.inject_fault("POST", posting, status=503, times=None)
        rounds = 0
        while len([p for p in await bot.store.posts(1) if p.sent_at is None]) < 3:
            s = await bot.service.load(1)
            assert s.state is not None and rounds < 300, "fewer than 3 posts in a game"
            (current,) = s.game.active_players(s.state)
            await press(w.emu, int(current), controls(w.table_message(), 1, "t")[0])
            await w.settle()
            rounds += 1
        outage.remove()
        w.emu.inject_fault("POST", posting, status=503, times=1)
        w.clock.advance(600)  # the outbox's backoff, on the bot's clock
        for _ in range(300):  # bounded: the retry loop wakes at least every 5 s
            if all(p.sent_at is not None for p in await bot.store.posts(1)):
                break
            await asyncio.sleep(0.1)
        posts = sorted(await bot.store.posts(1), key=lambda p: p.id)
        assert all(p.sent_at is not None and p.message_id for p in posts)
        shown = [p.message_id or 0 for p in posts]
        assert shown == sorted(shown), "every post appears after the ones made before it"
        assert len(set(shown)) > 1, "precondition: more than one message was held back"


async def test_a_post_rate_limited_past_discord_pys_retries_is_sent_later(tmp_path: Path) -> None:
    """discord.py waits out a 429 and tries again, five times; then it raises. The outbox
    takes that as "later" (not as a refusal): the post is sent by its own retry, once."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "monster-cafe")
        posting = re.compile(rf"/channels/({w.channel}|{table.id})/messages$")
        w.emu.inject_fault("POST", posting, status=429, retry_after=0.01, times=5)
        rounds = 0
        while not any(p.attempts for p in await bot.store.posts(1)):
            s = await bot.service.load(1)
            assert s.state is not None and rounds < 300, "no post was tried"
            (current,) = s.game.active_players(s.state)
            await press(w.emu, int(current), controls(w.table_message(), 1, "t")[0])
            await w.settle()
            rounds += 1
        w.clock.advance(60)  # the outbox's backoff, on the bot's clock
        for _ in range(300):  # bounded: the retry loop wakes at least every 5 s
            if all(p.sent_at is not None for p in await bot.store.posts(1)):
                break
            await asyncio.sleep(0.1)
        posts = await bot.store.posts(1)
        assert all(p.sent_at is not None and p.message_id for p in posts)
        s = await bot.service.load(1)
        assert s.state is not None
        assert_announced_once(w.emu, w.channel, s.row.table_message_id, s.state.announcements)


async def test_a_move_played_when_time_ran_out_cannot_be_taken_back(tmp_path: Path) -> None:
    """The deadline played for an absent player: that move stands, whatever the game's undo
    rules say of the move itself."""
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        await open_game(w, "monster-cafe")
        deadline = await bot.service.deadline(1)
        assert deadline is not None
        w.clock.advance(deadline.due_at - w.clock() + 1)
        await w.fire_timers()
        log = await bot.store.actions(1)
        (player, *_) = [a.player for a in reversed(log) if a.source == "timeout"]
        assert [a for a in log if a.player == player][-1].source == "timeout"
        before = await state_of(bot)
        refused = await w.emu.slash(int(player), w.channel, "game undo", {})
        assert "played for you when time ran out" in ephemeral_text(refused)
        await w.settle()
        assert await state_of(bot) == before
        assert await bot.store.actions(1) == log


async def test_stats_count_only_this_servers_games(tmp_path: Path) -> None:
    """Alice plays in two servers: each server's /game stats counts its own games only."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice = w.users[0]
        await open_game(w, "cafe-carnage")
        await w.finish_by_deadlines(1)
        other = w.emu.add_guild("Other Night")
        w.channel = w.emu.add_text_channel(other, "cafe")
        dave = w.emu.add_user("dave", guild=other)
        erin = w.emu.add_user("erin", guild=other)
        w.emu.add_member(other, alice)
        w.users = [alice, dave, erin]
        await open_game(w, "cafe-carnage")
        s = await bot.service.open_in_channel(w.channel)
        assert s is not None
        await w.finish_by_deadlines(s.id)

        board = ephemeral_text(await w.emu.slash(dave, w.channel, "game stats", {}))
        assert "dave" in board.lower() and "erin" in board.lower()
        assert "bob" not in board.lower() and "carol" not in board.lower(), board


def assert_announced_once(
    emu: DiscordEmulator, channel: int, table_id: int | None, announcements: list[Announcement]
) -> None:
    """Each announcement is shown once; a "whose turn" notice posted on its own goes when the
    next comes (one told with its move stays as its line), so turn notices are never shown more
    often than they were told."""
    shown = [e["title"] for m in game_messages(emu, channel) if m.id != table_id for e in m.embeds]
    turns = {a.title for a in announcements if a.kind == "turn"}
    expected = [a.title for a in announcements if a.kind != "turn"]
    assert collections.Counter(t for t in shown if t not in turns) == collections.Counter(expected)
    told = [a for a in announcements if a.kind == "turn"]
    assert len([t for t in shown if t in turns]) <= len(told), "none shown twice"
