"""/game mine: every game I am seated in, across servers, those waiting for me first, in a DM
too; and "you have N other games waiting for you" in my DMs and /game hand."""

from __future__ import annotations

import re
from pathlib import Path

from emulator import Message
from tests.e2e.harness import World, ephemeral_text, world


async def open_in(w: World, channel: int, game: str, users: list[int], start: bool) -> Message:
    host, *others = users
    table = await (await w.emu.slash(host, channel, "game new", {"game": game})).final()
    for user in others:
        await w.emu.click(user, table.id, w.emu.get_message(table.id).button("Join"))
    if start:
        await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
    await w.settle()
    return w.emu.get_message(table.id)


async def test_my_games_across_two_servers_and_in_a_dm(tmp_path: Path) -> None:
    async with world(tmp_path, players=3) as w:
        alice, bob, carol = w.users
        club = w.emu.add_guild("Board Club")
        lounge = w.emu.add_text_channel(club, "lounge")
        den = w.emu.add_text_channel(club, "den")
        for user in (alice, bob):
            w.emu.add_member(club, user)
        lobby_channel = w.emu.add_text_channel(w.guild, "lobby")
        async with w.bot_running() as bot:
            monster = await open_in(w, lounge, "monster-cafe", [alice, bob], start=True)
            cube = await open_in(w, den, "cube-cafe", [bob, alice], start=True)
            lobby = await open_in(w, lobby_channel, "alien-cafe", [bob, alice], start=False)
            carnage = await open_in(w, w.channel, "cafe-carnage", [alice, bob, carol], start=True)
            s_monster = await bot.service.load(1)
            assert s_monster.state is not None
            assert s_monster.game.active_players(s_monster.state) == {str(alice)}, (
                "precondition: Alice opens Monster Café (the world's seed)"
            )

            dm = w.emu.open_dm(alice)
            mine = await w.emu.slash(alice, dm, "game mine", {})
            text = ephemeral_text(mine)
            assert mine.message is not None
            fields = mine.message.embeds[0]["fields"]
            titles = [f["name"] for f in fields]
            assert len(titles) == 4, titles
            # The three tables waiting for Alice first (by deadline), the lobby last.
            assert all(t.startswith("👉") for t in titles[:3]) and "Alien Café" in titles[3]
            assert {t.split(" · ")[0] for t in titles[:3]} == {
                "👉 Monster Café",
                "👉 Cube Café",
                "👉 Café Carnage",
            }
            assert "3 waiting for you" in text
            for table, guild, channel in (
                (monster, club, lounge),
                (cube, club, den),
                (lobby, w.guild, lobby_channel),
                (carnage, w.guild, w.channel),
            ):
                link = f"https://discord.com/channels/{guild}/{channel}/{table.id}"
                assert link in text, f"no jump link to {table.id}"
            assert "#lounge in Board Club" in text and "#cafe in Game Night" in text
            assert "lobby — 2/4 seated" in fields[3]["value"]
            assert "Time runs out <t:" not in fields[3]["value"], "a lobby has no deadline"
            deadlines = [int(m) for m in re.findall(r"<t:(\d+):R>", text)]
            assert len(deadlines) == 3 and deadlines == sorted(deadlines)
            assert "Your move" in fields[0]["value"]

            # Bob's view: Monster Café waits for Alice, not for him.
            bobs = await w.emu.slash(bob, w.channel, "game mine", {})
            assert bobs.message is not None
            monster_field = next(
                f for f in bobs.message.embeds[0]["fields"] if "Monster Café" in f["name"]
            )
            assert not monster_field["name"].startswith("👉")
            assert "Waiting for Alice" in monster_field["value"]

            # Alice's newest DM (Café Carnage's menu) and /game hand say how many others wait.
            carnage_dm = w.latest_dm(alice)
            assert "2 other games waiting for you" in carnage_dm.current_text()
            hand = await w.emu.slash(alice, w.channel, "game hand", {})
            assert "You have 2 other games waiting for you" in ephemeral_text(hand)
            carol_hand = await w.emu.slash(carol, w.channel, "game hand", {})
            assert "waiting for you" not in ephemeral_text(carol_hand), "Carol has no other game"

            # Commands that need a channel say so in a DM, and change nothing.
            refused = await w.emu.slash(alice, dm, "game history", {})
            assert "works in a server channel" in ephemeral_text(refused)
            rules = await w.emu.slash(alice, dm, "game rules", {"game": "cube-cafe"})
            assert "Cube Café" in ephemeral_text(rules)


async def test_nobody_seated_anywhere_is_told_how_to_start(tmp_path: Path) -> None:
    async with world(tmp_path, players=1) as w, w.bot_running():
        dm = w.emu.open_dm(w.users[0])
        text = ephemeral_text(await w.emu.slash(w.users[0], dm, "game mine", {}))
        assert "not seated at any game" in text and "/game new" in text
