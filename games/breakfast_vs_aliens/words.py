"""Cards and table events in words (never card ids: a card may go back into the hidden deck)."""

from __future__ import annotations

from functools import cache

from games.breakfast_vs_aliens.capture import alien_need, hero_traits
from games.breakfast_vs_aliens.catalogue import (
    COLOURS,
    EMOJI,
    KIND_EMOJI,
    Colour,
    card,
    colours_text,
)
from games.breakfast_vs_aliens.scoring import card_points, pts
from games.breakfast_vs_aliens.state import BvaState
from games.presentation import Announcement

COLOUR = 0xF4A742  # pancake gold
LOG_LINES = 5


@cache
def need_text(need: tuple[int, int, int, int]) -> str:
    return "".join(EMOJI[c] * n for c, n in zip(COLOURS, need, strict=True))


def treasure_text(state: BvaState, treasure: str) -> str:
    """``Jam Jar 🟨``: Mini-Muffin shows the colour bar; Full Pancake a Jam Jar's chosen colour."""
    c = card(treasure)
    if state.full:
        colour = state.jam.get(treasure)
        return f"{c.name} {EMOJI[colour]}" if colour else c.name
    assert c.bar is not None
    return f"{c.name} {EMOJI[c.bar]}"


def hero_text(state: BvaState, hero: str) -> str:
    """``Sir Toast 🟥🟨 (💎 Jam Jar 🟨)``: all the hero's traits, then its treasures."""
    text = f"{card(hero).name} {colours_text(hero_traits(state, hero))}"
    treasures = state.attached.get(hero, [])
    if treasures:
        text += " (" + ", ".join(f"💎 {treasure_text(state, t)}" for t in treasures) + ")"
    return text


def alien_text(state: BvaState, alien: str) -> str:
    """``Glitch Gloop 🟥🟦 (3 pts)``; with stacked disasters, every colour to cover."""
    c = card(alien)
    return f"{c.name} {need_text(alien_need(state, alien))} ({pts(c.points)})"


def card_text(state: BvaState, card_id: str) -> str:
    """Any card in words, with its icon."""
    c = card(card_id)
    if c.kind == "hero":
        return f"{KIND_EMOJI['hero']} {hero_text(state, card_id)}"
    if c.kind == "alien":
        return f"{KIND_EMOJI['alien']} {alien_text(state, card_id)}"
    if c.kind == "treasure":
        return f"{KIND_EMOJI['treasure']} {treasure_text(state, card_id)}"
    if state.full:
        return f"{KIND_EMOJI['disaster']} {c.name}"
    assert c.bar is not None
    return f"{KIND_EMOJI['disaster']} {c.name} {EMOJI[c.bar]}"


def names(cards: list[str]) -> str:
    return " + ".join(card(c).name for c in cards) or "no hero"


def colour_word(colour: Colour) -> str:
    return {"R": "Red", "B": "Blue", "P": "Purple", "Y": "Yellow"}[colour]


def jail_text(state: BvaState, jail: list[str]) -> str:
    return ", ".join(f"{card(c).name} ({card_points(state, c)})" for c in jail)


def note(state: BvaState, line: str) -> None:
    """A public event for the table's recent-moves lines."""
    state.log = [*state.log[1 - LOG_LINES :], line]


def event(state: BvaState, title: str, lines: list[str]) -> None:
    """A public event worth its own channel message; also noted on the table."""
    announcement = Announcement(title=title, description="\n".join(lines), colour=COLOUR)
    state.announcements = [*state.announcements, announcement]
    note(state, lines[0] if lines else title)


def ping(state: BvaState, title: str, text: str, players: list[str]) -> None:
    """A short notice that ``players`` are awaited now (front ends keep only the newest)."""
    announcement = Announcement(
        title=title, description=text, colour=COLOUR, ping=players, kind="turn"
    )
    state.announcements = [*state.announcements, announcement]
