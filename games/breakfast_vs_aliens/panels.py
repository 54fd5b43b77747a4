"""The table (the public panel everyone clicks) and the private panel (peeks only)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from games import kit
from games.breakfast_vs_aliens.capture import alien_need, hero_traits, vector
from games.breakfast_vs_aliens.catalogue import (
    COLOUR_NAME,
    EFFECT_TEXT,
    EMOJI,
    card,
    colours_text,
    legend,
)
from games.breakfast_vs_aliens.effects import PEEK_SIZE
from games.breakfast_vs_aliens.rules import active_players, legal_actions
from games.breakfast_vs_aliens.scoring import REINFORCEMENT_BONUS, leaders, pts, score
from games.breakfast_vs_aliens.state import (
    Arrange,
    Attach,
    AttachStep,
    Burn,
    BurnStep,
    BvaState,
    Capture,
    Draw,
    DrawnStep,
    EscapeStep,
    Give,
    JamColour,
    JamStep,
    Keep,
    MilkStep,
    OfferStep,
    Pass,
    PeekStep,
    PutBack,
    Shield,
    ShieldStep,
    Take,
    Use,
)
from games.breakfast_vs_aliens.words import (
    COLOUR,
    alien_text,
    card_text,
    colour_word,
    hero_text,
    jail_text,
    need_text,
    treasure_text,
)
from games.engine import PlayerId
from games.presentation import (
    MAX_BUTTONS_PER_ROW,
    MAX_FIELD_VALUE,
    MAX_LABEL,
    MAX_OPTION_DESCRIPTION,
    MAX_OPTIONS,
    MAX_PHONE_LABEL,
    MAX_ROWS,
    Button,
    Control,
    Option,
    Panel,
    PanelField,
    Picture,
    Select,
    player,
)

CAPTURE_BUTTONS = 3  # the proposed capture of up to 3 aliens as buttons; the rest in a select


def fit(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lines_fit(lines: list[str], limit: int = MAX_FIELD_VALUE) -> str:
    """Join lines, dropping the last ones (with a count) when they would not fit a field."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    for i, line in enumerate(lines):
        tail = f"\n… and {len(lines) - i} more"
        if len("\n".join([*kept, line])) + len(tail) > limit:
            return "\n".join(kept) + tail
        kept.append(line)
    return "\n".join(kept)


# -- the status line ------------------------------------------------------------------------------


def status(state: BvaState) -> str:
    step = state.pending
    cur = player(state.current)
    if state.over:
        top = leaders(state)
        who = ", ".join(player(p) for p in top)
        verb = "share the win" if len(top) > 1 else "wins"
        return f"🏁 Game over — {who} {verb} with {pts(score(state, top[0]))}."
    if isinstance(step, OfferStep):
        assert state.alien is not None
        return f"🛸 {player(step.player)} may capture {alien_text(state, state.alien)} — or pass."
    if isinstance(step, DrawnStep):
        assert state.alien is not None
        return f"🛸 {cur} drew {alien_text(state, state.alien)}: capture it or put it back."
    if isinstance(step, AttachStep):
        return f"💎 {player(step.player)} picks the hero for {card(step.treasure).name}."
    if isinstance(step, JamStep):
        return f"🍓 {player(step.player)} picks the colour of their Jam Jar."
    if isinstance(step, ShieldStep):
        assert state.disaster is not None
        who = ", ".join(player(p) for p in step.waiting)
        return (
            f"🌪️ {card(state.disaster).name} revealed! {EFFECT_TEXT[card(state.disaster).effect]}"
            f"\n🛡️ Waiting for {who}: Syrup Shield, or let it happen?"
        )
    if isinstance(step, MilkStep):
        who = ", ".join(player(p) for p in step.waiting)
        done = [p for p in state.players if p in step.chosen]
        chosen = f" Chosen: {', '.join(player(p) for p in done)}." if done else ""
        return f"🥛 Spilled Milk: waiting for {who} to pick a hero to pass left.{chosen}"
    if isinstance(step, BurnStep):
        return f"🔥 Burnt Toast: {player(step.player)} discards one of their heroes."
    if isinstance(step, PeekStep):
        tool = "Magic Toaster" if step.tool == "magic_toaster" else "Cereal Compass"
        return f"🔎 {player(step.player)} is looking at {len(state.peek)} card(s) with the {tool}."
    if isinstance(step, EscapeStep):
        return f"🛸 Escape pile: {player(step.player)} may capture one alien — or pass."
    if state.stage == "draw":
        return f"👉 {cur}'s turn: draw a card."
    return f"👉 {cur}'s turn: capture, take a play card, use a treasure or draw."


# -- the table ------------------------------------------------------------------------------------


def seat_field(state: BvaState, pid: PlayerId) -> PanelField:
    mark = "👉 " if pid in active_players(state) else ""
    lines = [f"🍩 {hero_text(state, h)}" for h in state.heroes[pid]] or ["🍩 no heroes"]
    lines += [f"⏳ 💎 {treasure_text(state, t)} (waits for a hero)" for t in state.waiting[pid]]
    if state.jails[pid]:
        lines.append(f"🚔 {jail_text(state, state.jails[pid])}")
    return PanelField(
        name=f"{mark}{player(pid)} · {pts(score(state, pid))}", value=lines_fit(lines)
    )


def _card_spec(card_id: str) -> dict[str, Any]:
    c = card(card_id)
    return {"name": c.name, "traits": list(c.traits), "points": c.points}


def _card_words(card_id: str) -> str:
    c = card(card_id)
    traits = "/".join(COLOUR_NAME[t] for t in c.traits)
    return f"{c.name} ({traits}{f', {c.points} points' if c.points else ''})"


def table_picture(state: BvaState) -> Picture:
    """The alien, the play cards and each seat's heroes and jail as a picture (players as
    tokens: front ends write their names), with the same in words as its alt text. Only
    public cards."""
    awaited = active_players(state)
    mode = "Full Pancake" if state.full else "Mini-Muffin"
    seats = []
    words = [f"Breakfast vs Aliens, {mode}."]
    words.append(
        f"Alien to capture: {_card_words(state.alien)}." if state.alien else "No alien now."
    )
    if state.full:
        words.append(
            "Play cards: " + (", ".join(_card_words(c) for c in state.play) or "none") + "."
        )
    for seat, pid in enumerate(state.players, start=1):
        seats.append(
            {
                "label": player(pid),
                "seat": seat,
                "score": score(state, pid),
                "awaited": pid in awaited and not state.over,
                "heroes": [_card_spec(h) for h in state.heroes[pid]],
                "captured": len(state.jails[pid]),
            }
        )
        heroes = ", ".join(_card_words(h) for h in state.heroes[pid]) or "no heroes"
        words.append(
            f"{player(pid)}: {score(state, pid)} points, {heroes}, {len(state.jails[pid])} in jail."
        )
    spec = {
        "title": f"Breakfast vs Aliens - {mode}",
        "alien": _card_spec(state.alien) if state.alien else None,
        "play": [_card_spec(c) for c in state.play] if state.full else [],
        "seats": seats,
        "deck": len(state.deck),
    }
    return Picture(name="breakfast-vs-aliens.png", alt=" ".join(words)[:1000], spec=spec)


def table_panel(state: BvaState) -> Panel:
    mode = "Full Pancake 🥞" if state.full else "Mini-Muffin 🧁"
    lines = [status(state), ""]
    deck = f"🂠 Deck: {len(state.deck)} · 🗑️ Discard: {len(state.discard)}"
    if state.extra_turns and not state.over:
        deck += f" · ⚡ extra turns: {state.extra_turns}"
    lines.append(deck)
    if state.alien is not None and state.alien_disasters:
        lines.append(f"🌪️ Stacked on it: {len(state.alien_disasters)} disaster(s), 1 pt each")
    if state.beside:
        if state.full:
            lines.append(
                f"👾 Reinforcements: the next capture gets +{REINFORCEMENT_BONUS * len(state.beside)} pts"
            )
        else:
            colours = [card(d).bar for d in state.beside]
            stack = need_text(vector(c for c in colours if c is not None))
            lines.append(f"🌪️ Stacked for the next alien: {stack}")
    if state.full:
        lines.append("🎴 **Play cards**")
        lines += [f"• {card_text(state, c)}" for c in state.play] or ["• (none)"]
    if state.log:
        lines.append("")
        lines += state.log[-3:]
    fields = [seat_field(state, p) for p in state.players]
    if state.escaped:
        escaped = [
            f"{card(a).name} {need_text(alien_need(state, a))} ({card(a).points})"
            for a in state.escaped
        ]
        fields.append(PanelField(name="🛸 Escape pile", value=lines_fit([", ".join(escaped)])))
    return Panel(
        title=f"Breakfast vs Aliens · {mode}",
        description="\n".join(lines),
        fields=fields,
        colour=COLOUR,
        footer=f"{legend()} · 💎 treasure · 🚔 jail",
        controls=[] if state.over else table_controls(state),
        stamp="over" if state.over else "",
        image=table_picture(state),
    )


def action_of(move: BaseModel) -> dict[str, Any]:
    return move.model_dump(mode="json")


def capture_label(state: BvaState, move: Capture) -> str:
    """A capture in a few words a phone shows whole (the 🚔 emoji says "capture"): the alien and
    its heroes by their last names (no two heroes share one); shorter still when that is long."""
    alien = card(move.alien).name
    heroes = " + ".join(card(h).name.split()[-1] for h in move.heroes) or "the spatula alone"
    for text in (f"{alien}: {heroes}", f"{alien.split()[-1]}: {heroes}"):
        if len(text) <= MAX_PHONE_LABEL:
            return text
    return f"{alien}: {len(move.heroes)} heroes"


def capture_description(state: BvaState, move: Capture) -> str:
    have = [t for h in move.heroes for t in hero_traits(state, h)]
    need = sum(alien_need(state, move.alien)) - (1 if move.ignore else 0)
    text = f"{len(move.heroes)} hero(es), {need_text(vector(have))}, wastes {len(have) - need}"
    if move.ignore is not None:
        text += f" · 🥄 ignores {EMOJI[move.ignore]}"
    return fit(text, MAX_OPTION_DESCRIPTION)


def capture_controls(state: BvaState, moves: list[Capture], beside: int) -> list[Control]:
    """The proposal for each alien (up to 3) as buttons; the other sets as buttons too while
    they fit in the message's rows with the ``beside`` other buttons (a row left for the
    front end's own, e.g. Show my hand), else in one select."""
    buttons: list[Control] = []
    others: list[Capture] = []
    seen: set[str] = set()
    for move in moves:
        if move.alien not in seen and len(seen) < CAPTURE_BUTTONS:
            seen.add(move.alien)
            buttons.append(
                Button(
                    label=capture_label(state, move),
                    action=action_of(move),
                    style="success",
                    emoji="🚔",
                )
            )
        else:
            others.append(move)
    if others and len(buttons) + len(others) + beside <= (MAX_ROWS - 1) * MAX_BUTTONS_PER_ROW:
        buttons += [
            Button(label=capture_label(state, m), action=action_of(m), emoji="🚔") for m in others
        ]
    elif others:
        options = [
            Option(
                label=capture_label(state, m),
                description=capture_description(state, m),
                action=action_of(m),
                emoji="🚔",
            )
            for m in others[:MAX_OPTIONS]
        ]
        buttons.append(Select(placeholder="Or capture with other heroes…", options=options))
    return buttons


def hero_choices(state: BvaState, pid: PlayerId, make: type[Attach | Give | Burn]) -> list[Option]:
    """A hero by name and traits (short enough for a phone's button); its treasures too in
    a select's description."""
    return [
        Option(
            label=fit(f"{card(h).name} {colours_text(hero_traits(state, h))}"),
            description=fit(hero_text(state, h), MAX_OPTION_DESCRIPTION),
            action=action_of(make(hero=h)),
        )
        for h in state.heroes[pid]
    ]


def table_controls(state: BvaState) -> list[Control]:
    step = state.pending
    if isinstance(step, PeekStep):
        return []  # the peeker decides in their private panel
    if isinstance(step, MilkStep):
        return [
            Select(
                placeholder=fit(f"{player(p)}: pass a hero to your left", 150),
                options=hero_choices(state, p, Give)[:MAX_OPTIONS],
            )
            for p in step.waiting
        ]
    if isinstance(step, ShieldStep):
        return [
            Button(
                label="Use Syrup Shield",
                emoji="🛡️",
                style="success",
                action=action_of(Shield(use=True)),
            ),
            Button(label="Let it happen", action=action_of(Shield(use=False))),
        ]
    pid = step.player if step is not None else state.current
    legal = legal_actions(state, pid)
    if isinstance(step, AttachStep):
        return kit.choice_controls(
            hero_choices(state, pid, Attach), f"Attach {card(step.treasure).name} to…"
        )
    if isinstance(step, BurnStep):
        return kit.choice_controls(hero_choices(state, pid, Burn), "Discard which hero?")
    if isinstance(step, JamStep):
        return [
            Button(label=colour_word(c), emoji=EMOJI[c], action=action_of(JamColour(colour=c)))
            for c in ("R", "B", "P", "Y")
        ]
    controls: list[Control] = []
    for move in legal:
        if isinstance(move, Draw):
            controls.append(
                Button(label="Draw a card", emoji="🂠", style="primary", action=action_of(move))
            )
        elif isinstance(move, Take):
            controls.append(
                Button(
                    label=fit(f"Take {card(move.card).name}"), emoji="🫳", action=action_of(move)
                )
            )
        elif isinstance(move, Use):
            controls.append(
                Button(label=f"Use {card(move.card).name}", emoji="💎", action=action_of(move))
            )
        elif isinstance(move, Pass):
            controls.append(Button(label="Pass", emoji="🙅", action=action_of(move)))
        elif isinstance(move, PutBack):
            controls.append(Button(label="Put it at the bottom", emoji="↩️", action=action_of(move)))
    moves = [m for m in legal if isinstance(m, Capture)]
    return capture_controls(state, moves, len(controls)) + controls


# -- the private panel ----------------------------------------------------------------------------


def private_panel(state: BvaState, viewer: PlayerId) -> Panel:
    step = state.pending
    if isinstance(step, PeekStep) and step.player == viewer and not state.over:
        return peek_panel(state, viewer, step)
    lines = ["Everything in this game is on the table — only the deck is hidden."]
    if isinstance(step, MilkStep) and viewer in step.chosen:
        lines.append(f"🥛 You pass {card(step.chosen[viewer]).name} to your left.")
    lines.append(f"You have {pts(score(state, viewer))}.")
    return Panel(
        title="🥞 Breakfast vs Aliens",
        description="\n".join(lines),
        colour=COLOUR,
    )


def peek_panel(state: BvaState, viewer: PlayerId, step: PeekStep) -> Panel:
    size = PEEK_SIZE[step.tool]
    seen = "\n".join(f"{i}. {card_text(state, c)}" for i, c in enumerate(state.peek, start=1))
    controls: list[Control]
    if step.tool == "magic_toaster":
        title = "🔎 Magic Toaster — only you see these"
        text = (
            f"The top {len(state.peek)} card(s) of the deck (top first):\n{seen}\n\n"
            "Keep a hero or treasure; the rest go to the bottom of the deck."
        )
        options = [
            Option(
                label=fit(f"Keep {card(m.card).name}" if m.card else "Put them back"),
                action=action_of(m),
            )
            for m in legal_actions(state, viewer)
            if isinstance(m, Keep)
        ]
        controls = kit.choice_controls(options, "Keep which card?", style="primary")
    else:
        title = "🔎 Cereal Compass — only you see these"
        text = (
            f"The top {len(state.peek)} card(s) of the deck (top first):\n{seen}\n\n"
            f"Put them back on top in any order (up to {size})."
        )
        options = [
            Option(
                label=fit("Top → " + ", ".join(card(c).name for c in m.order)),
                action=action_of(m),
            )
            for m in legal_actions(state, viewer)
            if isinstance(m, Arrange)
        ]
        controls = kit.choice_controls(options, "Put them back in this order…", max_buttons=2)
    return Panel(
        title=title,
        description=text,
        colour=COLOUR,
        controls=controls,
        stamp=f"peek-{state.turn}",
    )
