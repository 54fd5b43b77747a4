"""Panels are drawn straight as Discord's component dicts (render.raw_rows): they must be
exactly what discord.ui's items would send, for every game's panels and the table's extra
buttons, so the change of drawing is invisible to players and to Discord."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.adapter.items import Handlers, Items, make_items
from bot.adapter.render import control_items, game_view, merged_controls
from games import REGISTRY
from games.engine import apply, new_game
from games.presentation import Button, Panel
from games.rng import Rng
from tests.playing import random_move


async def _nothing(*args: Any) -> None:
    return None


def _items() -> Items:
    return make_items(Handlers(*[_nothing] * 10))


def reference_view(
    panel: Panel,
    names: dict[str, str],
    items: Items,
    extra: list[discord.ui.Item[discord.ui.View]],
) -> list[dict[str, Any]] | None:
    """The view as it was built before: discord.ui DynamicItems laid out in a View."""
    view = discord.ui.View(timeout=None)
    rows = control_items(panel, names, session_id=42, seat="3", items=items)[:5]
    for row_number, row in enumerate(rows):
        for item in row:
            item.row = row_number
            view.add_item(item)
    free_row = len(rows) if len(rows) < 5 else None
    last = rows[-1] if rows else []
    for item in extra:
        # (The old code asked isinstance(i, discord.ui.Button), never true of a DynamicItem,
        # so a full layout never took the extra buttons, against its docstring.)
        room = all(isinstance(getattr(i, "item", i), discord.ui.Button) for i in last)
        room = room and len(last) < 5
        if free_row is None and not room:
            break
        item.row = free_row if free_row is not None else len(rows) - 1
        view.add_item(item)
        if free_row is None:
            last.append(item)
    return view.to_components() if view.children else None


def extra_buttons(items: Items, n: int) -> list[discord.ui.Item[discord.ui.View]]:
    return [
        items.lobby_button(
            discord.ui.Button(label=f"Extra {i}", emoji="🃏", custom_id=f"cb:l:42:hand{i}")
        )
        for i in range(n)
    ]


def panels_of_random_games(game_id: str, games: int = 3) -> list[tuple[Panel, dict[str, str]]]:
    game = REGISTRY[game_id]
    found: list[tuple[Panel, dict[str, str]]] = []
    for seed in range(games):
        n = game.min_players + seed % (game.max_players - game.min_players + 1)
        players = [f"10{i}" for i in range(n)]
        names = {p: f"Player <{p}> with a long name" for p in players}
        state = new_game(game, players, game.Options(), seed)
        rng = Rng(seed=seed)
        for _ in range(400):
            for p in players:
                found.append((game.panel(state, p), names))
            found.append((merged_controls(game.table(state)), names))
            if game.outcome(state) is not None:
                break
            player, action = random_move(game, state, rng, timeout_one_in=20)
            state = apply(game, state, player, action)
    return found


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_raw_rows_send_what_discord_ui_would(game_id: str) -> None:
    items = _items()
    checked = 0
    for index, (panel, names) in enumerate(panels_of_random_games(game_id)):
        if panel.layout != "embed":
            continue  # Components V2 panels are still drawn with discord.ui (layout_view)
        n_extra = index % 3  # none, the hand button, or hand and skip
        view = game_view(
            panel,
            names,
            session_id=42,
            seat="3",
            items=items,
            extra=extra_buttons(items, n_extra),
        )
        expected = reference_view(panel, names, items, extra_buttons(items, n_extra))
        assert (view.to_components() if view is not None else None) == expected
        checked += 1 if expected else 0
    assert checked > 0 or all(
        p.layout != "embed" for p, _ in panels_of_random_games(game_id, games=1)
    )


def test_a_full_last_row_leaves_the_extra_buttons_out() -> None:
    items = _items()
    panel = Panel(
        title="t",
        stamp="s",
        controls=[
            Button(label=f"B{i}", action={"n": i}, row=i // 5, emoji="🍩" if i % 2 else None)
            for i in range(25)
        ],
    )
    view = game_view(panel, {}, session_id=42, seat="3", items=items, extra=extra_buttons(items, 2))
    expected = reference_view(panel, {}, items, extra_buttons(items, 2))
    assert view is not None and view.to_components() == expected
    assert sum(len(row["components"]) for row in expected or []) == 25
