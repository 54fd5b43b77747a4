"""/game stats after a few finished games: the server's leaderboard (of all games, of one game,
cooperative games counting table wins) and one player's record, checked against the stored
outcomes."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from bot.app import CafeBot
from tests.e2e.harness import World, ephemeral_text, open_game, world


async def expected_totals(bot: CafeBot, game_id: str | None = None) -> dict[str, list[int]]:
    """Per player, from the stored outcomes: [games, wins, best, sum of scores]."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, -(10**9), 0])
    for row in await bot.store.sessions_with_status("finished"):
        if game_id is not None and row.game_id != game_id:
            continue
        outcome = json.loads(row.outcome or "{}")
        for player, score in outcome["scores"].items():
            t = totals[player]
            t[0] += 1
            t[1] += player in outcome["winners"]
            t[2] = max(t[2], score)
            t[3] += score
    return dict(totals)


def board_rows(text: str) -> dict[str, list[str]]:
    """The leaderboard's rows by player name: [rank, games, wins, rate, (best, avg)]."""
    rows: dict[str, list[str]] = {}
    (block,) = re.findall(r"```\n(.*?)```", text, re.S)
    for line in block.splitlines():
        m = re.match(r"^(\d+)\s+(\S+)\s+(.*)$", line)
        if m:
            rows[m.group(2)] = [m.group(1), *m.group(3).split()]
    return rows


async def finish_game(w: World, game: str, users: list[int]) -> None:
    w.users = users
    await open_game(w, game)
    s = await w.running.service.open_in_channel(w.channel)
    assert s is not None
    await w.finish_by_deadlines(s.id)


async def test_stats_after_a_few_finished_games(tmp_path: Path) -> None:
    async with world(tmp_path, players=4) as w, w.bot_running() as bot:
        alice, bob, carol, dave = w.users
        names = {str(alice): "Alice", str(bob): "Bob", str(carol): "Carol", str(dave): "Dave"}
        empty = await w.emu.slash(alice, w.channel, "game stats", {})
        assert "No finished game" in ephemeral_text(empty)

        await finish_game(w, "cafe-carnage", [alice, bob, carol])
        await finish_game(w, "cafe-carnage", [bob, carol, dave])
        await finish_game(w, "cafe-carnage", [alice, carol, dave])
        await finish_game(w, "alien-cafe", [alice, bob])
        assert len(await bot.store.sessions_with_status("finished")) == 4

        # One game: every column against the stored outcomes.
        carnage = await w.emu.slash(dave, w.channel, "game stats", {"game": "cafe-carnage"})
        text = ephemeral_text(carnage)
        assert "3 finished games" in text
        rows = board_rows(text)
        expected = await expected_totals(bot, "cafe-carnage")
        assert set(rows) == {names[p] for p in expected}
        for player, (games, wins, best, total) in expected.items():
            row = rows[names[player]]
            assert row[1:] == [
                str(games),
                str(wins),
                f"{round(100 * wins / games)}%",
                str(best),
                f"{total / games:.1f}",
            ], (names[player], row)
        ranked = sorted(expected.items(), key=lambda kv: (-kv[1][1], -kv[1][1] / kv[1][0]))
        assert rows[names[ranked[0][0]]][0] == "1", "most wins first"

        # The cooperative game counts the table's result for each player.
        alien = ephemeral_text(
            await w.emu.slash(alice, w.channel, "game stats", {"game": "alien-cafe"})
        )
        table = await expected_totals(bot, "alien-cafe")
        assert set(board_rows(alien)) == {"Alice", "Bob"}
        table_won = table[str(alice)][1]
        assert table[str(bob)][1] == table_won
        assert board_rows(alien)["Bob"][2] == str(table_won)
        assert "Table wins first" in alien and "cooperative" in alien

        # All games: games and wins per player, and how many of each game were played.
        everything = ephemeral_text(await w.emu.slash(bob, w.channel, "game stats", {}))
        overall = await expected_totals(bot)
        for player, (games, wins, _, _) in overall.items():
            assert board_rows(everything)[names[player]][1:3] == [str(games), str(wins)]
        assert "Café Carnage: 3" in everything and "Alien Café: 1" in everything

        # One player's record, per game.
        record = await w.emu.slash(bob, w.channel, "game stats", {"player": alice})
        assert record.message is not None
        embed = record.message.embeds[0]
        assert embed["title"].startswith("📊 Alice's record")
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        games, wins, best, total = (await expected_totals(bot, "cafe-carnage"))[str(alice)]
        assert fields["Café Carnage"].startswith(f"{games} games · {wins} wins")
        assert f"best {best} · average {total / games:.1f}" in fields["Café Carnage"]
        assert fields["Alien Café"].startswith(f"1 games · {table_won} table wins")
        only = await w.emu.slash(
            bob, w.channel, "game stats", {"player": dave, "game": "alien-cafe"}
        )
        assert "Dave hasn't finished a game of Alien Café" in ephemeral_text(only)


async def test_stats_of_a_player_discord_did_not_resolve(tmp_path: Path) -> None:
    """A user option can arrive without Discord's resolved user data (an id the client did not
    resolve): the record is still answered, named as in the player's games, else by id."""
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, carol = w.users
        await finish_game(w, "cafe-carnage", [alice, bob, carol])
        stranger = 123456789012345678  # in no guild the bot sees, never played
        for who, title in [
            (carol, "📊 Carol's record"),
            (stranger, f"📊 User {stranger}'s record"),
        ]:
            option = [{"name": "player", "type": 6, "value": str(who)}]
            result = await w.emu.forge_slash(alice, w.channel, "game stats", option)
            assert result.ephemeral and result.message is not None
            embed = result.message.embeds[0]
            assert embed["title"].startswith(title), embed
        games = (await expected_totals(bot, "cafe-carnage"))[str(carol)][0]
        option = [{"name": "player", "type": 6, "value": str(carol)}]
        result = await w.emu.forge_slash(bob, w.channel, "game stats", option)
        assert result.message is not None
        assert result.message.embeds[0]["fields"][0]["value"].startswith(f"{games} games")
