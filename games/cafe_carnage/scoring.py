"""End of game: the bonus for money left, the standings, and the outcome."""

from __future__ import annotations

from games.cafe_carnage.state import CafeState, Standing
from games.engine import Outcome, PlayerId


def finish(state: CafeState) -> None:
    """+1 GP per $ left for players without an IOU; rank by GP, then budget (equal: shared).

    In place: only on the end of a round's private copy."""
    before = dict(state.gp)
    for p in state.players:
        if state.iou_draws[p] == 0:
            state.gp[p] += state.budget[p]
    order = sorted(state.players, key=lambda p: (-state.gp[p], -state.budget[p]))
    standings: list[Standing] = []
    for index, p in enumerate(order):
        prev = standings[-1] if standings else None
        same = prev is not None and (prev.gp, prev.budget) == (state.gp[p], state.budget[p])
        standings.append(
            Standing(
                player=p,
                rank=prev.rank if same and prev is not None else index + 1,
                gp_before_bonus=before[p],
                bonus=state.gp[p] - before[p],
                gp=state.gp[p],
                budget=state.budget[p],
                iou=state.iou_draws[p] > 0,
            )
        )
    state.standings = standings
    state.over = True


def winners(standings: list[Standing]) -> list[PlayerId]:
    return [s.player for s in standings if s.rank == 1]


def progress(state: CafeState) -> list[dict[str, int]]:
    """GP per player after each round, oldest first (before the end-of-game bonus)."""
    return [{p: record.players[p].gp_after for p in state.players} for record in state.history]


def outcome(state: CafeState, summary: list[str]) -> Outcome | None:
    if not state.over:
        return None
    return Outcome(
        scores={s.player: s.gp for s in state.standings},
        winners=winners(state.standings),
        summary=summary,
        progress=progress(state),
    )
