"""Full Pancake card texts: disasters as they are revealed (with the Syrup Shield reaction),
Spilled Milk, Burnt Toast, Kitchen Fire, and the Magic Toaster / Cereal Compass peeks."""

from __future__ import annotations

from games import kit
from games.breakfast_vs_aliens.capture import owns
from games.breakfast_vs_aliens.catalogue import EFFECT_TEXT, PLAY_CARDS, card, effect, kind
from games.breakfast_vs_aliens.scoring import REINFORCEMENT_BONUS
from games.breakfast_vs_aliens.state import (
    BurnStep,
    BvaState,
    MilkStep,
    PeekStep,
    ShieldStep,
)
from games.breakfast_vs_aliens.table import (
    discard_card,
    discard_hero,
    gain_hero,
    gain_treasure,
    remove_treasure,
)
from games.breakfast_vs_aliens.words import event, names, ping
from games.engine import PlayerId
from games.kit import evolve
from games.presentation import player

PEEK_SIZE = {"magic_toaster": 2, "cereal_compass": 3}


def left_of(state: BvaState, pid: PlayerId) -> PlayerId:
    """The player on ``pid``'s left: the next one clockwise (seat order)."""
    left = kit.next_in_seat_order(state.players, pid)
    assert left is not None
    return left


def shield_holders(state: BvaState) -> list[PlayerId]:
    """Players owning a Syrup Shield, clockwise from the current player."""
    order = kit.seat_order_from(state.players, state.current)
    return [p for p in order if owns(state, p, "syrup_shield")]


# -- disasters ------------------------------------------------------------------------------------


def reveal_disaster(state: BvaState, disaster: str, *, refill: bool) -> None:
    """A disaster is revealed. Syrup Shield holders may cancel it (a reaction step); with no
    holder it happens at once."""
    state.disaster = disaster
    name = card(disaster).name
    holders = shield_holders(state)
    if not holders:
        resolve_disaster(state, refill=refill)
        return
    state.seq += 1
    state.pending = ShieldStep(waiting=holders, refill=refill)
    who = ", ".join(player(p) for p in holders)
    ping(
        state,
        "🛡️ Syrup Shield?",
        f"{player(state.current)} revealed 🌪️ **{name}**: {EFFECT_TEXT[effect(disaster)]}\n"
        f"{who}: cancel it with your Syrup Shield, or let it happen.",
        holders,
    )


def answer_shield(state: BvaState, pid: PlayerId, use: bool) -> None:
    step = state.pending
    assert isinstance(step, ShieldStep) and state.disaster is not None
    if use:
        shield = owns(state, pid, "syrup_shield")[0]
        remove_treasure(state, shield)
        discard_card(state, shield)
        disaster, state.disaster = state.disaster, None
        discard_card(state, disaster)
        state.pending = None
        event(
            state,
            "🛡️ Disaster cancelled",
            [f"🛡️ {player(pid)} cancelled 🌪️ {card(disaster).name} with a Syrup Shield."],
        )
        return  # a cancelled disaster does nothing: a refill goes on, the turn too
    waiting = [p for p in step.waiting if p != pid]
    if waiting:
        state.pending = evolve(step, waiting=waiting)
    else:
        state.pending = None
        resolve_disaster(state, refill=step.refill)


def resolve_disaster(state: BvaState, *, refill: bool) -> None:
    """The revealed disaster happens (a disaster drawn while refilling ends the turn)."""
    disaster = state.disaster
    assert disaster is not None
    state.disaster = None
    if refill:
        state.stage = "end"
    what = effect(disaster)
    title = f"🌪️ {card(disaster).name}"
    current = state.current
    if what == "alien_reinforcements":
        state.beside = [*state.beside, disaster]
        bonus = REINFORCEMENT_BONUS * len(state.beside)
        event(
            state,
            title,
            [
                f"🌪️ {player(current)} revealed Alien Reinforcements: the next alien captured is "
                f"worth +{bonus} points."
            ],
        )
        return
    discard_card(state, disaster)
    if what == "burnt_toast":
        heroes = state.heroes[current]
        if not heroes:
            event(state, title, [f"🌪️ Burnt Toast: {player(current)} has no hero to lose."])
        elif len(heroes) == 1:
            hero = heroes[0]
            discard_hero(state, current, hero)
            event(state, title, [f"🔥 Burnt Toast: {player(current)} loses {card(hero).name}."])
        else:
            state.pending = BurnStep(player=current)
            event(
                state,
                title,
                [f"🔥 Burnt Toast: {player(current)} must discard one of their heroes."],
            )
            ping(
                state, "🔥 Burnt Toast", f"{player(current)}, pick the hero you discard.", [current]
            )
    elif what == "spilled_milk":
        start_milk(state)
    else:
        burnt = list(state.play)
        for c in burnt:
            discard_card(state, c)
        state.play = []
        refill_like_setup(state)
        lost = names(burnt) if burnt else "nothing"
        event(
            state,
            title,
            [f"🔥 Kitchen Fire: the play cards burn ({lost}) and are refilled."],
        )


def refill_like_setup(state: BvaState) -> None:
    """Fill the play cards to 3 as at setup: a disaster drawn goes to the bottom and another card
    is drawn. When only disasters are left in the deck, the play cards stay short."""
    deck, play = list(state.deck), list(state.play)
    while len(play) < PLAY_CARDS and deck:
        if all(kind(c) == "disaster" for c in deck):
            break
        top = deck.pop(0)
        if kind(top) == "disaster":
            deck.append(top)
        else:
            play.append(top)
    state.deck, state.play = deck, play
    if not deck:
        state.last_card_drawn = True


def burn(state: BvaState, pid: PlayerId, hero: str) -> None:
    discard_hero(state, pid, hero)
    state.pending = None
    event(state, "🔥 Burnt Toast", [f"🔥 {player(pid)} discarded {card(hero).name}."])


def start_milk(state: BvaState) -> None:
    """Everyone with a hero passes one to their left; one hero: no choice to make."""
    givers = [p for p in state.players if state.heroes[p]]
    chosen = {p: state.heroes[p][0] for p in givers if len(state.heroes[p]) == 1}
    waiting = [p for p in givers if len(state.heroes[p]) > 1]
    if not waiting:
        apply_milk(state, chosen)
        return
    state.seq += 1
    state.pending = MilkStep(chosen=chosen, waiting=waiting)
    ping(
        state,
        "🥛 Spilled Milk",
        "Everyone passes one hero to the player on their left. "
        + ", ".join(player(p) for p in waiting)
        + ": pick the hero you pass.",
        waiting,
    )


def give(state: BvaState, pid: PlayerId, hero: str) -> None:
    step = state.pending
    assert isinstance(step, MilkStep)
    chosen = {**step.chosen, pid: hero}
    waiting = [p for p in step.waiting if p != pid]
    if waiting:
        state.pending = evolve(step, chosen=chosen, waiting=waiting)
    else:
        state.pending = None
        apply_milk(state, chosen)


def apply_milk(state: BvaState, chosen: dict[PlayerId, str]) -> None:
    passes = [(p, chosen[p], left_of(state, p)) for p in state.players if p in chosen]
    state.heroes = {
        p: [h for h in heroes if h != chosen[p]] if p in chosen else heroes
        for p, heroes in state.heroes.items()
    }
    for _, hero, taker in passes:
        gain_hero(state, taker, hero)
    lines = [f"🥛 {player(g)} → {player(t)}: {card(h).name}" for g, h, t in passes]
    event(state, "🥛 Spilled Milk", lines or ["🥛 Spilled Milk: nobody has a hero to pass."])


# -- the Magic Toaster and the Cereal Compass -----------------------------------------------------


def use_tool(state: BvaState, pid: PlayerId, tool: str) -> None:
    """Look at the top cards privately (they leave the deck for the peek)."""
    what = effect(tool)
    assert what in ("magic_toaster", "cereal_compass")
    size = PEEK_SIZE[what]
    state.peek, state.deck = state.deck[:size], state.deck[size:]
    state.pending = PeekStep(player=pid, tool=what)
    count = len(state.peek)
    event(
        state,
        f"💎 {card(tool).name}",
        [f"💎 {player(pid)} used the {card(tool).name} (looking at the top {count} card(s))."],
    )


def keepable(state: BvaState) -> list[str]:
    return [c for c in state.peek if kind(c) in ("hero", "treasure")]


def keep(state: BvaState, pid: PlayerId, kept: str | None) -> None:
    """Magic Toaster: keep a hero or treasure; the rest go to the bottom in the order seen."""
    rest = [c for c in state.peek if c != kept]
    state.peek = []
    state.deck = [*state.deck, *rest]
    state.pending = None
    if kept is None:
        event(
            state,
            "💎 Magic Toaster",
            [f"💎 {player(pid)} kept nothing: the cards went to the bottom of the deck."],
        )
        return
    if not state.deck:
        state.last_card_drawn = True
    lines = [f"💎 {player(pid)} kept {card(kept).name} from the Magic Toaster."]
    if kind(kept) == "hero":
        gain_hero(state, pid, kept)
    else:
        if effect(kept) == "breakfast_rush":
            state.extra_turns += 1
            lines.append("⚡ Breakfast Rush: they take another turn after this one.")
        gain_treasure(state, pid, kept)
    if rest:
        lines.append(f"The other {len(rest)} card(s) went to the bottom of the deck.")
    event(state, "💎 Magic Toaster", lines)


def arrange(state: BvaState, pid: PlayerId, order: list[str]) -> None:
    """Cereal Compass: the peeked cards go back on top in the chosen order."""
    state.deck = [*order, *state.deck]
    state.peek = []
    state.pending = None
    event(
        state,
        "💎 Cereal Compass",
        [f"💎 {player(pid)} put the {len(order)} card(s) back on top in the order they chose."],
    )
