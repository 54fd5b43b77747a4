"""The channel's announcements: the start (with the security rule, told once), each round's
dinner, and the final standings; and the outcome's summary in words.

Pings: none. Every player gets each round's menu by DM, which notifies them; nothing else in
this game waits for a player who would not otherwise hear of it.
"""

from __future__ import annotations

from games.cafe_carnage.catalogue import (
    ACTION_EMOJI,
    COURSE_EMOJI,
    COURSE_NAME,
    COURSES,
    DISH_VALUE,
    IOU_AMOUNT,
    ROUNDS,
    START_BUDGET,
)
from games.cafe_carnage.choices import eaten_names
from games.cafe_carnage.present import (
    COLOUR,
    badges,
    dish_label,
    gp_history_field,
    names,
    standing_lines,
    standings_field,
    winners_line,
    wrap,
)
from games.cafe_carnage.state import CafeState, PlayerRound, RoundRecord, Standing
from games.engine import PlayerId
from games.presentation import Announcement, PanelField, player

SECURITY_RULE = (
    "A lone runner escapes; so do runners whose meals all cost the same. Otherwise the "
    "priciest meal is caught: 1 runner if 2–4 run, 2 if 5+ run (ties at that line are caught "
    "too). The caught pay for ALL runners' meals, split equally, rounded up."
)


def start_announcement(state: CafeState) -> Announcement:
    return Announcement(
        title="🍽️ Café Carnage — five nights out",
        description=(
            names(state.players) + "\n"
            f"Everyone has ${START_BUDGET} and 2 × 🤝 Split, 2 × 🧾 Separate, 1 × 🏃 RUN!.\n"
            f"Round 1/{ROUNDS}: your menu is in your DMs — order a starter, a main and a "
            "dessert, play an action card, then confirm. A bill beyond your money means an IOU "
            f"(−{IOU_AMOUNT} GP)."
        ),
        fields=[PanelField(name="🛡️ Security, if you RUN!", value=SECURITY_RULE)],
        colour=COLOUR,
    )


# -- a round's dinner -----------------------------------------------------------------------------


def course_field(state: CafeState, record: RoundRecord, index: int) -> PanelField:
    course = COURSES[index]
    lines = []
    for p in state.players:
        name = record.players[p].dishes[index]
        repeat = state.options.no_repeats and name in eaten_names(state, p, before=record.round)
        zero = " — eaten, 0 GP" if repeat else ""
        lines.append(f"{player(p)}: {dish_label(name, DISH_VALUE[name])}{zero}")
    return PanelField(name=f"{COURSE_EMOJI[course]} {COURSE_NAME[course]}s", value="\n".join(lines))


def runners_text(record: RoundRecord, order: list[PlayerId]) -> str:
    runners = [p for p in order if record.players[p].role != "stayed"]
    caught = [p for p in runners if record.players[p].role == "caught"]
    escaped = [p for p in runners if record.players[p].role == "escaped"]
    if not runners:
        return "Nobody ran. 🍽️"
    listed = [f"{player(p)} (${record.players[p].meal})" for p in runners]
    if len(runners) == 1:
        return f"🏃 {listed[0]} ran alone and **escaped**: pays nothing, loses RUN!."
    text = wrap(listed, first="🏃 Runners: ") + "\n"
    if not caught:
        return text + "Equal meals: they **all escaped**, pay nothing and lose RUN!."
    total = record.runners_total
    if len(caught) == 1:
        text += (
            f"🛡️ **Caught**: {player(caught[0])} (the priciest meal) "
            f"pays **${record.caught_share}** — all runners' meals, ${total} — "
            "and takes RUN! back."
        )
    else:
        text += (
            wrap([player(p) for p in caught], first="🛡️ **Caught**: ")
            + " (the priciest meals) pay all runners' meals, "
            f"${total} ÷ {len(caught)} = **${record.caught_share} each** (rounded up), and "
            "take RUN! back."
        )
    if escaped:
        verb = "pays nothing and discards" if len(escaped) == 1 else "pay nothing and discard"
        text += "\n" + wrap([player(p) for p in escaped], first="💨 **Escaped**: ")
        text += f" — {verb} RUN! for good."
    return text


def settle_text(record: RoundRecord, order: list[PlayerId]) -> str:
    if record.verdict == "nobody":
        return "Everyone ran: nobody is left at the table."
    remaining = [p for p in order if record.players[p].role == "stayed"]
    tally = (
        f"Ballot: {ACTION_EMOJI['split']} Split ×{record.split_votes} · "
        f"{ACTION_EMOJI['separate']} Separate ×{record.separate_votes}\n"
    )
    if record.verdict == "split":
        total = sum(record.players[p].meal for p in remaining)
        escaped_meals = sum(
            record.players[p].meal for p in order if record.players[p].role == "escaped"
        )
        share = f"÷ {len(remaining)} = **${record.split_share} each** (rounded up)."
        if escaped_meals and not record.caught_share:
            share = f" + ${escaped_meals} for the escaped runners {share}"
        else:
            share = f"\n{share}"
        return tally + f"→ **Split the bill**: ${total}{share}"
    how = "Tie" if record.verdict == "tie" else "Majority"
    text = tally + f"→ **{how}: each pays separately**."
    if record.unpaid:
        text += f"\nThe restaurant takes the ${record.unpaid} loss for the escaped runners."
    return text


def bill_line(state: CafeState, p: PlayerId, pr: PlayerRound) -> str:
    paid = "ran free" if pr.role == "escaped" else f"paid ${pr.owed}"
    return f"{player(p)}: {paid} → " + badges(state, p, pr.gp_after, pr.budget_after)


def iou_line(p: PlayerId, pr: PlayerRound) -> str:
    taken = IOU_AMOUNT * pr.iou_draws
    had = pr.budget_after + pr.owed - taken
    took = f"${IOU_AMOUNT}" if pr.iou_draws == 1 else f"{pr.iou_draws} × ${IOU_AMOUNT}"
    return (
        f"📝 {player(p)} had ${had} for a ${pr.owed} bill: "
        f"took {took} from the supply (−{taken} GP) and holds an IOU."
    )


def round_announcement(state: CafeState, record: RoundRecord) -> Announcement:
    order = state.players
    fields = [course_field(state, record, i) for i in range(len(COURSES))]
    meals = [
        f"{player(p)}: ${record.players[p].meal} meal → **+{record.players[p].gp_gained} GP**"
        for p in order
    ]
    fields.append(PanelField(name="⭐ Dinner is served", value="\n".join(meals)))
    fields.append(PanelField(name="🧾 Check, please!", value=runners_text(record, order)))
    fields.append(PanelField(name="🗳️ Settle up", value=settle_text(record, order)))
    ious = [iou_line(p, record.players[p]) for p in order if record.players[p].iou_draws]
    if ious:
        fields.append(PanelField(name="📝 IOUs", value="\n".join(ious)))
    if record.auto_played:
        fields.append(
            PanelField(
                name="⏰ Auto-played at the deadline",
                value=names(record.auto_played) + " (cheapest dishes, Separate if held)",
            )
        )
    bills = [bill_line(state, p, record.players[p]) for p in order]
    fields.append(PanelField(name=f"💸 Bills · after round {record.round}", value="\n".join(bills)))
    if state.over:
        description = "The last dinner of the week."
    else:
        description = f"Round {state.round} menus are in your DMs."
    return Announcement(
        title=f"🍽️ Round {record.round} — dinner is served",
        description=description,
        fields=fields,
        colour=COLOUR,
    )


# -- the end --------------------------------------------------------------------------------------


def tie_break_lines(standings: list[Standing]) -> list[str]:
    lines = []
    by_gp: dict[int, list[Standing]] = {}
    for s in standings:
        by_gp.setdefault(s.gp, []).append(s)
    for gp, group in by_gp.items():
        if len(group) < 2:
            continue
        if len({s.budget for s in group}) == 1:
            lines.append(f"Tied on {gp} GP and ${group[0].budget}: they share the place.")
        else:
            budgets = [f"{player(s.player)} ${s.budget}" for s in group]
            lines.append(f"Tied on {gp} GP: more $ left ranks higher.\n" + wrap(budgets))
    return lines


def final_announcement(state: CafeState) -> Announcement:
    fields = [standings_field(state.standings)]
    ties = tie_break_lines(state.standings)
    if ties:
        fields.append(PanelField(name="⚖️ Tie-break", value="\n".join(ties)))
    fields.append(gp_history_field(state))
    return Announcement(
        title="🏆 Café Carnage — final standings",
        description=winners_line(state) + "\nBonus: +1 GP per $ left, without an IOU.",
        fields=fields,
        colour=COLOUR,
    )


def outcome_summary(state: CafeState) -> list[str]:
    return [
        winners_line(state),
        *(standing_lines(s) for s in state.standings),
        *(line.replace("\n", " ") for line in tie_break_lines(state.standings)),
    ]
