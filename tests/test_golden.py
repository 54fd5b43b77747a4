"""A golden playthrough per game: seed + seeded random moves → every announcement and the final
table, as text in tests/golden/<game>.txt. A change of wording or of rules shows up as a diff.

After an intended change, rewrite the files with ``UPDATE_GOLDEN=1 make pytest`` and read the
diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from games import REGISTRY
from games.engine import Game, apply, new_game
from games.presentation import PLAYER_TOKEN, Announcement, Panel
from games.rng import Rng

GOLDEN = Path(__file__).parent / "golden"
SEED = 20261123


def text_of(item: Panel | Announcement, names: dict[str, str]) -> str:
    lines = [f"## {item.title}"]
    if item.description:
        lines.append(item.description)
    lines += [f"[{f.name}] {f.value}" for f in item.fields]
    if isinstance(item, Panel):
        if item.footer:
            lines.append(f"-- {item.footer}")
        if item.image is not None:
            lines.append(f"(picture {item.image.name}: {item.image.alt})")
        lines += [
            f"<{getattr(c, 'label', None) or getattr(c, 'placeholder', '')}>" for c in item.controls
        ]
    if isinstance(item, Announcement) and item.ping:
        lines.append("pings: " + ", ".join(names.get(p, p) for p in item.ping))
    text = "\n".join(lines)
    return PLAYER_TOKEN.sub(lambda m: names.get(m.group(1), m.group(1)), text)


def playthrough(game: Game[Any, Any]) -> str:
    players = [f"{900 + i}" for i in range(min(max(3, game.min_players), game.max_players))]
    names = {p: f"P{i + 1}" for i, p in enumerate(players)}
    rng = Rng(seed=SEED)
    state = new_game(game, players, game.Options(), SEED)
    moves = 0
    while game.outcome(state) is None:
        player = rng.choice(sorted(game.active_players(state)))
        state = apply(game, state, player, rng.choice(list(game.legal_actions(state, player))))
        moves += 1
    outcome = game.outcome(state)
    assert outcome is not None
    parts = [f"# {game.title}: {len(players)} players, seed {SEED}, {moves} moves"]
    parts += [text_of(a, names) for a in state.announcements]
    parts.append("# final table")
    parts += [text_of(p, names) for p in game.table(state)]
    parts.append("# outcome")
    parts.append(
        "scores: "
        + ", ".join(f"{names[p]} {s}" for p, s in outcome.scores.items())
        + "\nwinners: "
        + ", ".join(names[p] for p in outcome.winners)
        + "".join(f"\n{line}" for line in outcome.summary)
    )
    return PLAYER_TOKEN.sub(lambda m: names.get(m.group(1), m.group(1)), "\n\n".join(parts)) + "\n"


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_golden_playthrough(game_id: str) -> None:
    path = GOLDEN / f"{game_id}.txt"
    text = playthrough(REGISTRY[game_id])
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file for {game_id}: run UPDATE_GOLDEN=1 make pytest"
    assert text == path.read_text(encoding="utf-8"), (
        f"{game_id}'s playthrough changed: if intended, UPDATE_GOLDEN=1 make pytest and read "
        "the diff of tests/golden/"
    )
