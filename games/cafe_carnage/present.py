"""The table and DM panels, the words they share with the announcements, and which panels a move
can change. Lines are kept phone-short (≈ 45 characters, a player's name counted as 10).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games import kit
from games.cafe_carnage.catalogue import (
    ACTION_EMOJI,
    ACTION_KINDS,
    ACTION_NAME,
    ACTION_SHORT,
    COURSE_EMOJI,
    COURSE_NAME,
    COURSES,
    IOU_AMOUNT,
    ROUNDS,
    ActionKind,
    Course,
    action_kind,
    dish,
)
from games.cafe_carnage.choices import missing, missing_words, on_offer, repeats
from games.cafe_carnage.scoring import winners
from games.cafe_carnage.state import CafeState, Standing
from games.engine import ALL_VIEWS, PlayerId
from games.presentation import (
    Button,
    Control,
    Option,
    Panel,
    PanelField,
    player,
)

COLOUR = 0xC0392B
# -- words ----------------------------------------------------------------------------------------


def wrap(parts: list[str], sep: str = ", ", first: str = "") -> str:
    """``first`` then ``parts`` joined by ``sep``, on one line: Discord wraps it to the screen
    (a line broken by hand is broken twice on a narrower one)."""
    return first + sep.join(parts)


def names(players: list[PlayerId]) -> str:
    return wrap([player(p) for p in players])


def badges(state: CafeState, p: PlayerId, gp: int, budget: int) -> str:
    """⭐ 12 GP · 💰 $18, plus 📝 IOU and 🚫🏃 (RUN! spent) when they apply."""
    text = f"⭐ {gp} GP · 💰 ${budget}"
    if state.iou_draws[p]:
        text += " · 📝 IOU"
    if p in state.run_discarded:
        text += " · 🚫🏃"
    return text


def dish_label(name: str, value: int) -> str:
    return f"{name} (${value})"


def gp_history_field(state: CafeState) -> PanelField:
    lines = [
        f"{player(p)}: " + " → ".join(str(r.players[p].gp_after) for r in state.history)
        for p in state.players
    ]
    return PanelField(name="📈 GP by round", value="\n".join(lines))


def standing_lines(s: Standing) -> str:
    """One player a line (a second line, indented by hand, wrapped badly on a phone)."""
    if s.iou:
        how = f"IOU: no bonus, ${s.budget} left"
    else:
        how = f"{s.gp_before_bonus} + {s.bonus} bonus for ${s.budget} left"
    head = f"**{s.rank}.** {player(s.player)} — ⭐ **{s.gp} GP**"
    return f"{head} ({how})"


def standings_field(standings: list[Standing]) -> PanelField:
    return PanelField(
        name="🏆 Final standings", value="\n".join(standing_lines(s) for s in standings)
    )


def winners_line(state: CafeState) -> str:
    won = winners(state.standings)
    if len(won) == 1:
        return f"🏆 {player(won[0])} wins with {state.gp[won[0]]} GP!"
    best = won[0]
    return f"🏆 Shared win, {state.gp[best]} GP and ${state.budget[best]} each:\n" + names(won)


# -- the table ------------------------------------------------------------------------------------


def table_panel(state: CafeState) -> Panel:
    fields: list[PanelField] = []
    if state.over:
        title = "🍽️ Café Carnage — the week is over"
        description = winners_line(state)
        fields.append(standings_field(state.standings))
    else:
        title = f"🍽️ Café Carnage — round {state.round}/{ROUNDS}"
        description = (
            "Orders go by DM (`/game hand` re-sends).\n"
            f"⏰ After {kit.duration(state.options.turn_timeout)}, late diners get defaults."
        )
        lines = [
            f"{'✅' if p in state.confirmed else '⏳'} {player(p)} "
            + badges(state, p, state.gp[p], state.budget[p])
            for p in state.players
        ]
        fields.append(_field("Diners · ✅ ordered · ⏳ not yet", "\n".join(lines)))
    if state.history:
        fields.append(gp_history_field(state))
    decks = " ".join(f"{COURSE_EMOJI[c]} {len(state.decks[c])}" for c in COURSES)
    footer = f"Decks {decks} · 🗳️ {sum(state.ballot_discard.values())} ballots out"
    if state.options.no_repeats:
        description += "\n🚫 No repeats: no dish twice this week."
    # Panel(title=…, description=…, fields=…, colour=…, footer=…), made as player_panel's is
    values = {
        "title": title,
        "description": description,
        "fields": fields,
        "colour": COLOUR,
        "footer": footer,
        "controls": [],
        "stamp": "",
        "image": None,
        "layout": "embed",
    }
    return kit.made(Panel, values, _TABLE_FIELDS)


_TABLE_FIELDS = {"title", "description", "fields", "colour", "footer"}  # (see kit.made)


# -- a player's DM --------------------------------------------------------------------------------


def option_label(name: str, value: int, copies: int, eaten: bool) -> str:
    """A dish's button: "Tomato Soup ×2 ($1)", "+ · 0 GP" when it would be a repeat (phone-short:
    the longest is 34 characters)."""
    label = dish_label(f"{name} ×{copies}" if copies > 1 else name, value)
    return f"{label} · 0 GP" if eaten else label


# The choices and the hand's field are made once and kept, by keys that are one str each: a
# young GC pass walks every container made since the last one, and a key of tuples (or the
# tuple of a cached call's arguments) would be more of them for every click (strs are never
# walked). Dish ids hold no "|" ("S01"); an action card's id names its owner ("<player id>:run"),
# and player ids hold no control character (Discord's ids, robots' "bot-…"): the hand's
# keys join with US (\x1f).
_OPTION_FIELDS = {"label", "action", "emoji", "default"}  # what Option(…) below would count


def _option(label: str, action: dict[str, Any], emoji: str, default: bool) -> Option:
    """``Option(label=…, action=…, emoji=…, default=…)`` of the game's own values: the same
    model, made without validating what is already of its fields' types."""
    values = {
        "label": label,
        "action": action,
        "description": "",
        "emoji": emoji,
        "default": default,
    }
    return kit.made(Option, values, _OPTION_FIELDS)


@lru_cache(maxsize=4096)
def _dish_option(card: str, copies: int, repeat: bool, default: bool) -> Option:
    """One dish of a course's menu (``copies`` of it on the menu; ``repeat``: eaten before;
    ``default``: the one picked): the same few come back panel after panel, so each is made
    once (panels are never changed once made, so they may share it)."""
    d = dish(card)
    return _option(
        option_label(d.name, d.value, copies, repeat),
        {"type": "pick", "card": card},
        COURSE_EMOJI[d.course],
        default,
    )


def dish_options(
    state: CafeState, p: PlayerId, course: Course, eaten: set[str]
) -> Sequence[Option]:
    """One choice per distinct dish on offer (two copies are one dish: "×2"), the one picked
    marked ``default``; it picks the copy already picked, else the first. ``eaten``: the dishes
    that would be repeats."""
    return _menu_options(
        menu_key(state.menus[p][course], frozenset(eaten), state.picks[p].get(course))
    )


def menu_key(menu: list[str], eaten: frozenset[str], picked: str | None) -> str:
    """A course's choices' key: the pick, the menu's cards, then the dishes eaten (by name,
    after a newline: a name may hold any character but that one)."""
    key = f"{picked or ''}|{'|'.join(menu)}"  # (order_controls writes this part out)
    return key + "\n" + "\n".join(sorted(eaten)) if eaten else key


@lru_cache(maxsize=8192)
def _menu_options(key: str) -> tuple[Option, ...]:
    """A course's choices by their :func:`menu_key`, made once per menu and pick: a player's
    other clicks this round leave them as they are, so their buttons are drawn once too
    (``kit.button_of``)."""
    cards, _, names = key.partition("\n")
    picked, *menu = cards.split("|")
    eaten = set(names.split("\n")) if names else set()
    picked_name = dish(picked).name if picked else None
    copies: dict[str, int] = {}
    first: dict[str, str] = {}
    for card in on_offer(menu, eaten):
        name = dish(card).name
        copies[name] = copies.get(name, 0) + 1
        first.setdefault(name, card)
    return tuple(
        _dish_option(
            picked if picked_name == name else card,
            copies[name],
            name in eaten,
            picked_name == name,
        )
        for name, card in first.items()
    )


def card_options(state: CafeState, p: PlayerId) -> Sequence[Option]:
    """One choice per kind of action card in hand ("Split ×2"), the one played marked
    ``default``; it plays the card already played, else the first of the kind."""
    return _hand_options((state.played.get(p) or "") + US + US.join(state.hands[p]))


US = "\x1f"  # the hand's keys' separator


@lru_cache(maxsize=2048)  # three options at most, shared: ~1 KB each at most
def _hand_options(key: str) -> tuple[Option, ...]:
    """A hand's choices by their key (the card played, then the hand, US-joined), made once
    per hand and ballot (as ``_menu_options``) from parts made once: a card's choice stays the
    same object when the ballot changes another kind's."""
    played, *hand = key.split(US)
    kinds = [action_kind(card) for card in hand]
    played_kind = action_kind(played) if played else None
    return tuple(
        _card_option(
            f"{played if played_kind == kind else hand[kinds.index(kind)]}{US}{count}"
            f"{US}{'1' if played_kind == kind else '0'}"
        )
        for kind, count in zip(ACTION_KINDS, _counts(kinds), strict=True)
        if count
    )


def _counts(kinds: list[ActionKind | None]) -> tuple[int, ...]:
    return tuple(kinds.count(kind) for kind in ACTION_KINDS)


@lru_cache(maxsize=2048)
def _hand_field_of(hand: str) -> PanelField:
    """The Hand field of a hand (its cards US-joined)."""
    return _hand_field(_counts([action_kind(card) for card in hand.split(US)]))


@lru_cache(maxsize=64)
def _hand_field(counts: tuple[int, ...]) -> PanelField:
    """The Hand field of a hand holding ``counts`` cards of each kind (every player's alike)."""
    return PanelField(
        name="Hand",
        value=" · ".join(
            f"{ACTION_EMOJI[k]} {ACTION_SHORT[k]} ×{n}"
            for k, n in zip(ACTION_KINDS, counts, strict=True)
            if n
        ),
    )


@lru_cache(maxsize=8192)
def _card_option(key: str) -> Option:
    """One kind of action card in hand ("Split ×2"), by its key: the card it plays, how many
    of its kind the hand holds, and whether it is the one played ("1"), US-joined."""
    card, count, default = key.split(US)
    kind = action_kind(card)
    assert kind is not None  # (a hand holds action cards only)
    return _option(
        f"{ACTION_SHORT[kind]} ×{count}",
        {"type": "play", "card": card},
        ACTION_EMOJI[kind],
        default == "1",
    )


def _confirm(ready: bool) -> Button:
    return Button(
        label="Confirm order & ballot",
        action={"type": "confirm"},
        style="success",
        emoji="✅",
        disabled=not ready,
    )


# Made once: the kit's layout moves them to their row (and draws that once too).
CONFIRM, CONFIRM_LATER = _confirm(True), _confirm(False)
READY, NOT_READY = (CONFIRM,), (CONFIRM_LATER,)
CHOOSE: dict[Course, str] = {c: f"{COURSE_EMOJI[c]} Choose your {c}" for c in COURSES}
CHOOSE_CARD = "🗳️ Choose your action card (secret)"
NOTHING_EATEN: frozenset[str] = frozenset()


def order_controls(
    state: CafeState, p: PlayerId, eaten: frozenset[str], ready: bool, cards: Sequence[Option]
) -> list[Control]:
    """A row of buttons per course and one for the action card (``cards``; what is picked so
    far is ``primary``), Confirm in the last row: five rows, one tap a choice. Each course's
    choices are the same tuple while its pick stands, so the kit draws its row once."""
    menus, picks = state.menus[p], state.picks[p]
    groups: list[kit.Group] = [
        (
            CHOOSE[c],
            _menu_options(
                menu_key(menus[c], eaten, picks.get(c))
                if eaten
                else f"{picks.get(c) or ''}|{'|'.join(menus[c])}"  # (menu_key's, a call less)
            ),
        )
        for c in COURSES
    ]
    groups.append((CHOOSE_CARD, cards))
    return kit.grouped_controls(groups, tail=READY if ready else NOT_READY)


def order_lines(state: CafeState, p: PlayerId, eaten: set[str]) -> str:
    lines = []
    total = gp = 0
    picks = state.picks[p]
    for course in COURSES:
        card = picks.get(course)
        if card is None:
            lines.append(_NOT_PICKED[course])
            continue
        d = dish(card)
        total += d.value
        if d.name in eaten:
            lines.append(f"{_picked_line(card)} — 0 GP")
        else:
            gp += d.value
            lines.append(_picked_line(card))
    played = state.played.get(p)
    lines.append(_BALLOT_LINE[action_kind(played) if played else None])
    if total:
        lines.append(f"Meal so far: **${total}** → **+{gp} GP**")
    if total > state.budget[p]:
        lines.append(
            f"📝 More than your ${state.budget[p]}: a bill you can't pay means an IOU "
            f"(${IOU_AMOUNT} from the supply for −{IOU_AMOUNT} GP each time, and no end bonus)."
        )
    return "\n".join(lines)


# An order's lines that depend on one card (or none), made once (strings only).
_NOT_PICKED = {c: f"{COURSE_EMOJI[c]} {COURSE_NAME[c]}: —" for c in COURSES}
_BALLOT_LINE: dict[ActionKind | None, str] = {
    None: "🗳️ —",
    **{k: f"🗳️ {ACTION_EMOJI[k]} {ACTION_NAME[k]}" for k in ACTION_KINDS},
}


@lru_cache(maxsize=256)  # a line a dish (105)
def _picked_line(card: str) -> str:
    d = dish(card)
    return f"{COURSE_EMOJI[d.course]} {dish_label(d.name, d.value)}"


def repeats_field(state: CafeState, p: PlayerId, eaten: set[str]) -> PanelField:
    """Under no_repeats: the dishes eaten this week, and this menu's eaten dishes (left out of
    the choices while the course offers a fresh one)."""
    lines = []
    for course in COURSES:
        menu = [dish(card).name for card in state.menus[p][course]]
        gone = sorted({name for name in menu if name in eaten})
        if len(gone) == len(set(menu)):
            lines.append(f"{COURSE_EMOJI[course]} All eaten before: pick one, 0 GP.")
        elif gone:
            lines.append(
                wrap([f"~~{n}~~" for n in gone], first=f"{COURSE_EMOJI[course]} Not offered: ")
            )
    lines.append(wrap(sorted(eaten), first="Eaten: "))
    return PanelField(name="🚫 No repeats", value="\n".join(lines))


def player_panel(state: CafeState, p: PlayerId) -> Panel:
    me = _me(state.budget[p], state.gp[p], bool(state.iou_draws[p]), p in state.run_discarded)
    if state.over:
        return Panel(
            title="🍽️ Café Carnage — the week is over",
            description=me + "\n" + winners_line(state),
            fields=[standings_field(state.standings)],
            colour=COLOUR,
            stamp="over",
        )
    eaten = repeats(state, p)
    hand = US.join(state.hands[p])
    fields = [
        _field("Order", order_lines(state, p, eaten)),
        _hand_field_of(hand),
    ]
    if eaten:
        fields.append(repeats_field(state, p, eaten))
    controls: list[Control] = []
    if p in state.confirmed:
        description = me + CONFIRMED
    else:
        gaps = missing(state, p)
        description = me + _choosing(tuple(gaps))
        kept = frozenset(eaten) if eaten else NOTHING_EATEN
        cards = _hand_options((state.played.get(p) or "") + US + hand)
        controls = order_controls(state, p, kept, not gaps, cards)
    # Panel(title=…, description=…, fields=…, colour=…, controls=…, stamp=…) of the game's own
    # values, made without validating (which would only copy the lists).
    values = {
        "title": f"🍽️ Your order — round {state.round}/{ROUNDS}",
        "description": description,
        "fields": fields,
        "colour": COLOUR,
        "footer": "",
        "controls": controls,
        "stamp": f"round-{state.round}",
        "image": None,
        "layout": "embed",
    }
    return kit.made(Panel, values, _PANEL_FIELDS)


# The fields a validated DM panel counts as set (see kit.made).
_PANEL_FIELDS = {"title", "description", "fields", "colour", "controls", "stamp"}


def _field(name: str, value: str) -> PanelField:
    """``PanelField(name=…, value=…)``, made as the panels are (see kit.made)."""
    return kit.made(PanelField, {"name": name, "value": value, "inline": False}, _FIELD_FIELDS)


_FIELD_FIELDS = {"name", "value"}


# A DM's texts that a click leaves alone, made once (strings only: the collector never walks
# them): who the player is, and what they are asked for.
@lru_cache(maxsize=1024)
def _me(budget: int, gp: int, iou: bool, run_spent: bool) -> str:
    me = f"💰 Budget **${budget}** · ⭐ **{gp} GP**"
    if iou:
        me += "\n📝 IOU: no end-of-game bonus."
    if run_spent:
        me += "\n🚫🏃 Your RUN! is spent."
    return me


# Who is still choosing is on the table: keeping it out of here means this DM is not edited
# every time someone else confirms.
CONFIRMED = "\n✅ **Confirmed**: dinner is served in the channel once all have ordered."


@lru_cache(maxsize=64)
def _choosing(gaps: tuple[str, ...]) -> str:
    text = (
        "\nTap a dish per course and an action card (your picks turn blue), then "
        "**Confirm**: until then you can change your mind."
    )
    if gaps:
        text += f"\nStill to choose: {missing_words(list(gaps))}."
    return text


# -- which panels a move changes ------------------------------------------------------------------


def views_touched(
    before: CafeState, after: CafeState, player_id: PlayerId
) -> set[PlayerId | None] | None:
    """A pick or ballot changes only the mover's DM (the table shows who has confirmed, never
    who is choosing); a confirm also changes the table; the one that completes the round
    changes everything."""
    if after.round != before.round or after.over != before.over:
        return ALL_VIEWS
    if len(after.confirmed) != len(before.confirmed):
        return {player_id, None}
    return {player_id}
