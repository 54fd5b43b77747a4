"""/game stats after a few finished games: the server's leaderboard (of all games; of one game by
rating, a cooperative game by the highest level cleared), one player's record and rating
history, checked against the stored outcomes and ratings."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from bot.adapter.stats import PHONE_WIDTH, columns
from bot.app import CafeBot
from bot.core.seats import ROBOT_LABEL
from games import REGISTRY
from tests.e2e.harness import World, ephemeral_text, open_game, world
from tests.e2e.players import play_to_the_end


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

        # One game: its ratings (all time; no season runs), against the stored ones.
        carnage = await w.emu.slash(dave, w.channel, "game stats", {"game": "cafe-carnage"})
        text = ephemeral_text(carnage)
        assert "ratings in Game Night" in text and "this season" not in text
        rows = board_rows(text)
        rated = await bot.store.rating_board(w.guild, "cafe-carnage", 0)
        assert len(rated) == 4
        for rank, line in enumerate(rated, start=1):
            assert rows[names[line.player]] == [str(rank), f"{line.ordinal:.1f}", str(line.games)]
        expected = await expected_totals(bot, "cafe-carnage")
        assert {line.player: line.games for line in rated} == {p: t[0] for p, t in expected.items()}

        # The cooperative game ranks the highest level each player cleared.
        alien = ephemeral_text(
            await w.emu.slash(alice, w.channel, "game stats", {"game": "alien-cafe"})
        )
        assert "highest levels cleared" in alien and "cooperative" in alien
        finished = await bot.store.sessions_with_status("finished")
        outcome = json.loads(next(r for r in finished if r.game_id == "alien-cafe").outcome or "")
        assert {n: r[1:] for n, r in board_rows(alien).items()} == {
            names[p]: [str(level), "1"] for p, level in outcome["cleared"].items()
        }
        table_won = int(bool(outcome["winners"]))  # a table win counts for each player

        # One player's rating history in a game: each game's change, newest first.
        history = ephemeral_text(
            await w.emu.slash(
                bob, w.channel, "game stats", {"player": carol, "game": "cafe-carnage"}
            )
        )
        mine = await bot.store.rating_history(w.guild, "cafe-carnage", str(carol), 0)
        assert len(mine) == 3
        assert "after 3 rated games" in history
        for change in mine:
            assert f"#{change.session_id} · " in history and f"({change.delta:+.1f})" in history

        # Each final message shows the game's rating changes (Carol's, of her latest game).
        def finals() -> list[str]:
            return [t for t in w.channel_texts() if "Café Carnage — game over" in t]

        await w.emu.wait_until(lambda: len(finals()) == 3, timeout=30)
        latest = mine[0]
        before, after = latest.mu_before - 3 * latest.sigma_before, latest.mu - 3 * latest.sigma
        change = f"rating {before:.1f} → {after:.1f} ({after - before:+.1f})"
        assert re.search(rf"\*\*Carol\*\* — -?\d+( 🏆)? · {re.escape(change)}", finals()[-1])
        alien_final = next(t for t in w.channel_texts() if "Alien Café — game over" in t)
        assert "rating" not in alien_final

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


def block_lines(text: str) -> list[str]:
    """Every line of every code block (a board) of an answer's text."""
    return [
        line for block in re.findall(r"```\n(.*?)```", text, re.S) for line in block.splitlines()
    ]


async def test_boards_with_bot_players_are_aligned_at_phone_width(tmp_path: Path) -> None:
    """Issue: /game stats shifted every 🤖 row by a column (the emoji takes two). Each board is
    one player a line, every line as wide as its heading (numbers in the same columns), none
    wider than a phone shows."""
    async with world(tmp_path, 1) as w, w.bot_running() as bot:
        game = REGISTRY["monster-cafe"]
        await play_to_the_end(w.emu, bot, w.clock, game, w.channel, w.users, seed=3, bots=2)
        await w.settle()
        (alice,) = w.users
        for options in ({}, {"game": "monster-cafe"}):
            text = ephemeral_text(await w.emu.slash(alice, w.channel, "game stats", options))
            lines = block_lines(text)
            # (the rating board rates bot seats by level: both bots are one 🤖 normal row)
            assert any(ROBOT_LABEL in line for line in lines), text
            assert any("Alice" in line for line in lines), text
            assert {columns(line) for line in lines} == {PHONE_WIDTH}, lines


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
