"""Points: aliens at their value; disasters in a jail at 1 point (Mini-Muffin: captured with their
alien) or 2 (Full Pancake: Alien Reinforcements joining the next captured alien)."""

from __future__ import annotations

from games.breakfast_vs_aliens.catalogue import ALL_CARDS, card
from games.breakfast_vs_aliens.state import BvaState
from games.engine import Outcome, PlayerId
from games.presentation import player

REINFORCEMENT_BONUS = 2


def _points(card_id: str, full: bool) -> int:
    c = card(card_id)
    if c.kind == "alien":
        return c.points
    if c.kind == "disaster":
        return REINFORCEMENT_BONUS if full else 1
    return 0


# Each card's points, in Mini-Muffin (False) and in Full Pancake (True).
POINTS: dict[bool, dict[str, int]] = {
    full: {c: _points(c, full) for c in ALL_CARDS} for full in (False, True)
}


def card_points(state: BvaState, card_id: str) -> int:
    return POINTS[state.full][card_id]


def score(state: BvaState, pid: PlayerId) -> int:
    return sum(map(POINTS[state.full].__getitem__, state.jails[pid]))


def scores(state: BvaState) -> dict[PlayerId, int]:
    return {p: score(state, p) for p in state.players}


def snapshot(state: BvaState) -> None:
    """Record the running scores (at the start and after each capture) for the end chart."""
    state.progress = [*state.progress, scores(state)]


def leaders(state: BvaState) -> list[PlayerId]:
    table = scores(state)
    best = max(table.values())
    return [p for p in state.players if table[p] == best]


def pts(n: int) -> str:
    return f"{n} pt" if n == 1 else f"{n} pts"


def outcome(state: BvaState) -> Outcome | None:
    if not state.over:
        return None
    table = scores(state)
    winners = leaders(state)
    summary = []
    if state.end_reason:
        summary.append(state.end_reason)
    for p in sorted(state.players, key=lambda q: (-table[q], state.players.index(q))):
        aliens = sum(1 for c in state.jails[p] if card(c).kind == "alien")
        disasters = len(state.jails[p]) - aliens
        extra = f" + {disasters} disaster{'s' if disasters != 1 else ''}" if disasters else ""
        summary.append(
            f"{player(p)}: {pts(table[p])} ({aliens} alien{'s' if aliens != 1 else ''}{extra})"
        )
    if len(winners) > 1:
        summary.append("Tied at the top: the win is shared.")
    return Outcome(scores=table, winners=winners, summary=summary, progress=list(state.progress))
