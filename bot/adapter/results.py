"""The final message of a game: the standings in words, the chart of how it went, Rematch.

Built from the outbox's ``{"result": …}`` post alone (the game's id and its Outcome), so it can
be posted even if the session itself could no longer be loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import discord

from bot.adapter.chart import ascii_label, plain
from bot.adapter.items import Items
from bot.adapter.pictures import PictureRef
from bot.adapter.render import names_in
from bot.adapter.replays import replay_button
from bot.core.record import short
from games import REGISTRY
from games.engine import Outcome
from games.presentation import Picture

GOLD = 0xE8AA14
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
TABLE_KEY = "table"  # a cooperative game's progress charts the table as one line


@dataclass
class ResultMessage:
    embed: discord.Embed
    view: discord.ui.View
    chart: PictureRef | None


def standings(
    outcome: Outcome, names: Mapping[str, str], ratings: Mapping[str, Any] | None = None
) -> list[str]:
    """One line per player, best first (equal scores share a rank), with the rating change the
    game made (``ratings``: player → [ordinal before, after]); a cooperative game says first
    whether the table won, and each player's highest level cleared."""
    ranked = sorted(outcome.scores.items(), key=lambda kv: -kv[1])
    lines: list[str] = []
    if outcome.cooperative:
        lines.append("🎉 **The table won!**" if outcome.winners else "💥 **The table lost.**")
    rank = 0
    for position, (player, score) in enumerate(ranked, start=1):
        if position == 1 or score != ranked[position - 2][1]:
            rank = position
        medal = "" if outcome.cooperative else MEDALS.get(rank, f"{rank}.")
        crown = " 🏆" if player in outcome.winners and not outcome.cooperative else ""
        line = f"{medal} **{names.get(player, '?')}** — {score}{crown}"
        lines.append((line + _change(player, outcome, ratings or {})).strip())
    return lines


def _change(player: str, outcome: Outcome, ratings: Mapping[str, Any]) -> str:
    """`` · rating 3.1 → 5.4 (+2.3)``, or a cooperative game's highest level cleared."""
    if outcome.cooperative:
        level = outcome.cleared.get(player)
        return f" · cleared level {level}" if level else ""
    change = ratings.get(player)
    if not isinstance(change, list) or len(change) != 2:
        return ""
    before, after = float(change[0]), float(change[1])
    return f" · rating {before:.1f} → {after:.1f} ({after - before:+.1f})"


def result_message(
    payload: Mapping[str, Any], names: Mapping[str, str], session_id: int, items: Items
) -> ResultMessage:
    outcome = Outcome.model_validate(payload["outcome"])
    game = REGISTRY.get(str(payload.get("game")))
    title = game.title if game is not None else "Game"
    embed = discord.Embed(title=f"🏁 {title} — game over", colour=GOLD)
    embed.add_field(
        name="Standings", value="\n".join(standings(outcome, names, payload.get("ratings")))[:1024]
    )
    if outcome.summary:
        how = "\n".join(names_in(line, names) for line in outcome.summary[:8])
        embed.add_field(name="How it ended", value=how[:1024], inline=False)
    chart = _chart(outcome, names, title, session_id)
    if chart is not None:
        embed.set_image(url=f"attachment://{chart.name}")
    footer = f"Game #{session_id}"
    if "seed" in payload and "commitment" in payload:
        footer += (
            f" · seed {payload['seed']}, sealed as {short(str(payload['commitment']))} at the "
            "start: /game history has the record to check"
        )
    embed.set_footer(text=footer + " · Rematch opens a new lobby with everyone seated")
    view = discord.ui.View(timeout=None)
    button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
        label="Rematch",
        style=discord.ButtonStyle.primary,
        emoji="🔁",
        custom_id=f"cb:r:{session_id}",
    )
    view.add_item(items.rematch_button(button))
    replay = replay_button(session_id, items)
    if replay is not None:
        view.add_item(replay)
    return ResultMessage(embed, view, chart)


def _chart(
    outcome: Outcome, names: Mapping[str, str], title: str, session_id: int
) -> PictureRef | None:
    if not outcome.progress:
        return None
    keys = [p for p in names if any(p in row for row in outcome.progress)]
    keys += [k for row in outcome.progress for k in row if k not in keys]
    keys = list(dict.fromkeys(keys))
    labels = {
        k: "Table" if k == TABLE_KEY and k not in names else ascii_label(names.get(k, ""), f"P{n}")
        for n, k in enumerate(keys, start=1)
    }
    spec: dict[str, Any] = {
        "title": f"{plain(title)} - game #{session_id}",
        "progress": outcome.progress,
        "labels": labels,
    }
    who = "the table's points" if list(labels) == [TABLE_KEY] else "each player's score"
    alt = f"How {title} game #{session_id} went: {who} after each round."
    return PictureRef.of(Picture(name="chart.png", alt=alt[:1024], spec=spec))
