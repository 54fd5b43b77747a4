"""/game mine: every game a player is seated in, across servers, those waiting for them first."""

from __future__ import annotations

from collections.abc import Callable

import discord

from bot.adapter.render import names_in
from bot.core.sessions import SeatedGame
from bot.core.store import SessionRow

COFFEE = 0xC8814B
MAX_LISTED = 20  # embed fields (25 at most), with room to say how many more there are


def waiting_note(count: int, *, markdown: bool = True) -> str:
    """'You have N other games waiting for you', or "" when there are none."""
    if count <= 0:
        return ""
    games = "game" if count == 1 else "games"
    command = "`/game mine`" if markdown else "/game mine"
    return f"You have {count} other {games} waiting for you — {command} lists them."


def seated_games_embed(
    games: list[SeatedGame], place: Callable[[SessionRow], str]
) -> discord.Embed:
    """``place(row)``: where the game is, as a jump link."""
    yours = sum(1 for g in games if g.yours)
    embed = discord.Embed(title="🎲 Your games", colour=COFFEE)
    if not games:
        embed.description = (
            "You're not seated at any game. `/game new` in a server channel opens a lobby."
        )
        return embed
    embed.description = (
        f"**{yours} waiting for you**, {len(games) - yours} waiting for others."
        if yours
        else "No table is waiting for you right now."
    )
    for game in games[:MAX_LISTED]:
        lines = [place(game.row), names_in(game.step, game.names)]
        if game.lobby:
            lines.append("Waiting for the host to start")
        elif game.yours:
            lines.append("👉 **Your move**")
        elif game.awaited:
            lines.append("Waiting for " + ", ".join(game.names.get(p, "?") for p in game.awaited))
        if game.deadline is not None and not game.lobby:
            lines.append(f"Time runs out <t:{int(game.deadline)}:R>")
        mark = "👉 " if game.yours else ""
        embed.add_field(
            name=f"{mark}{game.title} · #{game.row.id}"[:256],
            value="\n".join(lines)[:1024],
            inline=False,
        )
    if len(games) > MAX_LISTED:
        embed.set_footer(text=f"…and {len(games) - MAX_LISTED} more")
    return embed
