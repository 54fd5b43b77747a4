"""Seeded games recorded with the engines as they were before they became copy-on-write (moves,
a digest of the state JSON after each move, the final state), to replay with today's engines:
stored games must replay to exactly the same states.

A record: ``{"game", "players", "options", "seed", "moves": [[player, action], ...], "digests",
"final"}``; ``digests[i]`` is the first 16 hex digits of the SHA-256 of ``model_dump_json()``
after ``i`` moves.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from games.engine import Game, apply, new_game

HERE = Path(__file__).parent


def recorded(game_id: str) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = json.loads((HERE / f"{game_id}.json").read_text())
    return games


def digest(state_json: str) -> str:
    return hashlib.sha256(state_json.encode()).hexdigest()[:16]


def replay_and_compare(game: Game[Any, Any], record: dict[str, Any]) -> None:
    """Replay ``record`` through ``games.engine.apply``; fail at the first move whose state
    differs from the recorded one."""
    options = game.parse_options(record["options"])
    state = new_game(game, record["players"], options, record["seed"])
    assert digest(state.model_dump_json()) == record["digests"][0], "setup"
    for number, (pid, raw) in enumerate(record["moves"], start=1):
        state = apply(game, state, pid, game.parse_action(raw))
        assert digest(state.model_dump_json()) == record["digests"][number], (number, pid, raw)
    assert game.outcome(state) is not None
    assert json.loads(state.model_dump_json()) == record["final"]
    # A stored state loads back to the same state.
    assert game.load_state(state.model_dump_json()) == state
