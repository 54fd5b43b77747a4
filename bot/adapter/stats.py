"""/game stats: a server's leaderboard (of all games; of one: by rating, or a cooperative game's
highest levels cleared, this season and all time) and one player's record (in one game: their
rating history)."""

from __future__ import annotations

import unicodedata
from typing import Any

import discord

from bot.core.sessions import Leaderboard, RatingBoard, RatingHistory
from bot.core.store import LevelLine, RatingLine, StatRow
from games import REGISTRY

COFFEE = 0xC8814B
# The boards are code blocks: one player a line, in columns a phone shows without wrapping.
PHONE_WIDTH = 36


def _title(game_id: str) -> str:
    return REGISTRY[game_id].title if game_id in REGISTRY else game_id


def _rate(line: StatRow) -> str:
    return f"{round(100 * line.wins / line.games)}%" if line.games else "—"


def columns(text: str) -> int:
    """How many monospace columns ``text`` takes: an emoji (🤖) takes two, a joiner or a
    variation selector none (so a bot's row is not a column off)."""
    return sum(
        0
        if unicodedata.category(c) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(c) in ("W", "F")
        else 1
        for c in text
    )


def _cell(text: str, width: int) -> str:
    """``text`` in exactly ``width`` columns: cut (with …) or padded."""
    if columns(text) > width:
        while text and columns(text) + 1 > width:
            text = text[:-1]
        text = text.rstrip() + "…"
    return text + " " * (width - columns(text))


def _rank(lines: list[Any]) -> int:
    """The rank column's width: the longest rank and a space."""
    return len(str(len(lines))) + 1


def _name_width(rank: int, numbers: str) -> int:
    """The name column gets what the rank and the numbers leave of a phone's width."""
    return PHONE_WIDTH - rank - len(numbers)


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
    # A game's board drops the win rate (its order says it) to fit best and average.
    r = _rank(board.lines)
    head = " Games Wins" + (" Best   Avg" if game is not None else " Rate")
    width = _name_width(r, head)
    rows = [f"{'#':<{r}}{_cell('Player', width)}{head}"]
    for rank, line in enumerate(board.lines, start=1):
        name = board.names.get(line.key, "?")
        row = f"{rank:<{r}}{_cell(name, width)} {line.games:>5} {line.wins:>4}"
        if game is not None:
            row += f" {line.best:>4} {line.average:>5.1f}"
        else:
            row += f" {_rate(line):>4}"
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


def _board_rows(board: RatingBoard, lines: list[RatingLine] | list[LevelLine]) -> str:
    r = _rank(lines)
    if board.cooperative:
        width = _name_width(r, " Level Games")
        rows = [f"{'#':<{r}}{_cell('Player', width)} Level Games"]
        for rank, line in enumerate(lines, start=1):
            assert isinstance(line, LevelLine)
            name = board.names.get(line.player, "?")
            rows.append(f"{rank:<{r}}{_cell(name, width)} {line.level:>5} {line.games:>5}")
    else:
        width = _name_width(r, " Rating Games")
        rows = [f"{'#':<{r}}{_cell('Player', width)} Rating Games"]
        for rank, line in enumerate(lines, start=1):
            assert isinstance(line, RatingLine)
            name = board.names.get(line.player, "?")
            rows.append(f"{rank:<{r}}{_cell(name, width)} {line.ordinal:>6.1f} {line.games:>5}")
    return "```\n" + "\n".join(rows) + "\n```"


def rating_board_embed(board: RatingBoard, guild_name: str) -> discord.Embed:
    """A game's board: by rating (the season's, then all time), or by highest level cleared."""
    title = _title(board.game_id)
    embed = discord.Embed(title=f"📊 {title} — ratings in {guild_name}", colour=COFFEE)
    if board.cooperative:
        embed.title = f"📊 {title} — highest levels cleared in {guild_name}"
    if board.season is not None:
        value = (
            _board_rows(board, board.season_lines)
            if board.season_lines
            else "Nobody has finished a game of it this season yet."
        )
        embed.add_field(name=f"🏁 {board.season.name} (this season)", value=value, inline=False)
    value = (
        _board_rows(board, board.all_time)
        if board.all_time
        else f"No finished game of {title} here yet — `/game new` to play one!"
    )
    embed.add_field(name="All time", value=value, inline=False)
    if board.cooperative:
        embed.set_footer(
            text=f"{title} is cooperative: players are ranked by the highest level "
            "they played in a successful service"
        )
    else:
        embed.set_footer(
            text="Rating: a cautious OpenSkill estimate (μ − 3σ) that rises as you "
            "win; 🤖 rows are the bots, by level · add player: for one history"
        )
    return embed


def rating_history_embed(
    name: str, history: RatingHistory, lines: list[StatRow], guild_name: str
) -> discord.Embed:
    """One player's rating in a game, its latest changes, and their record in it."""
    title = _title(history.game_id)
    embed = discord.Embed(title=f"📈 {name} — {title} in {guild_name}", colour=COFFEE)
    record = next((line for line in lines if line.key == history.game_id), None)
    if history.now is None:
        embed.description = (
            f"{name} has no rating in {title} here yet."
            if record is None or not record.cooperative
            else f"{name} has played {record.games} games of {title} here."
        )
        return embed
    embed.description = (
        f"Rating **{history.now.ordinal:.1f}** after {history.games} rated games "
        f"(μ {history.now.mu:.1f}, σ {history.now.sigma:.1f})."
    )
    if record is not None:
        embed.description += f" {record.wins} wins ({_rate(record)})."
    changes = [
        f"#{c.session_id} · {c.mu_before - 3 * c.sigma_before:.1f} → "
        f"{c.mu - 3 * c.sigma:.1f} ({c.delta:+.1f})"
        for c in history.lines
    ]
    embed.add_field(name="Latest games (newest first)", value="\n".join(changes)[:1024] or "—")
    return embed


def season_embed(payload: dict[str, Any]) -> discord.Embed:
    """An ended season's final table (from its outbox post): each game's best, by rating or,
    for a cooperative game, by highest level cleared."""
    season = payload["season"]
    names: dict[str, str] = season.get("names", {})
    embed = discord.Embed(title=f"🏆 {season['name']} is over — final table", colour=COFFEE)
    boards = [(g, lines, "Rating") for g, lines in season.get("ratings", {}).items()]
    boards += [(g, lines, "Level") for g, lines in season.get("levels", {}).items()]
    for game_id, lines, column in sorted(boards, key=lambda b: _title(b[0])):
        r = _rank(lines)
        width = _name_width(r, " Rating Games")
        rows = [f"{'#':<{r}}{_cell('Player', width)} {column:>6} Games"]
        for rank, (player, value, games) in enumerate(lines, start=1):
            shown = f"{value:.1f}" if column == "Rating" else str(value)
            name = _cell(names.get(player, player), width)
            rows.append(f"{rank:<{r}}{name} {shown:>6} {games:>5}")
        medal = f"🥇 **{names.get(lines[0][0], lines[0][0])}**\n" if lines else ""
        embed.add_field(
            name=f"{_title(game_id)}",
            value=(medal + "```\n" + "\n".join(rows) + "\n```")[:1024],
            inline=False,
        )
    if not boards:
        embed.description = "No game was finished this season."
    embed.set_footer(text="All-time ratings go on · /game season start begins the next season")
    return embed
