"""Monster Café's announcements: what deserves a channel message, and whose turn it is.

- ``turn_notice`` (kind "turn", pings the player): a turn starts for someone. The front end keeps
  only the newest turn notice, so one per turn start never buries the table.
- ``round_over`` (event, no ping): the clears of a round, the dummy table and the scores.
- ``final_scores`` (event, no ping): the end; nobody's input is needed any more.
- ``timed_out`` (event, no ping): what the bot played for a player whose clock ran out, once
  per deadline.
"""

from __future__ import annotations

from games.monster_cafe.catalogue import ROUNDS
from games.monster_cafe.scoring import standings
from games.monster_cafe.state import MonsterCafeState, Table, Taken
from games.monster_cafe.words import COLOUR, monsters_text, points, table_name, take_text
from games.presentation import Announcement, player


def turn_notice(state: MonsterCafeState, pid: str, last: bool) -> Announcement:
    """``last``: ``pid`` is the last diner of the round."""
    lines = [f"{player(pid)}, it's your turn (round {state.round}/{ROUNDS})."]
    if last:
        lines.append("🏃 You're the last diner: draw as long as you like, then clear a table.")
    elif not state.deck:
        lines.append("📭 The deck is empty: clear a table (an empty one will do).")
    elif not state.seatable():
        lines.append("🈵 Every table is full: clear one.")
    return Announcement(
        title="🍽️ Your turn",
        description="\n".join(lines),
        colour=COLOUR,
        ping=[pid],
        kind="turn",
    )


def round_over(
    state: MonsterCafeState, taken: list[Taken], leftovers: list[Table], scores: dict[str, int]
) -> Announcement:
    lines = [take_text(t) for t in taken]
    for table in leftovers:
        who = f" with {monsters_text(table.seats)}" if table.seats else ""
        lines.append(f"🗑️ The dummy table {table_name(table)} is discarded{who}.")
    lines.append("")
    lines.append("Scores so far: " + ", ".join(f"{player(p)} {points(scores[p])}" for p in scores))
    if state.round < ROUNDS:
        lines.append(
            f"{player(taken[-1].player)} cleared the last table and starts round {state.round + 1}."
        )
    return Announcement(
        title=f"🧹 Round {state.round}/{ROUNDS} is over",
        description="\n".join(lines),
        colour=COLOUR,
    )


def final_scores(state: MonsterCafeState) -> Announcement:
    rows = standings(state)
    best = rows[0].total
    winners = [r.player for r in rows if r.total == best]
    names = " and ".join(player(w) for w in winners)
    head = f"🏆 {names} {'win' if len(winners) > 1 else 'wins'} with {points(best)}!"
    # One line a player: the final table (and its picture) shows every café in full.
    lines = [
        f"#{rank} · {player(r.player)} — {points(r.total)} · {r.short}"
        for rank, r in enumerate(rows, start=1)
    ]
    return Announcement(
        title="🏆 Monster Café — final scores",
        description="\n".join([head, *lines]),
        colour=COLOUR,
    )


def timed_out(pid: str, events: list[str]) -> Announcement:
    return Announcement(
        title="⏰ Time's up",
        description=f"{player(pid)} ran out of time, so the bot played for them:\n"
        + "\n".join(events),
        colour=COLOUR,
    )
