"""Moving cards between the deck and the places on the table (shared by both modes).

Copy-on-write: the state these functions get is a new one (see ``rules.apply_action``), but its
lists and dicts are shared with the state before the move, so they are replaced, never changed in
place."""

from __future__ import annotations

from typing import TypeVar

from games.breakfast_vs_aliens.capture import owned_treasures
from games.breakfast_vs_aliens.catalogue import card, effect
from games.breakfast_vs_aliens.scoring import card_points, pts, snapshot
from games.breakfast_vs_aliens.state import AttachStep, BvaState, Capture, JamStep
from games.breakfast_vs_aliens.words import alien_text, colour_word, event, names
from games.engine import PlayerId
from games.presentation import player

V = TypeVar("V")


def draw_top(state: BvaState) -> str:
    """Take the top card of the deck; the one that empties it is "the last card drawn"."""
    top, state.deck = state.deck[0], state.deck[1:]
    if not state.deck:
        state.last_card_drawn = True
    return top


def gain_hero(state: BvaState, pid: PlayerId, hero: str) -> None:
    """A hero joins ``pid``'s heroes; treasures waiting for a hero attach to it."""
    state.heroes = {**state.heroes, pid: [*state.heroes[pid], hero]}
    waiting = state.waiting[pid]
    if waiting:
        state.attached = {**state.attached, hero: [*state.attached.get(hero, []), *waiting]}
        state.waiting = {**state.waiting, pid: []}


def gain_treasure(state: BvaState, pid: PlayerId, treasure: str) -> None:
    """``pid`` gains a treasure: in Full Pancake a Jam Jar first gets its colour (a step)."""
    if state.full and effect(treasure) == "jam_jar":
        state.pending = JamStep(player=pid, treasure=treasure)
        return
    place_treasure(state, pid, treasure)


def place_treasure(state: BvaState, pid: PlayerId, treasure: str) -> None:
    """Attach a treasure: to the only hero, to a hero of the player's choice (a step), or, with
    no hero, it waits for the player's next hero."""
    heroes = state.heroes[pid]
    if not heroes:
        state.waiting = {**state.waiting, pid: [*state.waiting[pid], treasure]}
    elif len(heroes) == 1:
        attach(state, heroes[0], treasure)
    else:
        state.pending = AttachStep(player=pid, treasure=treasure)


def attach(state: BvaState, hero: str, treasure: str) -> None:
    state.attached = {**state.attached, hero: [*state.attached.get(hero, []), treasure]}


def without(mapping: dict[str, V], key: str) -> dict[str, V]:
    """A copy of ``mapping`` without ``key`` (the others in their order)."""
    return {k: v for k, v in mapping.items() if k != key}


def discard_card(state: BvaState, card_id: str) -> None:
    state.discard = [*state.discard, card_id]
    if card_id in state.jam:
        state.jam = without(state.jam, card_id)


def discard_hero(state: BvaState, pid: PlayerId, hero: str) -> None:
    """A hero leaves the table with its treasures."""
    state.heroes = {**state.heroes, pid: [h for h in state.heroes[pid] if h != hero]}
    treasures = state.attached.get(hero, [])
    if hero in state.attached:
        state.attached = without(state.attached, hero)
    for treasure in treasures:
        discard_card(state, treasure)
    discard_card(state, hero)


def remove_treasure(state: BvaState, treasure: str) -> None:
    """Take an owned treasure off its hero (or out of the waiting treasures)."""
    for hero, treasures in state.attached.items():
        if treasure in treasures:
            rest = [t for t in treasures if t != treasure]
            state.attached = (
                {**state.attached, hero: rest} if rest else without(state.attached, hero)
            )
            return
    for pid, waiting in state.waiting.items():
        if treasure in waiting:
            state.waiting = {**state.waiting, pid: [t for t in waiting if t != treasure]}
            return
    raise AssertionError(f"{treasure} is not owned")


def spatula_for(state: BvaState, pid: PlayerId, heroes: list[str]) -> str:
    """The Golden Spatula a capture uses: one on a hero that is discarded anyway, if any."""
    spatulas = [t for t in owned_treasures(state, pid) if effect(t) == "golden_spatula"]
    on_used = [t for h in heroes for t in state.attached.get(h, []) if t in spatulas]
    return (on_used or spatulas)[0]


def capture(state: BvaState, pid: PlayerId, action: Capture) -> None:
    """The heroes used are discarded with their treasures; the alien (with its stacked disasters
    in Mini-Muffin, with the waiting Alien Reinforcements in Full Pancake) goes to the jail."""
    alien = action.alien
    described = alien_text(state, alien)
    extra: list[str] = []
    if state.alien == alien:
        state.alien = None
        extra, state.alien_disasters = state.alien_disasters, []
    elif alien in state.play:
        state.play = [c for c in state.play if c != alien]
    else:
        state.escaped = [c for c in state.escaped if c != alien]
    lines = [
        f"🚔 {player(pid)} captured {described} with {names(action.heroes)}.",
    ]
    if action.ignore is not None:
        spatula = spatula_for(state, pid, action.heroes)
        if spatula not in [t for h in action.heroes for t in state.attached.get(h, [])]:
            remove_treasure(state, spatula)
            discard_card(state, spatula)
        lines.append(f"🥄 A Golden Spatula ignored one {colour_word(action.ignore).lower()} trait.")
    for hero in action.heroes:
        discard_hero(state, pid, hero)
    if state.full and state.beside:
        extra = extra + state.beside
        state.beside = []
        bonus = sum(card_points(state, d) for d in extra)
        lines.append(f"👾 Alien Reinforcements: +{pts(bonus)}.")
    elif extra:
        lines.append(
            f"🌪️ Its {len(extra)} stacked disaster(s) are captured too: +{pts(len(extra))}."
        )
    state.jails = {**state.jails, pid: [*state.jails[pid], alien, *extra]}
    gained = sum(card_points(state, c) for c in [alien, *extra])
    lines.append(f"{player(pid)} gains {pts(gained)}.")
    snapshot(state)
    event(state, f"🚔 {card(alien).name} captured!", lines)
