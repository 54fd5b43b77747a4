"""A game's record, which anyone can check: the deal was fixed at the start, every move was legal.

At the start the table shows a commitment, the SHA-256 of the game, its options and its seed;
the seed itself stays secret until the game ends. The record (``/game history``) then holds the
seed and every logged action with its player and time, and :func:`verify` (``python -m bot
verify RECORD.json``) recomputes the commitment and replays every action through the engine's
one legality check, the same replay the service does, undone moves skipped the same way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, Field, ValidationError

from games import REGISTRY
from games.engine import GameState, IllegalAction, Outcome, apply, new_game
from games.presentation import PLAYER_TOKEN

FORMAT = "cafebot-record/1"
SHORT = 16  # hex digits of the commitment shown on the table


def commitment(game_id: str, options: dict[str, Any], seed: int) -> str:
    """SHA-256 of the game, its options and its seed, in one canonical JSON spelling."""
    sealed = json.dumps(
        {"game": game_id, "options": options, "seed": seed},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(sealed.encode()).hexdigest()


def short(full: str) -> str:
    return full[:SHORT]


class LogEntry(Protocol):
    """An entry of the action log (a stored row or a record's action)."""

    @property
    def seq(self) -> int: ...

    @property
    def undoes(self) -> int | None: ...


E = TypeVar("E", bound=LogEntry)


def effective(entries: Sequence[E]) -> list[E]:
    """The moves that count, oldest first: an undo entry takes back the move it names, and
    counts for nothing itself. Every replay (service, simulator, verify) goes through this."""
    undone = {e.undoes for e in entries if e.undoes is not None}
    return [e for e in entries if e.undoes is None and e.seq not in undone]


class RecordedAction(BaseModel):
    seq: int
    player: str
    action: dict[str, Any]
    source: str  # "player", or "timeout" (the deadline played it)
    at: float  # Unix time
    undoes: int | None = None  # an undo: the seq of the move it took back


class GameRecord(BaseModel):
    format: str = FORMAT
    game: str
    session: int
    status: str
    players: list[str]  # seat order
    names: dict[str, str] = Field(default_factory=dict)
    options: dict[str, Any]
    seed: int
    commitment: str
    created_at: float
    ended_at: float
    actions: list[RecordedAction]
    outcome: dict[str, Any] | None = None


class RecordError(Exception):
    """Not a record this program can read; ``str()`` says why in one line."""


def parse_record(text: str) -> GameRecord:
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"not JSON ({exc})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise RecordError(f"not a cafebot game record (expected format {FORMAT!r})")
    try:
        return GameRecord.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RecordError(f"a damaged record ({where}: {first['msg']})") from None


@dataclass
class Verdict:
    ok: bool
    lines: list[str] = field(default_factory=list)  # what was checked, in words
    outcome: Outcome | None = None
    failed_at: RecordedAction | None = None  # the first action that does not replay
    state: GameState | None = None

    def fail(self, line: str) -> Verdict:
        self.ok = False
        self.lines.append(f"✘ {line}")
        return self


def verify(record: GameRecord) -> Verdict:
    """Check the commitment, replay every action through the rules and compare the result."""
    verdict = Verdict(ok=True)
    game = REGISTRY.get(record.game)
    if game is None:
        return verdict.fail(f"unknown game {record.game!r}")
    sealed = commitment(record.game, record.options, record.seed)
    if sealed != record.commitment:
        return verdict.fail(
            f"the commitment does not match: the seed and options hash to {short(sealed)}, "
            f"the table showed {short(record.commitment)} at the start"
        )
    verdict.lines.append(
        f"✔ the seed and options match the commitment shown at the start ({short(sealed)})"
    )
    names = record.names
    try:
        options = game.parse_options(record.options)
        state: GameState = new_game(game, record.players, options, record.seed)
    except IllegalAction as exc:
        return verdict.fail(f"the game cannot be set up from the record: {exc.message}")
    moves = effective(record.actions)
    for entry in moves:
        try:
            state = apply(game, state, entry.player, game.parse_action(entry.action))
        except IllegalAction as exc:
            verdict.failed_at = entry
            who = names.get(entry.player, entry.player)
            why = PLAYER_TOKEN.sub(lambda m: names.get(m.group(1), m.group(1)), exc.message)
            return verdict.fail(
                f"action #{entry.seq} by {who} ({json.dumps(entry.action)}) does not replay: {why}"
            )
    verdict.state = state
    undone = len(record.actions) - len(moves)
    taken_back = f" ({undone // 2} taken back)" if undone else ""
    verdict.lines.append(f"✔ {len(moves)} actions replayed through the rules{taken_back}")
    outcome = game.outcome(state)
    verdict.outcome = outcome
    if record.outcome is not None:
        claimed = Outcome.model_validate(record.outcome)
        if outcome is None or (outcome.scores, outcome.winners) != (
            claimed.scores,
            claimed.winners,
        ):
            return verdict.fail("the replay does not end with the scores the record claims")
        verdict.lines.append("✔ the replay ends with the scores the record claims")
    elif record.status == "finished":
        return verdict.fail("the record says the game finished, but the replay has not ended")
    return verdict


def scores_line(outcome: Outcome, names: dict[str, str]) -> str:
    ranked = sorted(outcome.scores.items(), key=lambda kv: -kv[1])
    parts = [
        f"{names.get(p, p)} {score}" + (" (won)" if p in outcome.winners else "")
        for p, score in ranked
    ]
    if outcome.cooperative:
        head = "the table won" if outcome.winners else "the table lost"
        return f"{head}: " + ", ".join(parts)
    return ", ".join(parts)
