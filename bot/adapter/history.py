"""/game history: a server's finished and abandoned games, paged, each record downloadable and
each game replayable."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import discord

from bot.adapter.items import Items
from bot.adapter.replays import replay_pick
from bot.core.record import GameRecord, short
from bot.core.sessions import HistoryPage
from bot.core.store import SessionRow, SessionStatus
from games import REGISTRY
from games.engine import Outcome

COFFEE = 0xC8814B
PER_PAGE = 5


def history_screen(page: HistoryPage, items: Items) -> tuple[discord.Embed, discord.ui.View]:
    embed = discord.Embed(title="🏆 Games played in this server", colour=COFFEE)
    view = discord.ui.View(timeout=None)
    if not page.total:
        embed.description = "No game has been played to its end here yet — `/game new` to play one!"
        return embed, view
    for row, names in page.games:
        title = _title(row.game_id)
        when = int(datetime.fromtimestamp(row.updated_at, UTC).timestamp())
        embed.add_field(
            name=f"{title} · #{row.id}",
            value=f"{result_line(row, names)}\n<t:{when}:R>"[:1024],
            inline=False,
        )
    embed.set_footer(
        text=f"Page {page.page + 1}/{page.pages} · {page.total} games · pick one below to get "
        "its full record (seed and every move), which `python -m bot verify` checks"
    )
    for target, way, label, emoji in (
        (page.page - 1, "b", "Newer", "◀️"),
        (page.page + 1, "n", "Older", "▶️"),
    ):
        exists = 0 <= target < page.pages
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label,
            emoji=emoji,
            style=discord.ButtonStyle.secondary,
            custom_id=f"cb:y:{target if exists else page.page}:{way}",
            disabled=not exists,
            row=0,
        )
        view.add_item(items.history_button(button))
    select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
        custom_id=f"cb:x:{page.page}",
        placeholder="📜 Get a game's record (JSON)",
        row=1,
        options=[
            discord.SelectOption(
                label=f"#{row.id} · {_title(row.game_id)}"[:100],
                value=str(row.id),
                description=("finished" if row.status is SessionStatus.FINISHED else "abandoned"),
            )
            for row, _ in page.games
        ],
    )
    view.add_item(items.record_select(select))
    if items.replay_pick is not None:
        games = [(row.id, f"#{row.id} · {_title(row.game_id)}") for row, _ in page.games]
        view.add_item(replay_pick(page.page, games, items))
    return embed, view


def _title(game_id: str) -> str:
    return REGISTRY[game_id].title if game_id in REGISTRY else game_id


def result_line(row: SessionRow, names: dict[str, str]) -> str:
    who = ", ".join(names.values())
    if row.status is SessionStatus.ABANDONED:
        return f"🧹 abandoned · {who}"
    if not row.outcome:
        return f"finished · {who}"
    try:
        outcome = Outcome.model_validate(json.loads(row.outcome))
    except ValueError:
        return f"finished · {who}"
    scores = ", ".join(
        f"{names.get(p, '?')} {v}" for p, v in sorted(outcome.scores.items(), key=lambda kv: -kv[1])
    )
    if outcome.cooperative:
        head = "🎉 The table won" if outcome.winners else "💥 The table lost"
        return f"{head} · {scores}"
    winners = ", ".join(names.get(w, "?") for w in outcome.winners) or "nobody"
    return f"🏆 {winners} · {scores}"


def record_file(record: GameRecord) -> discord.File:
    data = json.dumps(record.model_dump(mode="json"), indent=1, ensure_ascii=False).encode()
    return discord.File(
        io.BytesIO(data),
        filename=f"cafebot-game-{record.session}.json",
        description=f"The record of game #{record.session} (commitment {short(record.commitment)})",
    )
