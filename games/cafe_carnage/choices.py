"""What a player may choose this round: the dishes on offer (the no_repeats variant), what is
still missing before they can confirm, and the deadline's default choices."""

from __future__ import annotations

from games.cafe_carnage.catalogue import COURSES, Course, action_kind, dish
from games.cafe_carnage.state import CafeState
from games.engine import PlayerId


def eaten_names(state: CafeState, player: PlayerId, before: int | None = None) -> set[str]:
    """The dishes ``player`` ate in earlier rounds (by name: copies of a dish are one dish), or
    in the rounds before round ``before``."""
    rounds = state.history if before is None else state.history[: before - 1]
    return {name for record in rounds for name in record.players[player].dishes}


def repeats(state: CafeState, player: PlayerId) -> set[str]:
    """The dishes that would be repeats for ``player``: those eaten before, under no_repeats."""
    return eaten_names(state, player) if state.options.no_repeats else set()


def already_eaten(state: CafeState, player: PlayerId, card: str) -> bool:
    """Under no_repeats: the player ate this dish in an earlier round (it would give 0 GP)."""
    return dish(card).name in repeats(state, player)


def on_offer(menu: list[str], eaten: set[str]) -> list[str]:
    """The cards of one course of a menu that may be picked, given the repeats: those not eaten
    yet, or all of them when every one was eaten (then one must be picked anyway)."""
    if not eaten:
        return menu
    return [card for card in menu if dish(card).name not in eaten] or menu


def offered(state: CafeState, player: PlayerId, course: Course) -> list[str]:
    """The cards of ``course`` on ``player``'s menu that they may pick: all of them, except that
    under no_repeats a dish eaten in an earlier round is left out while the course offers one not
    eaten yet (only when every dish of the course was eaten must they pick one of those)."""
    menu = state.menus[player][course]
    if not state.options.no_repeats or not state.history:
        return menu
    return on_offer(menu, eaten_names(state, player))


def default_dish(state: CafeState, player: PlayerId, course: Course) -> str:
    """The deadline's dish: the cheapest on offer; among equals, the first on the menu."""
    menu = offered(state, player, course)
    return min(menu, key=lambda c: (dish(c).value, menu.index(c)))


def default_card(state: CafeState, player: PlayerId) -> str:
    """The deadline's ballot: Each Pay Separately if held, else Split, else RUN!."""
    hand = state.hands[player]
    for kind in ("separate", "split", "run"):
        for card in hand:
            if action_kind(card) == kind:
                return card
    raise AssertionError(f"{player} has no action card")  # a hand is never empty


def missing(state: CafeState, player: PlayerId) -> list[str]:
    """What the player still has to choose before confirming: courses, then "action card"."""
    picks = state.picks[player]
    gaps: list[str] = [course for course in COURSES if course not in picks]
    if player not in state.played:
        gaps.append("action card")
    return gaps


def missing_words(gaps: list[str]) -> str:
    """["main", "action card"] -> "a main and an action card"."""
    words = [("an " if gap[0] in "aeiou" else "a ") + gap for gap in gaps]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
