"""/game stats: a server's leaderboard (of one game or of all) and one player's record."""

from __future__ import annotations

import discord

from bot.core.sessions import Leaderboard
from bot.core.store import StatRow
from games import REGISTRY

COFFEE = 0xC8814B
NAME_WIDTH = 14


def _title(game_id: str) -> str:
    return REGISTRY[game_id].title if game_id in REGISTRY else game_id


def _rate(line: StatRow) -> str:
    return f"{round(100 * line.wins / line.games)}%" if line.games else "—"


def _cell(text: str, width: int) -> str:
    return text[:width].ljust(width)


def leaderboard_embed(board: Leaderboard, guild_name: str) -> discord.Embed:
    game = board.game_id
    heading = _title(game) if game is not None else "all games"
    embed = discord.Embed(title=f"📊 Leaderboard — {heading}", colour=COFFEE)
    played = board.finished.get(game, 0) if game is not None else sum(board.finished.values())
    if not board.lines:
        embed.description = (
            f"No finished game of {heading} in {guild_name} yet — `/game new` to play one!"
        )
        return embed
    cooperative = game is not None and any(line.cooperative for line in board.lines)
    wins = "Table wins" if cooperative else "Wins"
    rows = [
        f"{'#':<3}{_cell('Player', NAME_WIDTH)} Games  Wins  Rate"
        + ("  Best   Avg" if game else "")
    ]
    for rank, line in enumerate(board.lines, start=1):
        name = board.names.get(line.key, "?")
        row = f"{rank:<3}{_cell(name, NAME_WIDTH)} {line.games:>5} {line.wins:>5} {_rate(line):>5}"
        if game is not None:
            row += f" {line.best:>5} {line.average:>5.1f}"
        rows.append(row)
    text = "```\n" + "\n".join(rows) + "\n```"
    embed.description = (
        f"{played} finished games in {guild_name}. {wins} first, then win rate.\n{text}"
    )
    if game is None and board.finished:
        embed.add_field(
            name="Games played",
            value="\n".join(
                f"{_title(g)}: {n}"
                for g, n in sorted(board.finished.items(), key=lambda kv: -kv[1])
            )[:1024],
            inline=False,
        )
        embed.set_footer(text="Scores differ from game to game: pick a game for best and average")
    elif cooperative:
        embed.set_footer(text=f"{heading} is cooperative: a win is a table win")
    return embed


def record_embed(
    name: str, lines: list[StatRow], guild_name: str, game: str | None
) -> discord.Embed:
    embed = discord.Embed(title=f"📊 {name}'s record in {guild_name}", colour=COFFEE)
    if not lines:
        where = f"of {_title(game)} " if game else ""
        embed.description = f"{name} hasn't finished a game {where}here yet."
        return embed
    games = sum(line.games for line in lines)
    wins = sum(line.wins for line in lines)
    embed.description = f"**{games}** games, **{wins}** wins ({round(100 * wins / games)}%)."
    for line in lines:
        won = "table wins" if line.cooperative else "wins"
        embed.add_field(
            name=_title(line.key),
            value=(
                f"{line.games} games · {line.wins} {won} ({_rate(line)})\n"
                f"best {line.best} · average {line.average:.1f}"
            ),
            inline=True,
        )
    return embed
