"""Text, the public table panel and the announcements of Monster Café."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from games.monster_cafe.cards import (
    COLLECTABLE_KINDS,
    KIND_BY_KEY,
    MEALS,
    MONSTER_KIND,
    ROUNDS,
    TABLE_MEAL,
    kind_label,
    meal_label,
    meal_of,
    monster_label,
    table_label,
)
from games.monster_cafe.state import Clear, Draw, MonsterCafeState, Seat, Sorbet, Table, Taken
from games.presentation import (
    MAX_BUTTONS_PER_ROW,
    MAX_OPTIONS,
    Announcement,
    Button,
    Control,
    Option,
    Panel,
    PanelField,
    Select,
    player,
)

COLOUR = 0x8E44AD
FREE_SEAT = "▫️"
# More choices than this become a select (buttons would take more than two rows).
MAX_CHOICE_BUTTONS = 2 * MAX_BUTTONS_PER_ROW


# -- text ----------------------------------------------------------------------------------------


def table_name(table: Table) -> str:
    """``A · 🍝 Spaghetti and Eyeballs``."""
    return f"{table.slot} · {table_label(table.card)}"


def seats_text(table: Table) -> str:
    seated = ", ".join(monster_label(c) for c in table.seats)
    free = " ".join([FREE_SEAT] * table.free)
    return f"{seated}, {free}" if seated and free else seated or free


def monsters_text(monsters: list[str]) -> str:
    if not monsters:
        return "no monsters"
    counts = Counter(MONSTER_KIND[c] for c in monsters)
    return ", ".join(kind_label(k, counts[k]) for k in COLLECTABLE_KINDS if counts[k])


def tables_text(tables: list[str]) -> str:
    if not tables:
        return "no tables"
    counts = Counter(TABLE_MEAL[t] for t in tables)
    return ", ".join(meal_label(m.key, counts[m.key]) for m in MEALS if counts[m.key])


def take_text(taken: Taken) -> str:
    what = monsters_text(taken.monsters) if taken.monsters else "no monsters (an empty table)"
    return f"{player(taken.player)} took {taken.slot} · {table_label(taken.table)} with {what}"


def seated_count(n: int) -> str:
    """How many monsters a Clear button takes: ``2 monsters``, ``1 monster``, ``empty``."""
    return "empty" if n == 0 else f"{n} monster" if n == 1 else f"{n} monsters"


def points(n: int) -> str:
    return f"{n} pt" if abs(n) == 1 else f"{n} pts"


# -- announcements -------------------------------------------------------------------------------


def turn_announcement(state: MonsterCafeState, pid: str) -> Announcement:
    lines = [f"🍽️ {player(pid)}, it's your turn (round {state.round}/{ROUNDS})."]
    if state.is_last(pid):
        lines.append(
            "You're the last diner this round: keep drawing as long as you like "
            "(a sorbet doesn't stop you), then clear a table."
        )
    elif not state.deck:
        lines.append("The monster deck is empty: you must clear a table (an empty one will do).")
    elif not state.seatable():
        lines.append("Every table is full: you must clear one.")
    return Announcement(
        title="🍽️ Your turn", description="\n".join(lines), colour=COLOUR, ping=[pid]
    )


def round_end_announcement(
    state: MonsterCafeState, taken: list[Taken], leftovers: list[Table]
) -> Announcement:
    lines = [take_text(t) for t in taken]
    for table in leftovers:
        who = f" with {monsters_text(table.seats)}" if table.seats else ""
        lines.append(f"🗑️ The dummy table {table_name(table)} is discarded{who}.")
    lines.append("")
    lines.append(
        "Scores so far: "
        + ", ".join(
            f"{player(p)} {points(state.collections[p].breakdown().total)}" for p in state.players
        )
    )
    if state.round < ROUNDS:
        lines.append(
            f"{player(taken[-1].player)} cleared the last table and starts round {state.round + 1}."
        )
    return Announcement(
        title=f"🧹 Round {state.round}/{ROUNDS} is over",
        description="\n".join(lines),
        colour=COLOUR,
    )


class Standing(BaseModel):
    player: str
    total: int
    lines: list[str]


def standings(state: MonsterCafeState) -> list[Standing]:
    """Players by final score, best first (seat order on ties), with their breakdowns."""
    rows = []
    for pid in state.players:
        breakdown = state.collections[pid].breakdown()
        rows.append(Standing(player=pid, total=breakdown.total, lines=breakdown.describe()))
    return sorted(rows, key=lambda r: -r.total)


def final_announcement(state: MonsterCafeState) -> Announcement:
    rows = standings(state)
    best = rows[0].total
    winners = [r.player for r in rows if r.total == best]
    names = " and ".join(player(w) for w in winners)
    head = f"🏆 {names} {'win' if len(winners) > 1 else 'wins'} with {points(best)}!"
    fields = [
        PanelField(
            name=f"#{rank} · {points(r.total)}",
            value="\n".join([player(r.player), *(r.lines or ["no monsters → 0"])]),
        )
        for rank, r in enumerate(rows, start=1)
    ]
    return Announcement(
        title="🏆 Monster Café — final scores", description=head, fields=fields, colour=COLOUR
    )


def auto_announcement(pid: str, event: str) -> Announcement:
    return Announcement(
        title="⏰ Time's up",
        description=f"{player(pid)} ran out of time, so the bot played for them: {event}",
        colour=COLOUR,
    )


# -- the table panel -----------------------------------------------------------------------------


def choices(buttons: list[Button], placeholder: str) -> list[Control]:
    """Buttons, or one select when there are too many of them."""
    if len(buttons) <= MAX_CHOICE_BUTTONS:
        return list(buttons)
    options = [Option(label=b.label, action=b.action, emoji=b.emoji) for b in buttons]
    return [Select(placeholder=placeholder, options=options[:MAX_OPTIONS])]


def controls(state: MonsterCafeState) -> list[Control]:
    """The current player's legal moves (one shared table message: the bot checks the clicker)."""
    if state.over or state.current is None:
        return []
    pid = state.current
    if state.drawn is not None and state.drawn_is_sorbet():
        collection = state.collections[pid]
        counts = Counter(MONSTER_KIND[c] for c in collection.monsters)
        buttons = [
            Button(
                label=f"Discard {KIND_BY_KEY[k].name} ×{counts[k]}",
                emoji=KIND_BY_KEY[k].emoji,
                style="danger",
                action=Sorbet(kind=k).model_dump(mode="json"),
            )
            for k in collection.kinds()
        ]
        return choices(buttons, "🍋 Pick the monster type the sorbet scares off")
    if state.drawn is not None:
        buttons = [
            Button(
                label=f"Seat at {t.slot} · {meal_of(t.card).name}",
                emoji=meal_of(t.card).emoji,
                style="primary",
                action=Seat(table=t.card).model_dump(mode="json"),
            )
            for t in state.seatable()
        ]
        return choices(buttons, "Seat the monster at…")
    out: list[Control] = []
    if state.can_draw():
        label = f"Draw a monster ({len(state.deck)} left)"
        out.append(
            Button(label=label, emoji="🎴", style="success", action=Draw().model_dump(mode="json"))
        )
    clears = [
        Button(
            label=f"Clear {t.slot} · {meal_of(t.card).name} ({seated_count(len(t.seats))})",
            emoji=meal_of(t.card).emoji,
            style="secondary",
            action=Clear(table=t.card).model_dump(mode="json"),
        )
        for t in state.clearable()
    ]
    return out + choices(clears, "Clear a table and sit out the round…")


def status_lines(state: MonsterCafeState) -> list[str]:
    lines = [
        f"🎴 Deck: **{len(state.deck)}** monsters left · 🍋 discard pile: {len(state.discard)}"
    ]
    if state.over:
        lines.append("The café is closed: see the final scores.")
        return lines
    pid = state.current
    assert pid is not None
    if state.drawn is not None:
        if state.drawn_is_sorbet():
            lines.append(
                f"🍋 {player(pid)} drew **Lemon Sorbet**: they pick a monster type from their "
                "collection to discard with it."
            )
        else:
            lines.append(
                f"{player(pid)} drew **{monster_label(state.drawn)}**: "
                "they seat it at a table with a free seat."
            )
    else:
        lines.append(f"▶️ It's {player(pid)}'s turn: draw a monster or clear a table.")
        if state.is_last(pid):
            lines.append("🏃 Last diner this round: draws until they clear a table.")
        if not state.deck:
            lines.append("📭 The deck is empty: a table must be cleared (empty tables allowed).")
        elif not state.seatable():
            lines.append("🈵 Every table is full: a table must be cleared.")
        elif not state.clearable():
            lines.append("🍽️ No monster is seated yet: a card must be drawn.")
    cleared = state.cleared()
    if cleared:
        lines.append("✅ Cleared this round: " + ", ".join(player(p) for p in cleared))
    if state.dummy:
        lines.append(
            "🎭 Two players: once you have both cleared a table, the leftover table is discarded."
        )
    return lines


def player_field(state: MonsterCafeState, seat: int, pid: str) -> PanelField:
    collection = state.collections[pid]
    total = collection.breakdown().total
    took = next((t for t in state.taken if t.player == pid), None)
    if state.over:
        status = "🏁"
    elif took is not None:
        status = f"✅ cleared {took.slot} · {table_label(took.table)}"
    elif pid == state.current:
        status = "▶️ playing now"
    else:
        status = "⏳ still in the round"
    value = "\n".join(
        [
            f"{player(pid)} — {status}",
            f"🍽️ {tables_text(collection.tables)}",
            f"👾 {monsters_text(collection.monsters)}",
        ]
    )
    when = "final score" if state.over else "if the game ended now"
    return PanelField(name=f"Seat {seat} · {points(total)} {when}", value=value)


def table_panel(state: MonsterCafeState) -> Panel:
    title = "👹 Monster Café — " + ("game over" if state.over else f"round {state.round}/{ROUNDS}")
    fields = [PanelField(name=table_name(t), value=seats_text(t)) for t in state.tables]
    fields += [player_field(state, i + 1, p) for i, p in enumerate(state.players)]
    if state.log:
        fields.append(PanelField(name="📜 Latest", value="\n".join(state.log[-4:])))
    footer = ""
    if state.out_of_play:
        kinds = {MONSTER_KIND[c] for c in state.out_of_play if c in MONSTER_KIND}
        names = ", ".join(KIND_BY_KEY[k].name for k in COLLECTABLE_KINDS if k in kinds)
        footer = f"Out of play: {names} (and their tables)"
    return Panel(
        title=title,
        description="\n".join(status_lines(state)),
        fields=fields,
        colour=COLOUR,
        footer=footer,
        controls=controls(state),
        stamp="over" if state.over else f"round-{state.round}",
    )


# -- the public view -----------------------------------------------------------------------------


class TableView(BaseModel):
    slot: str
    card: str
    meal: str
    seats: list[str]
    free: int


class PlayerView(BaseModel):
    player: str
    monsters: list[str]
    tables: list[str]
    score: int
    cleared: str | None  # the table card they took this round


class MonsterCafeView(BaseModel):
    """Everything is public except the order of the monster and table decks."""

    round: int
    rounds: int
    over: bool
    current: str | None
    drawn: str | None
    deck_count: int
    table_deck_count: int
    tables: list[TableView]
    players: list[PlayerView]
    discard: list[str]
    out_of_play: list[str]
    dummy_discard: list[str]
    log: list[str]


def public_view(state: MonsterCafeState) -> MonsterCafeView:
    took = {t.player: t.table for t in state.taken}
    return MonsterCafeView(
        round=state.round,
        rounds=ROUNDS,
        over=state.over,
        current=state.current,
        drawn=state.drawn,
        deck_count=len(state.deck),
        table_deck_count=len(state.table_deck),
        tables=[
            TableView(slot=t.slot, card=t.card, meal=TABLE_MEAL[t.card], seats=t.seats, free=t.free)
            for t in state.tables
        ],
        players=[
            PlayerView(
                player=p,
                monsters=state.collections[p].monsters,
                tables=state.collections[p].tables,
                score=state.collections[p].breakdown().total,
                cleared=took.get(p),
            )
            for p in state.players
        ],
        discard=state.discard,
        out_of_play=state.out_of_play,
        dummy_discard=state.dummy_discard,
        log=state.log,
    )
