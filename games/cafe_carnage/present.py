"""What each viewer may see (views), the table and DM panels, and the channel announcements.

Public text names dishes, never dish card ids: eaten cards can be shuffled back and dealt to
someone else's (secret) menu later. Ballots appear only as an anonymous tally.
"""

from __future__ import annotations

from pydantic import BaseModel

from games.cafe_carnage.cards import (
    ACTION_EMOJI,
    ACTION_KINDS,
    ACTION_NAME,
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
from games.cafe_carnage.rules import already_eaten, missing, missing_words
from games.cafe_carnage.state import CafeState, PlayerRound, RoundRecord, Standing
from games.engine import PlayerId
from games.presentation import Announcement, Button, Option, Panel, PanelField, Select, player

COLOUR = 0xC0392B
GUARD_RULE = (
    "A lone runner escapes; runners whose meals all cost the same all escape. Otherwise the "
    "priciest meal is caught (1 runner if 2–4 run, 2 if 5+ run; ties at the boundary are all "
    "caught) and the caught pay for **all** runners' meals, split equally, rounded up."
)

# -- views ----------------------------------------------------------------------------------------


class PlayerPublic(BaseModel):
    player: PlayerId
    gp: int
    budget: int
    iou: bool
    iou_draws: int
    run_discarded: bool
    status: str  # "waiting" | "choosing" | "confirmed" | "done"
    eaten: list[str]


class PublicView(BaseModel):
    round: int
    rounds: int
    over: bool
    no_repeats: bool
    turn_timeout: int
    guards: int
    players: list[PlayerPublic]
    deck_sizes: dict[Course, int]
    eaten_pile_sizes: dict[Course, int]
    ballot_discard: int  # how many Split/Separate cards were discarded, owners unknown
    history: list[RoundRecord]
    gp_history: dict[PlayerId, list[int]]  # GP after each round
    standings: list[Standing]


class MenuItem(BaseModel):
    card: str
    course: Course
    name: str
    value: int
    gp: int
    already_eaten: bool


class PrivateView(BaseModel):
    table: PublicView
    player: PlayerId
    menu: dict[Course, list[MenuItem]]
    picks: dict[Course, str]
    hand: list[str]
    hand_counts: dict[ActionKind, int]
    played: str | None
    confirmed: bool
    missing: list[str]


def guards(state: CafeState) -> int:
    return 1 if len(state.players) <= 4 else 2


def status(state: CafeState, p: PlayerId) -> str:
    if state.over:
        return "done"
    if p in state.confirmed:
        return "confirmed"
    return "choosing" if state.picks[p] or p in state.played else "waiting"


def public_view(state: CafeState) -> PublicView:
    return PublicView(
        round=state.round,
        rounds=ROUNDS,
        over=state.over,
        no_repeats=state.options.no_repeats,
        turn_timeout=state.options.turn_timeout,
        guards=guards(state),
        players=[
            PlayerPublic(
                player=p,
                gp=state.gp[p],
                budget=state.budget[p],
                iou=state.iou_draws[p] > 0,
                iou_draws=state.iou_draws[p],
                run_discarded=p in state.run_discarded,
                status=status(state, p),
                eaten=list(state.eaten_by[p]),
            )
            for p in state.players
        ],
        deck_sizes={c: len(state.decks[c]) for c in COURSES},
        eaten_pile_sizes={c: len(state.eaten[c]) for c in COURSES},
        ballot_discard=sum(state.ballot_discard.values()),
        history=list(state.history),
        gp_history={p: [r.players[p].gp_after for r in state.history] for p in state.players},
        standings=list(state.standings),
    )


def menu_item(state: CafeState, p: PlayerId, card: str) -> MenuItem:
    d = dish(card)
    eaten = already_eaten(state, p, card)
    return MenuItem(
        card=card,
        course=d.course,
        name=d.name,
        value=d.value,
        gp=0 if eaten else d.value,
        already_eaten=eaten,
    )


def hand_counts(state: CafeState, p: PlayerId) -> dict[ActionKind, int]:
    kinds = [action_kind(card) for card in state.hands[p]]
    return {kind: kinds.count(kind) for kind in ACTION_KINDS}


def private_view(state: CafeState, p: PlayerId) -> PrivateView:
    menus = state.menus.get(p, {})
    return PrivateView(
        table=public_view(state),
        player=p,
        menu={c: [menu_item(state, p, card) for card in menus.get(c, [])] for c in COURSES},
        picks=dict(state.picks[p]),
        hand=list(state.hands[p]),
        hand_counts=hand_counts(state, p),
        played=state.played.get(p),
        confirmed=p in state.confirmed,
        missing=[] if state.over else missing(state, p),
    )


# -- words ----------------------------------------------------------------------------------------


def duration(seconds: int) -> str:
    if seconds % 86400 == 0:
        return f"{seconds // 3600} h" if seconds <= 2 * 86400 else f"{seconds // 86400} days"
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def names(players: list[PlayerId]) -> str:
    return ", ".join(player(p) for p in players)


def badges(state: CafeState, p: PlayerId) -> str:
    return money_badges(state, p, state.gp[p], state.budget[p])


def round_badges(state: CafeState, p: PlayerId, pr: PlayerRound) -> str:
    """GP and $ right after that round (before any end-of-game bonus)."""
    return money_badges(state, p, pr.gp_after, pr.budget_after)


def money_badges(state: CafeState, p: PlayerId, gp: int, budget: int) -> str:
    parts = [f"⭐ {gp} GP", f"💰 ${budget}"]
    if state.iou_draws[p]:
        parts.append("📝 IOU")
    if p in state.run_discarded:
        parts.append("🚫🏃 RUN! discarded")
    return " · ".join(parts)


STATUS_ICON = {"waiting": "⏳", "choosing": "✏️", "confirmed": "✅", "done": "🍽️"}


def waiting_for(state: CafeState) -> list[PlayerId]:
    return [p for p in state.players if p not in state.confirmed]


def gp_history_field(state: CafeState) -> PanelField:
    lines = [
        f"{player(p)}: " + " → ".join(str(r.players[p].gp_after) for r in state.history)
        for p in state.players
    ]
    return PanelField(name="📈 GP after each round", value="\n".join(lines))


def dish_label(name: str, value: int) -> str:
    return f"{name} (${value})"


# -- the table ------------------------------------------------------------------------------------


def table_panel(state: CafeState) -> Panel:
    fields: list[PanelField] = []
    if state.over:
        title = "🍽️ Café Carnage — the week is over"
        description = winners_line(state) + "\n" + "Final standings below."
        fields.append(standings_field(state.standings))
    else:
        title = f"🍽️ Café Carnage — round {state.round}/{ROUNDS}"
        description = (
            "Everyone secretly orders a starter, a main and a dessert and plays one action card "
            "— in DMs (`/game hand` re-sends yours). The diners below show who has ordered.\n"
            f"⏰ After {duration(state.options.turn_timeout)}, whatever a late diner hasn't "
            "chosen is filled in: the cheapest dishes and Each Pay Separately (else Split, else "
            "RUN!)."
        )
        lines = [
            f"{STATUS_ICON[status(state, p)]} {player(p)} — {badges(state, p)}"
            for p in state.players
        ]
        fields.append(
            PanelField(
                name="Diners (✅ confirmed · ✏️ choosing · ⏳ not yet)", value="\n".join(lines)
            )
        )
        n = guards(state)
        fields.append(
            PanelField(name=f"🛡️ Security: {n} guard{'s' if n > 1 else ''}", value=GUARD_RULE)
        )
    if state.history:
        fields.append(gp_history_field(state))
    footer = " · ".join(
        [
            *(
                ["Variant: no repeats (a dish eaten before gives 0 GP)"]
                if state.options.no_repeats
                else []
            ),
            "Decks: " + " ".join(f"{COURSE_EMOJI[c]} {len(state.decks[c])}" for c in COURSES),
            f"Ballot cards discarded: {sum(state.ballot_discard.values())}",
        ]
    )
    return Panel(title=title, description=description, fields=fields, colour=COLOUR, footer=footer)


# -- a player's DM --------------------------------------------------------------------------------


def option_label(item: MenuItem) -> str:
    if item.already_eaten:
        return f"{item.name} — ${item.value} / 0 GP — already eaten"
    return f"{item.name} — ${item.value} / {item.value} GP"


def dish_select(state: CafeState, p: PlayerId, course: Course, row: int) -> Select:
    picked = state.picks[p].get(course)
    picked_name = dish(picked).name if picked else None
    options: list[Option] = []
    seen: set[str] = set()
    for card in state.menus[p][course]:
        item = menu_item(state, p, card)
        if item.name in seen:  # two copies of a dish: one option is enough
            continue
        seen.add(item.name)
        chosen = picked if picked_name == item.name and picked else card
        options.append(
            Option(
                label=option_label(item),
                action={"type": "pick", "card": chosen},
                description=(
                    f"already eaten (0 GP) — still costs ${item.value}"
                    if item.already_eaten
                    else ""
                ),
                emoji=COURSE_EMOJI[course],
                default=picked_name == item.name,
            )
        )
    return Select(
        placeholder=f"{COURSE_EMOJI[course]} Choose your {course}", options=options, row=row
    )


def card_select(state: CafeState, p: PlayerId, row: int) -> Select:
    played = state.played.get(p)
    played_kind = action_kind(played) if played else None
    options: list[Option] = []
    counts = hand_counts(state, p)
    descriptions = {
        "split": "The whole unpaid bill is shared equally (rounded up).",
        "separate": "Everyone pays for their own meal.",
        "run": "Try to leave without paying — beware the guards.",
    }
    for kind in ACTION_KINDS:
        if not counts[kind]:
            continue
        card = (
            played
            if played_kind == kind and played
            else next(c for c in state.hands[p] if action_kind(c) == kind)
        )
        options.append(
            Option(
                label=f"{ACTION_NAME[kind]} ({counts[kind]} in hand)",
                action={"type": "play", "card": card},
                description=descriptions[kind],
                emoji=ACTION_EMOJI[kind],
                default=played_kind == kind,
            )
        )
    return Select(placeholder="🗳️ Choose your action card (secret ballot)", options=options, row=row)


def order_lines(state: CafeState, p: PlayerId) -> str:
    lines = []
    total = gp = 0
    for course in COURSES:
        card = state.picks[p].get(course)
        if card is None:
            lines.append(f"{COURSE_EMOJI[course]} {COURSE_NAME[course]}: —")
            continue
        item = menu_item(state, p, card)
        total += item.value
        gp += item.gp
        eaten = " (already eaten: 0 GP)" if item.already_eaten else ""
        label = dish_label(item.name, item.value)
        lines.append(f"{COURSE_EMOJI[course]} {COURSE_NAME[course]}: {label}{eaten}")
    played = state.played.get(p)
    kind = action_kind(played) if played else None
    lines.append(f"🗳️ Action card: {ACTION_EMOJI[kind] + ' ' + ACTION_NAME[kind] if kind else '—'}")
    if total:
        lines.append(f"Meal so far: **${total}** → **+{gp} GP**")
    return "\n".join(lines)


def player_panel(state: CafeState, p: PlayerId) -> Panel:
    me = f"💰 Budget **${state.budget[p]}** · ⭐ **{state.gp[p]} GP**"
    if state.iou_draws[p]:
        me += " · 📝 IOU (no end-of-game bonus)"
    if p in state.run_discarded:
        me += " · 🚫🏃 RUN! discarded"
    if state.over:
        return Panel(
            title="🍽️ Café Carnage — the week is over",
            description=me + "\n" + winners_line(state),
            fields=[standings_field(state.standings)],
            colour=COLOUR,
            stamp="over",
        )
    title = f"🍽️ Your order — round {state.round}/{ROUNDS}"
    counts = hand_counts(state, p)
    hand = " · ".join(
        f"{ACTION_EMOJI[k]} {ACTION_NAME[k]} ×{counts[k]}" for k in ACTION_KINDS if counts[k]
    )
    fields = [
        PanelField(name="Your order", value=order_lines(state, p)),
        PanelField(name="Your hand", value=hand),
    ]
    if state.options.no_repeats and state.eaten_by[p]:
        fields.append(
            PanelField(
                name="Already eaten (0 GP again)", value=", ".join(sorted(set(state.eaten_by[p])))
            )
        )
    controls: list[Button | Select] = []
    if p in state.confirmed:
        # Who is still choosing is on the channel's table message: keeping it out of here means
        # this DM is not edited every time someone else confirms.
        description = (
            f"{me}\n✅ **Confirmed** — dinner is revealed in the channel once everyone has "
            "ordered; the table message shows who we're waiting for."
        )
    else:
        gaps = missing(state, p)
        description = (
            me + "\nPick one dish of each course and one action card, then **Confirm**. You can "
            "change your mind until you confirm."
        )
        if gaps:
            description += f"\nStill to choose: {missing_words(gaps)}."
        controls = [
            dish_select(state, p, "starter", 0),
            dish_select(state, p, "main", 1),
            dish_select(state, p, "dessert", 2),
            card_select(state, p, 3),
            Button(
                label="Confirm order & ballot",
                action={"type": "confirm"},
                style="success",
                emoji="✅",
                disabled=bool(gaps),
                row=4,
            ),
        ]
    return Panel(
        title=title,
        description=description,
        fields=fields,
        colour=COLOUR,
        controls=controls,
        stamp=f"round-{state.round}",
    )


# -- announcements --------------------------------------------------------------------------------


def start_announcement(state: CafeState) -> Announcement:
    return Announcement(
        title="🍽️ Café Carnage — five nights out",
        description=(
            f"{names(state.players)}: everyone has $30 and 2 × Split, 2 × Separate, 1 × RUN!.\n"
            f"Round 1/{ROUNDS}: your menus are in your DMs — order a starter, a main and a "
            "dessert, play an action card, then confirm."
        ),
        colour=COLOUR,
        ping=list(state.players),
    )


def course_field(state: CafeState, record: RoundRecord, index: int) -> PanelField:
    course = COURSES[index]
    lines = []
    for p in state.players:
        d = record.players[p].dishes[index]
        zero = " — already eaten, 0 GP" if d.gp != d.value else ""
        lines.append(f"{player(p)}: {dish_label(d.name, d.value)}{zero}")
    return PanelField(name=f"{COURSE_EMOJI[course]} {COURSE_NAME[course]}s", value="\n".join(lines))


def runners_text(record: RoundRecord, order: list[PlayerId]) -> str:
    runners = [p for p in order if record.players[p].role != "stayed"]
    caught = [p for p in runners if record.players[p].role == "caught"]
    escaped = [p for p in runners if record.players[p].role == "escaped"]
    if not runners:
        return "Nobody ran. 🍽️"
    meal = {p: record.players[p].meal for p in runners}
    listed = ", ".join(f"{player(p)} (${meal[p]})" for p in runners)
    if len(runners) == 1:
        return (
            f"🏃 {listed} ran alone and **escaped** — pays nothing, and discards RUN! for the rest "
            "of the game."
        )
    if not caught:
        return (
            f"🏃 Runners: {listed}. Their meals cost the same, so they **all escaped** — they pay "
            "nothing and discard RUN! for the rest of the game."
        )
    total = f"all runners' meals, ${record.runners_total}"
    if len(caught) == 1:
        text = (
            f"🛡️ **Caught**: {names(caught)} (the priciest meal) pays **${record.caught_share}** "
            f"— {total} — and takes RUN! back."
        )
    else:
        text = (
            f"🛡️ **Caught**: {names(caught)} (the priciest meals) pay {total} ÷ {len(caught)} = "
            f"**${record.caught_share} each** (rounded up), and take RUN! back."
        )
    if escaped:
        verb = "pays nothing and discards" if len(escaped) == 1 else "pay nothing and discard"
        text += f"\n💨 **Escaped**: {names(escaped)} — {verb} RUN! for good."
    return f"🏃 Runners: {listed}.\n{text}"


def settle_text(record: RoundRecord, order: list[PlayerId]) -> str:
    if record.verdict == "nobody":
        return "Everyone ran — nobody is left at the table to settle up."
    remaining = [p for p in order if record.players[p].role == "stayed"]
    tally = (
        f"Anonymous ballot: {ACTION_EMOJI['split']} Split ×{record.split_votes} · "
        f"{ACTION_EMOJI['separate']} Separate ×{record.separate_votes}\n"
    )
    if record.verdict == "split":
        total = sum(record.players[p].meal for p in remaining)
        escaped_meals = sum(
            record.players[p].meal for p in order if record.players[p].role == "escaped"
        )
        extra = (
            f" + ${escaped_meals} for the escaped runners"
            if escaped_meals and not record.caught_share
            else ""
        )
        return tally + (
            f"→ **Split the bill**: ${total}{extra} ÷ {len(remaining)} = **${record.split_share} each** "
            "(rounded up)."
        )
    how = "Tie" if record.verdict == "tie" else "Majority"
    text = tally + f"→ **{how}: each pays separately** for their own meal."
    if record.unpaid:
        text += f"\nThe restaurant takes the ${record.unpaid} loss for the escaped runners' meals."
    return text


def payment_line(p: PlayerId, pr: PlayerRound) -> str:
    if pr.role == "escaped":
        return f"{player(p)}: escaped — paid nothing (💰 ${pr.budget_after})"
    return f"{player(p)}: paid ${pr.owed} → 💰 ${pr.budget_after} left"


def iou_line(p: PlayerId, pr: PlayerRound) -> str:
    taken = IOU_AMOUNT * pr.iou_draws
    had = pr.budget_after + pr.owed - taken
    took = f"${IOU_AMOUNT}" if pr.iou_draws == 1 else f"{pr.iou_draws} × ${IOU_AMOUNT}"
    return (
        f"📝 {player(p)} had ${had} for a ${pr.owed} bill: took {took} from the supply "
        f"(−{taken} GP) and now holds an IOU."
    )


def round_announcement(state: CafeState, record: RoundRecord) -> Announcement:
    order = state.players
    fields = [course_field(state, record, i) for i in range(len(COURSES))]
    gp_lines = [
        f"{player(p)}: ${record.players[p].meal} meal → **+{record.players[p].gp_gained} GP**"
        for p in order
    ]
    fields.append(PanelField(name="⭐ Dinner is served", value="\n".join(gp_lines)))
    fields.append(PanelField(name="🧾 Check, please!", value=runners_text(record, order)))
    fields.append(PanelField(name="🗳️ Settle up", value=settle_text(record, order)))
    pays = [payment_line(p, record.players[p]) for p in order]
    fields.append(PanelField(name="💸 Payments", value="\n".join(pays)))
    ious = [iou_line(p, record.players[p]) for p in order if record.players[p].iou_draws]
    if ious:
        fields.append(PanelField(name="📝 IOUs", value="\n".join(ious)))
    if record.auto_played:
        fields.append(
            PanelField(
                name="⏰ Auto-played at the deadline",
                value=names(record.auto_played)
                + " — cheapest dishes for what was missing, and Each Pay Separately if held "
                "(else Split, else RUN!).",
            )
        )
    standing = [f"{player(p)}: {round_badges(state, p, record.players[p])}" for p in order]
    fields.append(PanelField(name=f"📊 After round {record.round}", value="\n".join(standing)))
    if state.over:
        description = f"Round {record.round}/{ROUNDS} — the last dinner of the week."
        ping: list[PlayerId] = []
    else:
        description = (
            f"Round {record.round}/{ROUNDS} results. Round {state.round} menus are in your DMs."
        )
        ping = list(order)
    return Announcement(
        title=f"🍽️ Round {record.round} — dinner is served",
        description=description,
        fields=fields,
        colour=COLOUR,
        ping=ping,
    )


def standing_line(s: Standing) -> str:
    if s.iou:
        how = f"IOU: no bonus, ${s.budget} left"
    else:
        how = f"{s.gp_before_bonus} + {s.bonus} bonus for ${s.budget} left"
    return f"**{s.rank}.** {player(s.player)} — ⭐ **{s.gp} GP** ({how})"


def standings_field(standings: list[Standing]) -> PanelField:
    return PanelField(
        name="🏆 Final standings", value="\n".join(standing_line(s) for s in standings)
    )


def winners(standings: list[Standing]) -> list[PlayerId]:
    return [s.player for s in standings if s.rank == 1]


def winners_line(state: CafeState) -> str:
    won = winners(state.standings)
    if len(won) == 1:
        return f"🏆 {player(won[0])} wins with {state.gp[won[0]]} GP!"
    return (
        f"🏆 Shared win: {names(won)} with {state.gp[won[0]]} GP and ${state.budget[won[0]]} each!"
    )


def tie_break_lines(standings: list[Standing]) -> list[str]:
    lines = []
    by_gp: dict[int, list[Standing]] = {}
    for s in standings:
        by_gp.setdefault(s.gp, []).append(s)
    for gp, group in by_gp.items():
        if len(group) < 2:
            continue
        budgets = ", ".join(f"{player(s.player)} ${s.budget}" for s in group)
        if len({s.budget for s in group}) == 1:
            lines.append(
                f"Tied on {gp} GP and on budget (${group[0].budget}): they share the place."
            )
        else:
            lines.append(
                f"Tied on {gp} GP — the larger budget left ranks higher: {budgets}"
                " (equal budgets share their place)."
            )
    return lines


def final_announcement(state: CafeState) -> Announcement:
    fields = [standings_field(state.standings)]
    ties = tie_break_lines(state.standings)
    if ties:
        fields.append(PanelField(name="⚖️ Tie-break", value="\n".join(ties)))
    fields.append(gp_history_field(state))
    return Announcement(
        title="🏆 Café Carnage — final standings",
        description=winners_line(state)
        + "\nEnd-of-game bonus: +1 GP per $ left, only for players who never took an IOU.",
        fields=fields,
        colour=COLOUR,
        ping=list(state.players),
    )


def outcome_summary(state: CafeState) -> list[str]:
    return [
        winners_line(state),
        *(standing_line(s) for s in state.standings),
        *tie_break_lines(state.standings),
    ]
