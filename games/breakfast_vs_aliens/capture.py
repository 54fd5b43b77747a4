"""Capturing: which sets of a player's heroes cover an alien's traits, counted with multiplicity.

The bot proposes the capture that uses the fewest heroes, then wastes the fewest traits; the other
*minimal* sets (no hero could be left out) are offered as alternatives. Heroes with the same
traits are interchangeable, so sets are searched over trait vectors, which keeps it fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import ceil

from games.breakfast_vs_aliens.catalogue import ALL_CARDS, COLOURS, Colour, card, effect
from games.breakfast_vs_aliens.state import BvaState, Capture
from games.engine import PlayerId

Vector = tuple[int, int, int, int]  # trait counts in COLOURS order
assert COLOURS == ("R", "B", "P", "Y")  # the order of a vector


def vector(colours: Iterable[Colour]) -> Vector:
    found = colours if isinstance(colours, list | tuple) else list(colours)
    return (found.count("R"), found.count("B"), found.count("P"), found.count("Y"))


TRAITS: dict[str, Vector] = {c: vector(card(c).traits) for c in ALL_CARDS}  # printed traits


def as_vector(values: Sequence[int]) -> Vector:
    return (values[0], values[1], values[2], values[3])


def owned_treasures(state: BvaState, player: PlayerId) -> list[str]:
    """The player's treasures: on their heroes (in hero order), then those waiting for a hero."""
    on_heroes = [t for h in state.heroes[player] for t in state.attached.get(h, [])]
    return on_heroes + state.waiting[player]


def owns(state: BvaState, player: PlayerId, what: str) -> list[str]:
    """The player's treasures with the effect ``what`` (e.g. "golden_spatula")."""
    return [t for t in owned_treasures(state, player) if effect(t) == what]


def hero_traits(state: BvaState, hero: str) -> list[Colour]:
    """A hero's traits with its treasures: their colour bars in Mini-Muffin; in Full Pancake only
    a Jam Jar adds a trait (the colour chosen for it)."""
    return [*card(hero).traits, *treasure_traits(state, hero)]


def treasure_traits(state: BvaState, hero: str) -> list[Colour]:
    """The traits a hero's treasures add (see :func:`hero_traits`)."""
    traits: list[Colour] = []
    for treasure in state.attached.get(hero, []):
        if state.full:
            if treasure in state.jam:
                traits.append(state.jam[treasure])
        else:
            bar = card(treasure).bar
            assert bar is not None
            traits.append(bar)
    return traits


def team_vector(state: BvaState, heroes: Iterable[str]) -> Vector:
    """The traits of these heroes together, counted (as :func:`hero_traits` counts them)."""
    r = b = p = y = 0
    attached = state.attached
    added: list[Colour] = []
    for hero in heroes:
        printed = TRAITS[hero]
        r, b, p, y = r + printed[0], b + printed[1], p + printed[2], y + printed[3]
        if hero in attached:
            added += treasure_traits(state, hero)
    if not added:
        return (r, b, p, y)
    more = vector(added)
    return (r + more[0], b + more[1], p + more[2], y + more[3])


def alien_need(state: BvaState, alien: str) -> Vector:
    """The traits to cover: the alien's, plus (Mini-Muffin) its stacked disasters' colours."""
    if state.alien_disasters and alien == state.alien and not state.full:
        stacked = [card(d).bar for d in state.alien_disasters]
        return vector([*card(alien).traits, *(bar for bar in stacked if bar is not None)])
    return TRAITS[alien]


def covers(have: Vector, need: Vector) -> bool:
    return have[0] >= need[0] and have[1] >= need[1] and have[2] >= need[2] and have[3] >= need[3]


def minus(need: Vector, colour: Colour) -> Vector:
    index = COLOURS.index(colour)
    return as_vector([n - 1 if i == index else n for i, n in enumerate(need)])


def minimal_sets(state: BvaState, player: PlayerId, need: Vector) -> list[tuple[str, ...]]:
    """Every minimal set of the player's heroes covering ``need``, best first: fewest heroes,
    then fewest wasted traits, then earlier heroes. Among heroes with equal traits, those carrying
    fewer treasures are used first."""
    if not any(need):
        return [()]
    hand = state.heroes[player]
    position = {h: i for i, h in enumerate(hand)}
    groups: dict[Vector, list[str]] = {}
    for hero in hand:
        vec = vector(hero_traits(state, hero))
        if any(v and n for v, n in zip(vec, need, strict=True)):
            groups.setdefault(vec, []).append(hero)
    for members in groups.values():
        members.sort(key=lambda h: (len(state.attached.get(h, [])), position[h]))
    vecs = list(groups)
    # What the groups from index i on can still contribute, to prune hopeless branches.
    capacity: list[Vector] = [(0, 0, 0, 0)] * (len(vecs) + 1)
    for i in range(len(vecs) - 1, -1, -1):
        size = len(groups[vecs[i]])
        capacity[i] = as_vector(
            [c + size * v for c, v in zip(capacity[i + 1], vecs[i], strict=True)]
        )
    found: list[list[int]] = []

    def search(i: int, counts: list[int], rest: list[int]) -> None:
        if all(r <= 0 for r in rest):
            found.append(counts + [0] * (len(vecs) - len(counts)))
            return
        if i == len(vecs) or not all(c >= r for c, r in zip(capacity[i], rest, strict=True)):
            return
        vec = vecs[i]
        bounds = [ceil(r / v) for r, v in zip(rest, vec, strict=True) if v and r > 0]
        most = min(len(groups[vec]), max(bounds)) if bounds else 0
        for k in range(most, -1, -1):
            search(i + 1, [*counts, k], [r - k * v for r, v in zip(rest, vec, strict=True)])

    search(0, [], list(need))
    results: list[tuple[int, int, list[int], tuple[str, ...]]] = []
    wanted = sum(need)
    for counts in found:
        total = [sum(k * v[c] for k, v in zip(counts, vecs, strict=True)) for c in range(4)]
        minimal = all(
            not covers(as_vector([t - vec[c] for c, t in enumerate(total)]), need)
            for k, vec in zip(counts, vecs, strict=True)
            if k
        )
        if not minimal:
            continue
        chosen = [h for k, vec in zip(counts, vecs, strict=True) for h in groups[vec][:k]]
        chosen.sort(key=position.__getitem__)
        waste = sum(total) - wanted
        results.append((len(chosen), waste, [position[h] for h in chosen], tuple(chosen)))
    results.sort(key=lambda r: (r[0], r[1], r[2]))
    return [r[3] for r in results]


def capture_options(
    state: BvaState, player: PlayerId, alien: str, *, spatula: bool
) -> list[Capture]:
    """The captures of ``alien`` to offer ``player``, the proposal first. With ``spatula`` (Full
    Pancake, a Golden Spatula owned), captures ignoring one trait follow the plain ones (only
    those that need the spatula)."""
    need = alien_need(state, alien)
    options = [Capture(alien=alien, heroes=list(s)) for s in minimal_sets(state, player, need)]
    if spatula and owns(state, player, "golden_spatula"):
        for colour in COLOURS:
            if not need[COLOURS.index(colour)]:
                continue
            reduced = minus(need, colour)
            for heroes in minimal_sets(state, player, reduced):
                have = team_vector(state, heroes)
                if not covers(have, need):
                    options.append(Capture(alien=alien, heroes=list(heroes), ignore=colour))
        plain = len([o for o in options if o.ignore is None])
        options[plain:] = sorted(options[plain:], key=lambda o: len(o.heroes))
    return options


def can_capture(state: BvaState, player: PlayerId, alien: str, *, spatula: bool) -> bool:
    return can_capture_any(state, player, (alien,), spatula=spatula)


def can_capture_any(
    state: BvaState, player: PlayerId, aliens: Iterable[str], *, spatula: bool
) -> bool:
    """Whether ``player``'s heroes can capture one of ``aliens`` (with a Golden Spatula they own,
    ignoring one trait, when ``spatula``)."""
    have = team_vector(state, state.heroes[player])
    with_spatula: bool | None = None  # looked up when first needed
    for alien in aliens:
        need = alien_need(state, alien)
        if covers(have, need):
            return True
        if spatula and with_spatula is None:
            with_spatula = bool(owns(state, player, "golden_spatula"))
        if with_spatula and any(
            covers(have, minus(need, c)) for c in COLOURS if need[COLOURS.index(c)]
        ):
            return True
    return False


def is_valid_capture(state: BvaState, player: PlayerId, action: Capture, *, spatula: bool) -> bool:
    """Any set of the player's own heroes (no repeats) covering the alien's traits, one of them
    ignored when the player owns a Golden Spatula (Full Pancake)."""
    heroes = action.heroes
    if len(set(heroes)) != len(heroes) or not set(heroes) <= set(state.heroes[player]):
        return False
    need = alien_need(state, action.alien)
    if action.ignore is not None:
        if not spatula or not owns(state, player, "golden_spatula"):
            return False
        if not need[COLOURS.index(action.ignore)]:
            return False
        need = minus(need, action.ignore)
    have = team_vector(state, heroes)
    return covers(have, need)
