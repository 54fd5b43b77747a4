"""The end: money wins; ties go to fewest customers left (tables and cars), then are shared."""

from __future__ import annotations

from games.cube_cafe.state import CubeCafeState
from games.engine import Outcome, PlayerId
from games.presentation import player


def standings(state: CubeCafeState) -> list[PlayerId]:
    """Players best first: most money, then fewest customers still in the restaurant."""
    if len(state.players) == 1:  # solo (every round's results rank the players): no ranking
        return list(state.players)
    return sorted(state.players, key=lambda p: _rank_key(state, p))


def _rank_key(state: CubeCafeState, pid: PlayerId) -> tuple[int, int]:
    board = state.boards[pid]
    return (-board.money, board.customers())


def winners(state: CubeCafeState) -> list[PlayerId]:
    best = _rank_key(state, standings(state)[0])
    return [p for p in state.players if _rank_key(state, p) == best]


def outcome(state: CubeCafeState) -> Outcome | None:
    if not state.over:
        return None
    return Outcome(
        scores={p: state.boards[p].money for p in state.players},
        winners=winners(state),
        summary=summary(state),
        progress=[dict(row) for row in state.progress],
    )


def summary(state: CubeCafeState) -> list[str]:
    """How the result came about, with the tie-break when it decided."""
    boards = state.boards
    if len(state.players) == 1:
        only = state.players[0]
        return [f"Solo score chase: {player(only)} made ${boards[only].money}."]
    top_money = max(b.money for b in boards.values())
    tied = [p for p in state.players if boards[p].money == top_money]
    won = winners(state)
    names = " and ".join(player(p) for p in won)
    lines = [f"{names} {'win' if len(won) > 1 else 'wins'} with ${top_money}."]
    if len(tied) > 1:
        left = ", ".join(f"{player(p)} {boards[p].customers()}" for p in tied)
        if len(won) < len(tied):
            lines.append(f"Tie on ${top_money}, broken by fewest customers left ({left}).")
        else:
            lines.append(f"Tie on ${top_money} and on customers left ({left}): a shared win.")
    return lines
