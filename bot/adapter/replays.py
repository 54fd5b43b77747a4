"""Replay: an ended game move by move, as the table showed it, in an ephemeral message (◀ ▶,
first and last, a round to jump to). Opened from the final message's Replay button or from
/game history's select; each step is drawn from the replay the session service keeps
(bot/core/replays.py says what a viewer may see of it). The clicks' handlers are in
replay_controls.py."""

from __future__ import annotations

from typing import Any

import discord

from bot.adapter.items import Items
from bot.adapter.render import embed_of, names_in
from bot.core.replays import Replay, replay_step

EMBEDS_MAX = 6000  # Discord's limit on a message's embeds, all text counted
JUMPS_MAX = 25  # options of a select


def replay_page(
    replay: Replay, step: int, viewer: str, items: Items
) -> tuple[list[discord.Embed], discord.ui.View]:
    """What the replay shows ``viewer`` at ``step``."""
    shown = replay_step(replay, step, viewer)
    names = replay.names
    where = f"🎬 Replay of game #{replay.session_id} · move {shown.step}/{replay.last}"
    if shown.mover is None:
        what = "The deal: the table as the game began."
    else:
        what = f"**{names.get(shown.mover, '?')}**: {names_in(shown.move, names)}"
    embeds = [embed_of(panel, names) for panel in shown.table]
    if shown.own is not None:
        own = embed_of(shown.own, names)
        own.title = f"🔒 Only you see this — {own.title}"[:256]
        embeds.append(own)
    embeds = embeds[:9]
    embeds.insert(0, discord.Embed(title=where, description=what[:4096], colour=0x5865F2))
    while sum(len(e) for e in embeds) > EMBEDS_MAX and len(embeds) > 2:
        embeds.pop(1)  # a big table: its first panels go before the header and the hand
    return embeds, _controls(replay, shown.step, items)


def _controls(replay: Replay, step: int, items: Items) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    assert items.replay_button is not None and items.replay_round is not None
    sid, last = replay.session_id, replay.last
    for target, way, emoji, label in (
        (0, "s", "⏮️", "Start"),
        (max(0, step - 1), "b", "◀️", "Back"),
        (min(last, step + 1), "n", "▶️", "Next"),
        (last, "e", "⏭️", "End"),
    ):
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label,
            emoji=emoji,
            style=discord.ButtonStyle.secondary,
            custom_id=f"cb:p:{sid}:{target}:{way}",
            disabled=target == step,
            row=0,
        )
        view.add_item(items.replay_button(button))
    jumps = _jumps(replay)
    if jumps:
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"cb:q:{sid}",
            placeholder="Jump to a round",
            row=1,
            options=[
                discord.SelectOption(label=label, value=str(target), default=False)
                for label, target in jumps
            ],
        )
        view.add_item(items.replay_round(select))
    return view


def _jumps(replay: Replay) -> list[tuple[str, int]]:
    """Where the round select goes: each round's first move (a game without rounds: every
    tenth of it), at most 25."""
    rounds = [(f"Round {number}", step) for number, step in replay.rounds()]
    if len(rounds) < 2:
        tenth = max(1, replay.last // 10)
        rounds = [(f"Move {step}", step) for step in range(0, replay.last + 1, tenth)]
    if len(rounds) > JUMPS_MAX:
        every = -(-len(rounds) // JUMPS_MAX)
        rounds = rounds[::every]
    return rounds if len(rounds) > 1 else []


def replay_button(session_id: int, items: Items) -> Any:
    """The final message's Replay button."""
    if items.replay_button is None:
        return None
    button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
        label="Replay",
        emoji="🎬",
        style=discord.ButtonStyle.secondary,
        custom_id=f"cb:p:{session_id}:0:o",
    )
    return items.replay_button(button)


def replay_pick(page: int, session_ids: list[tuple[int, str]], items: Items) -> Any:
    """/game history's select of a game to replay (value: its id)."""
    assert items.replay_pick is not None
    select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
        custom_id=f"cb:v:{page}",
        placeholder="🎬 Replay a game, move by move",
        row=2,
        options=[
            discord.SelectOption(label=label[:100], value=str(sid)) for sid, label in session_ids
        ],
    )
    return items.replay_pick(select)
