"""Bot players in Discord: three friends play a 5-player game with two bots filling the seats."""

from __future__ import annotations

from pathlib import Path

from bot.adapter.turns import AS_OF_THIS_MOVE
from bot.core.seats import ROBOT_LABEL
from games import REGISTRY
from tests.e2e.harness import controls, ephemeral_text, press, world
from tests.e2e.players import play_to_the_end
from tests.e2e.test_cafe_carnage_e2e import confirm, order

GAME = "cafe-carnage"


async def test_three_friends_and_two_bot_players_play_a_round(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        host, bob, carol = w.users
        emu = w.emu
        table = await (await emu.slash(host, w.channel, "game new", {"game": GAME})).final()
        for user in (bob, carol):
            await emu.click(user, table.id, emu.get_message(table.id).button("Join"))
        refused = await emu.click(bob, table.id, emu.get_message(table.id).button("Add a bot"))
        assert "Only the host can add bot players" in ephemeral_text(refused)
        for _ in range(3):
            await emu.click(host, table.id, emu.get_message(table.id).button("Add a bot"))
        await emu.click(host, table.id, emu.get_message(table.id).button("Remove a bot"))
        await w.settle()
        lobby = emu.get_message(table.id).current_text()
        assert "Players (5/8)" in lobby
        assert "🤖 Biscuit" in lobby and "🤖 Mocha" in lobby and "🤖 Crumble" not in lobby
        await emu.click(host, table.id, emu.get_message(table.id).button("Start"))
        await w.settle()

        s = await bot.service.load(1)
        assert s.player_ids == [str(host), str(bob), str(carol), "bot-1", "bot-2"]
        assert s.state is not None
        # The bots ordered at once; the table waits for the three friends only.
        assert s.game.active_players(s.state) == {str(host), str(bob), str(carol)}
        text = emu.get_message(table.id).current_text()
        assert "🤖 Biscuit" in text and "🤖 Mocha" in text  # labelled as bots on the table
        assert "bot-1" not in text and "<@bot" not in text

        for user in w.users:
            await confirm(w, user, await order(w, user, None))
        await w.settle()
        served = [t for t in w.channel_texts() if "Round 1 — dinner is served" in t]
        assert len(served) == 1
        assert "🤖 Biscuit" in served[0] and "🤖 Mocha" in served[0]
        # Nobody tried to DM, ping or mention a bot seat.
        everything = "\n".join(m.text() for m in emu.all_messages())
        assert "bot-1" not in everything and "bot-2" not in everything
        dm_opens = [
            c for c in emu.rest_calls if c.method == "POST" and c.path == "/users/@me/channels"
        ]
        assert len(dm_opens) == 3
        assert bot.robots.moves_played >= 2 * 4  # two bots: three dishes and a ballot, confirmed


async def test_bot_players_awaited_before_a_restart_move_after_it(tmp_path: Path) -> None:
    async with world(tmp_path, 1) as w:
        (host,) = w.users
        w.bot_player_delay = 60.0  # the first process stops before its bots move
        async with w.bot_running() as bot:
            table = await (await w.emu.slash(host, w.channel, "game new", {"game": GAME})).final()
            for _ in range(2):
                await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Add a bot"))
            await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
            s = await bot.service.load(1)
            assert s.state is not None
            assert s.game.active_players(s.state) == {str(host), "bot-1", "bot-2"}
        w.bot_player_delay = 0.0
        async with w.bot_running() as bot:
            await w.settle()
            s = await bot.service.load(1)
            assert s.state is not None
            assert s.game.active_players(s.state) == {str(host)}  # the bots ordered
            assert bot.robots.moves_played >= 2


async def test_turn_notices_are_for_human_seats_only_and_one_lives_at_a_time(
    tmp_path: Path,
) -> None:
    """Monster Café, one person and two bots, to the end: a bot's turn is never announced, the
    person gets a notice only when their turn comes, one told alone goes when the next comes;
    the thread tells the moves."""
    game = REGISTRY["monster-cafe"]
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        (human,) = w.users
        await play_to_the_end(w.emu, bot, w.clock, game, w.channel, w.users, seed=3, bots=2)
        await w.settle()
        s = await bot.service.load(1)
        assert s.state is not None
        places = {w.channel} | {c.id for c in w.emu.channels.values() if c.parent_id == w.channel}
        every = [m for m in w.emu.all_messages() if m.channel_id in places and not m.ephemeral]
        notices = [
            str(e.get("description"))
            for m in every
            for e in m.versions()[0].get("embeds") or []
            if e.get("title") == "🍽️ Your turn"
        ]
        assert notices, "the person was told when their turn came"
        # No notice for a bot seat: each one names the person, none names a bot.
        name = s.names()[str(human)]
        assert all(name in text and ROBOT_LABEL not in text for text in notices), notices
        # No more notices than the turns that became the person's.
        human_turns = [
            a for a in s.state.announcements if a.kind == "turn" and a.ping == [str(human)]
        ]
        assert (
            len(notices)
            <= len(human_turns)
            < len([a for a in s.state.announcements if a.kind == "turn"])
        )
        # One on its own went when the next came; one told with the moves before it stays as
        # the log's line, saying it is as of that move; none reads as current after the game.
        left = [m for m in w.game_messages() if "🍽️ Your turn" in m.current_text()]
        assert all(AS_OF_THIS_MOVE in m.current_text() for m in left)
        assert all(len(m.embeds) > 1 or "\n" in m.content for m in left), "with its move"
        # ... and is never edited: a turn change costs its post only (the REST budget).
        assert left and all(len(m.versions()) == 1 for m in left)
        # The moves are the thread's log, bots' moves included, in public terms.
        thread = "\n".join(m.current_text() for m in w.game_messages())
        assert "🤖 Biscuit" in thread and ("took" in thread or "seated" in thread)


async def test_the_table_is_not_clickable_while_a_bot_player_is_awaited(tmp_path: Path) -> None:
    """Issue 29: during a bot's turn the table offered "Seat at A/B/C" buttons that only
    answered "It's not your move right now"."""
    async with world(tmp_path, 1) as w:
        (host,) = w.users
        w.bot_player_delay = 60.0  # the bots think for long: the table is seen meanwhile
        async with w.bot_running() as bot:
            table = await (
                await w.emu.slash(host, w.channel, "game new", {"game": "monster-cafe"})
            ).final()
            for _ in range(2):
                await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Add a bot"))
            await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
            await bot.tables.idle()
            for _ in range(20):  # the person plays until a bot's turn comes
                s = await bot.service.load(1)
                assert s.state is not None
                (awaited,) = s.game.active_players(s.state)
                if awaited != str(host):
                    break
                offered = controls(w.emu.get_message(table.id), 1, "t")
                assert offered, "the person's turn: the table offers their moves"
                await press(w.emu, host, offered[0])
                await bot.tables.idle()
            shown = w.emu.get_message(table.id)
            assert awaited.startswith("bot-")
            assert controls(shown, 1, "t") == [], "no game control is live during a bot's turn"
            assert any(cid and cid.startswith("cb:g:1:t:") for _, cid, _ in shown.buttons())
            assert "Waiting for" in shown.current_text() and ROBOT_LABEL in shown.current_text()


async def test_the_table_picture_names_the_players(tmp_path: Path) -> None:
    """Issue 29: pictures said "Player 1 / Player 2" instead of names."""
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        (host,) = w.users
        table = await (
            await w.emu.slash(host, w.channel, "game new", {"game": "monster-cafe"})
        ).final()
        await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Add a bot"))
        await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
        await w.settle()
        names = (await bot.service.load(1)).names()
        shown = w.emu.get_message(table.id)
        (attachment,) = [a for a in shown.attachments if a["filename"] == "monster-cafe.png"]
        alt = attachment.get("description") or ""
        assert names[str(host)] in alt and "🤖 Biscuit" in alt and "{p:" not in alt
