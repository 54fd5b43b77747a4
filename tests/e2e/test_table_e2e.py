"""Around the table, for every game: the host may go on without an absent player where a game
allows it, an abandoned game closes every DM, /game status shows how the last game ended, and
the rules come in pages (/game help, /game rules, the lobby's How to play)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from discord import app_commands

from bot.core.store import SessionStatus
from games import REGISTRY
from games.alien_cafe.state import AlienCafeState
from tests.e2e.harness import controls, ephemeral_text, open_game, press, state_of, world

GAME_CC = "cafe-carnage"


async def test_the_host_goes_on_without_an_absent_player_at_a_level_pick(tmp_path: Path) -> None:
    """Issue: one absent player froze Alien Café's level pick (24 h) and the host could not
    go on. The pick is short by default and the host may end it: the absent player keeps
    their level, as at the deadline."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "alien-cafe")
        host, present, absent = w.users
        for user in (host, present):
            dm = w.latest_dm(user)
            (keep,) = [c for c in controls(dm, 1) if c.label.startswith("Keep level")]
            await press(w.emu, user, keep)
            await w.settle()
        state: AlienCafeState = await state_of(bot)
        assert state.phase == "levels" and not state.seats[str(absent)].ready
        table = w.emu.get_message(table.id)
        skip = table.button("Go on without them")
        refused = await w.emu.click(present, table.id, skip)
        assert "Only the host" in ephemeral_text(refused)
        assert (await state_of(bot)).phase == "levels"
        await w.emu.click(host, table.id, skip)
        await w.settle()
        state = await state_of(bot)
        assert state.phase == "service", "the service started without waiting"
        assert state.seats[str(absent)].level == 0
        log = await bot.store.actions(1)
        assert log[-1].source == "timeout" and log[-1].player == str(absent)
        assert "Go on without them" not in [b[0] for b in w.emu.get_message(table.id).buttons()]


async def test_abandon_closes_every_dm_and_status_shows_the_last_game(tmp_path: Path) -> None:
    """Issue: after an abandon, Bob's DM still had working menus, and /game status said there
    was no game."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        await open_game(w, "cafe-carnage")
        dms = {u: w.latest_dm(u) for u in w.users}
        ask = await w.emu.slash(w.users[0], w.channel, "game abandon", {})
        assert ask.message is not None
        await w.emu.click(w.users[0], ask.message.id, ask.message.button("Yes, abandon it"))
        await w.settle()
        row = await bot.store.get_session(1)
        assert row is not None and row.status is SessionStatus.ABANDONED
        for user, dm in dms.items():
            now = w.emu.get_message(dm.id)
            assert "abandoned" in now.current_text(), user
            assert now.buttons() == [] and now.selects() == [], "no controls left"
        status = await w.emu.slash(w.users[1], w.channel, "game status", {})
        text = ephemeral_text(status)
        assert "Abandoned" in text and "Café Carnage" in text


async def test_the_rules_come_in_pages(tmp_path: Path) -> None:
    """Issue: the rules were one 2,700-character block; a lobby had no "How to play"."""
    async with world(tmp_path, players=2) as w, w.bot_running():
        for game in REGISTRY.values():
            rules = await w.emu.slash(w.users[0], w.channel, "game rules", {"game": game.id})
            first = ephemeral_text(rules)
            assert rules.message is not None
            title = rules.message.embeds[0]["title"]
            assert title.count(game.title) == 1, f"the first page's title repeats: {title}"
            pages = int(rules.message.embeds[0]["footer"]["text"].split("/")[1].split(" ")[0])
            assert pages >= 2, f"{game.id}'s rules are one block"
            assert len(first) < 2000
            seen = [first]
            message = rules.message
            for _ in range(pages - 1):
                turned = await w.emu.click(w.users[0], message.id, message.button("Next"))
                assert turned.type == 7, "a page turns in place"
                message = w.emu.get_message(message.id)
                seen.append(message.current_text())
            assert len(set(seen)) == pages
            assert f"Page {pages}/{pages}" in seen[-1]
            assert [d for label, _, d in message.buttons() if label == "Next"] == [True]
        lobby = await (
            await w.emu.slash(w.users[0], w.channel, "game new", {"game": "monster-cafe"})
        ).final()
        how = await w.emu.click(w.users[1], lobby.id, lobby.button("How to play"))
        assert "Monster Café" in ephemeral_text(how) and "Page 1/" in ephemeral_text(how)
        overview = await w.emu.slash(w.users[1], w.channel, "game help", {})
        assert all(g.title in ephemeral_text(overview) for g in REGISTRY.values())
        # Every command is listed.
        group = w.running.tree.get_command("game")
        assert isinstance(group, app_commands.Group)
        for command in group.commands:
            assert re.search(f"/game {command.name}(?![a-z])", ephemeral_text(overview)), (
                command.name
            )


async def test_quick_moves_share_one_post_in_the_thread(tmp_path: Path) -> None:
    """Issue 15: every public move was a message of its own (Breakfast vs Aliens: 69 posts in
    85 clicks). Moves made while a post waits (a game that posted a moment ago) join it; of
    the "whose turn" notices only the newest is shown and pings."""
    async with world(tmp_path, players=3) as w:
        w.post_coalesce_interval = 3.0
        async with w.bot_running() as bot:
            table = await open_game(w, "breakfast-vs-aliens")
            before = {m.id for m in w.game_messages()}
            game = (await bot.service.load(1)).game
            moves = 0
            for _ in range(6):  # moves that post (a draw, whose turn) within a hold join it
                state = await state_of(bot)
                user = int(sorted(game.active_players(state))[0])
                offered = controls(w.emu.get_message(table.id), 1, "t")
                await press(w.emu, user, offered[0])
                moves += 1
            await w.settle()
            posts = await bot.store.posts(1)
            new = [m for m in w.game_messages() if m.id not in before]
            moves_in = {m.id: {p.created_at for p in posts if p.message_id == m.id} for m in new}
            assert max(len(v) for v in moves_in.values()) > 1, "no message joined several moves"
            assert len(new) < moves, f"{len(new)} messages for {moves} moves"
            for message in new:
                titles = [e.get("title", "") for e in message.embeds]
                assert sum("Your turn" in t for t in titles) <= 1, titles
                assert message.content.count("<@") <= 2, "pings only whose input is needed"
            assert all(p.sent_at is not None for p in posts)


@pytest.mark.heavy
async def test_a_hanging_discord_request_does_not_hold_up_other_games(tmp_path: Path) -> None:
    """Four sessions at a time are brought up to date (a burst of round ends must not queue
    ahead of the clicks); a sync whose request hangs keeps its slot, but another game's sync
    waits for a slot only a moment: it goes while the hung requests are still pending."""
    async with world(tmp_path, players=3) as w, w.bot_running():
        emu, host, *others = w.emu, *w.users
        dms = [emu.open_dm(u) for u in w.users]  # every message sent by DM hangs 15 s
        hang = "|".join(f"/channels/{dm}/messages$" for dm in dms)
        emu.inject_fault("POST", re.compile(hang), delay=15.0, times=None)
        channels = [emu.add_text_channel(w.guild, f"carnage-{i}") for i in range(5)]
        for channel in channels:  # each start sends three DMs, which hang
            table = await (await emu.slash(host, channel, "game new", {"game": GAME_CC})).final()
            for user in others:
                await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
            await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
        quick = emu.add_text_channel(w.guild, "monster")
        table = await (await emu.slash(host, quick, "game new", {"game": "monster-cafe"})).final()
        await emu.click(others[0], table.id, emu.get_message(table.id).button("Join"))
        await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
        # Monster Café's thread and its first post come from the sync worker.
        await emu.wait_until(lambda: emu.channel_messages(table.id), timeout=8)
        assert not any(emu.dm_messages(u) for u in w.users), "the DMs are still hanging"
        emu.clear_faults()
