"""What players see: the compact public table (one message for everyone), its controls, and the
public view. Everything is public, so there is no private panel worth showing."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from games.kit import choice_controls
from games.monster_cafe.catalogue import (
    COLLECTABLE_KINDS,
    KIND_BY_KEY,
    KINDS,
    MEAL_BY_KEY,
    MONSTER_KIND,
    ROUNDS,
    SEATS_PER_TABLE,
    TABLE_MEAL,
    meal_of,
    meal_short,
    monster_label,
)
from games.monster_cafe.scoring import totals
from games.monster_cafe.state import (
    LOG_LENGTH,
    CancelClear,
    Clear,
    ConfirmClear,
    Draw,
    MonsterCafeState,
    Seat,
    Sorbet,
)
from games.monster_cafe.words import (
    COLOUR,
    monster_lines,
    points,
    seats_text,
    table_lines,
    table_short,
    wrapped,
)
from games.presentation import Button, Control, Option, Panel, PanelField, Picture, player

# More choices than this become a select (buttons would take more than two rows).
MAX_CHOICE_BUTTONS = 10


def private_panel() -> Panel:
    """The same for every player and every state: private_panel is NEVER, and a constant panel
    lets views_touched say that a move changes the table only."""
    return Panel(
        title="👹 Monster Café",
        description="Everything is on the table: play with the buttons on the table message.",
        colour=COLOUR,
    )


# -- the table panel -----------------------------------------------------------------------------


def short_meal(table: str) -> str:
    """A meal's name for a button, without what its parentheses explain ("B.B.L.T.")."""
    return meal_of(table).name.split(" (")[0]


def controls(state: MonsterCafeState) -> list[Control]:
    """The current player's legal moves (one shared table message: the bot checks the clicker)."""
    if state.over or state.current is None:
        return []
    pid = state.current
    if state.clearing is not None:
        table = state.table(state.clearing)
        assert table is not None
        return [
            Button(
                label=f"Confirm: clear {table.slot}",  # (short for phones: the text says which)
                emoji="✅",
                style="danger",
                action=ConfirmClear(table=table.card).model_dump(mode="json"),
            ),
            Button(label="Cancel", emoji="↩️", action=CancelClear().model_dump(mode="json")),
        ]
    if state.drawn is not None and state.drawn_is_sorbet():
        counts = Counter(MONSTER_KIND[c] for c in state.collections[pid].monsters)
        victims = [
            Option(
                label=f"Discard {KIND_BY_KEY[k].name} ×{counts[k]}",
                emoji=KIND_BY_KEY[k].emoji,
                action=Sorbet(kind=k).model_dump(mode="json"),
            )
            for k in COLLECTABLE_KINDS
            if counts[k]
        ]
        return choice_controls(
            victims,
            "🍋 Pick the monster type the sorbet scares off",
            max_buttons=MAX_CHOICE_BUTTONS,
            style="danger",
        )
    if state.drawn is not None:
        seats = [
            Option(
                label=f"Seat at {t.slot} · {short_meal(t.card)}",
                emoji=meal_of(t.card).emoji,
                action=Seat(table=t.card).model_dump(mode="json"),
            )
            for t in state.seatable()
        ]
        return choice_controls(
            seats, "Seat the monster at…", max_buttons=MAX_CHOICE_BUTTONS, style="primary"
        )
    out: list[Control] = []
    if state.can_draw():
        label = f"Draw a monster ({len(state.deck)} left)"
        out.append(
            Button(label=label, emoji="🎴", style="success", action=Draw().model_dump(mode="json"))
        )
    clears = [
        Option(
            label=f"Clear {t.slot} · {short_meal(t.card)} ×{len(t.seats)}",
            emoji=meal_of(t.card).emoji,
            action=Clear(table=t.card).model_dump(mode="json"),
        )
        for t in state.clearable()
    ]
    return out + choice_controls(
        clears, "Clear a table and sit out the round…", max_buttons=MAX_CHOICE_BUTTONS
    )


def status_lines(state: MonsterCafeState) -> list[str]:
    """Whose move and what it must be, then the deck: short lines for phones."""
    if state.over:
        return ["🏁 The café is closed: see the final scores."]
    pid = state.current
    assert pid is not None
    who = player(pid)
    lines = []
    if state.clearing is not None:
        table = state.table(state.clearing)
        assert table is not None
        lines.append(f"❓ {who} asks to clear **{table_short(table)}**.")
        lines.append("✅ Confirm or ↩️ cancel: nothing is taken yet.")
    elif state.drawn is not None and state.drawn_is_sorbet():
        lines.append(f"🍋 {who} drew **Lemon Sorbet**: pick a type.")
    elif state.drawn is not None:
        lines.append(f"🎴 {who} drew **{monster_label(state.drawn)}**.")
    else:
        lines.append(f"▶️ {who}'s turn: draw or clear.")
        if state.is_last(pid):
            lines.append("🏃 Last diner: draws until they clear.")
        if not state.deck:
            lines.append("📭 The deck is empty: clear a table (empty ones too).")
        elif not state.seatable():
            lines.append("🈵 Every table is full: clear one.")
        elif not state.clearable():
            lines.append("🍽️ No monster seated yet: draw.")
    lines.append(f"🎴 Deck: {len(state.deck)} · 🗑️ Discard: {len(state.discard)}")
    if state.dummy:
        lines.append("🎭 The table left after both clears is discarded.")
    return lines


def player_field(state: MonsterCafeState, pid: str, total: int) -> PanelField:
    collection = state.collections[pid]
    if state.over:
        name = f"🏁 {player(pid)} · {points(total)}"
    else:
        mark = "▶️ " if pid == state.current else ""
        name = f"{mark}{player(pid)} · 📈 now: {total}"
    lines = []
    took = next((t for t in state.taken if t.player == pid), None)
    if took is not None and not state.over:
        lines.append(f"✅ took {took.slot} · {meal_short(TABLE_MEAL[took.table])}")
    lines.append(table_lines(collection.tables))
    lines.append(monster_lines(collection.monsters))
    return PanelField(name=name, value="\n".join(lines))


def table_picture(state: MonsterCafeState) -> Picture:
    """The tables and the collections as a picture (players as tokens: front ends write their
    names), with the same in words as its alt text."""
    scores = totals(state)
    title = "Monster Cafe - " + ("game over" if state.over else f"round {state.round}/{ROUNDS}")
    tables = [
        {
            "slot": t.slot,
            "meal": MEAL_BY_KEY[TABLE_MEAL[t.card]].short,
            "seats": [MONSTER_KIND[c] for c in t.seats],
        }
        for t in state.tables
    ]
    players = []
    words = []
    for seat, pid in enumerate(state.players, start=1):
        collection = state.collections[pid]
        counts = Counter(MONSTER_KIND[c] for c in collection.monsters)
        kinds = [(k, counts[k]) for k in COLLECTABLE_KINDS if counts[k]]
        players.append(
            {
                "label": player(pid),
                "seat": seat,
                "score": scores[pid],
                "current": pid == state.current and not state.over,
                "monsters": kinds,
                "tables": len(collection.tables),
            }
        )
        held = ", ".join(f"{n} {KIND_BY_KEY[k].name}" for k, n in kinds) or "no monsters"
        words.append(f"{player(pid)}: {scores[pid]} points, {held}.")
    spec = {
        "title": title,
        "tables": tables,
        "players": players,
        "abbrev": {k.key: k.short[:2].upper() for k in KINDS},
        "seats_per_table": SEATS_PER_TABLE,
    }
    seated = [
        f"Table {t.slot} ({MEAL_BY_KEY[TABLE_MEAL[t.card]].short}): "
        + (", ".join(KIND_BY_KEY[MONSTER_KIND[c]].name for c in t.seats) or "empty")
        + f", {t.free} free."
        for t in state.tables
    ]
    alt = " ".join([f"{title}.", *seated, *words])
    return Picture(name="monster-cafe.png", alt=alt[:1000], spec=spec)


def table_panel(state: MonsterCafeState) -> Panel:
    title = "👹 Monster Café · " + ("game over" if state.over else f"round {state.round}/{ROUNDS}")
    fields = [PanelField(name=table_short(t), value=seats_text(t)) for t in state.tables]
    scores = totals(state)
    fields += [player_field(state, p, scores[p]) for p in state.players]
    if state.log:
        fields.append(PanelField(name="📜 Latest", value="\n".join(state.log[-LOG_LENGTH:])))
    footer = ""
    if state.out_of_play:
        kinds = {MONSTER_KIND[c] for c in state.out_of_play if c in MONSTER_KIND}
        names = [KIND_BY_KEY[k].name for k in COLLECTABLE_KINDS if k in kinds]
        footer = wrapped("Out of play: ", [*names, "their tables"], width=50)
    return Panel(
        title=title,
        description="\n".join(status_lines(state)),
        fields=fields,
        colour=COLOUR,
        footer=footer,
        controls=controls(state),
        stamp="over" if state.over else f"round-{state.round}",
        image=table_picture(state),
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
    clearing: str | None  # the table the current player asked to clear
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
    scores = totals(state)
    return MonsterCafeView(
        round=state.round,
        rounds=ROUNDS,
        over=state.over,
        current=state.current,
        drawn=state.drawn,
        clearing=state.clearing,
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
                score=scores[p],
                cleared=took.get(p),
            )
            for p in state.players
        ],
        discard=state.discard,
        out_of_play=state.out_of_play,
        dummy_discard=state.dummy_discard,
        log=state.log,
    )
