"""What Breakfast vs Aliens tells the searching bot (``games/search.py``), in Mini-Muffin: compare
only the moves worth comparing, each in the same sampled worlds, played out by the quick player.

A whole simulated game with the weighing normal player costs ~7 ms, so only ~40 fit in the hard
bot's 0.3 s, spread over a dozen hero sets: too few to tell them apart, as the deck's order
decides far more of a game than one capture does. So:

- of the capture options only the :data:`CAPTURES` the normal player ranks best are compared,
  with letting the alien go (:func:`plans`);
- the search is *paired*: every plan plays the same sampled deck with the same luck, so what
  differs between their results is the move's doing, not the deck's;
- the simulated games are played by the ``plain`` player (capture whenever possible: ~2 ms a
  game), so ~120 fit in the budget, 30 worlds for each plan.

(Judging a simulated game a few turns on by the players' points plus their heroes' worth, the
normal player's own yardstick, played worse: 40 % against normal, as did whole games by the
normal player: 46 %.)
"""

from __future__ import annotations

from collections.abc import Sequence

from games.breakfast_vs_aliens.rules import legal_actions
from games.breakfast_vs_aliens.state import Action, BvaState, Capture, EscapeStep, OfferStep, Pass
from games.breakfast_vs_aliens.strategies import capture_worth, plain
from games.engine import PlayerId, SearchHints
from games.rng import Rng

CAPTURES = 3  # capture options compared (the normal player's best), besides letting it go


def plans(state: BvaState, player: PlayerId) -> Sequence[Sequence[Action]]:
    """The moves to compare: in Mini-Muffin's offers and escape-pile turns the normal player's
    :data:`CAPTURES` best captures and passing; else every legal move."""
    legal = legal_actions(state, player)
    if state.full or not isinstance(state.pending, OfferStep | EscapeStep):
        return [[move] for move in legal]
    captures = [m for m in legal if isinstance(m, Capture)]
    captures.sort(key=lambda m: -capture_worth(state, player, m))
    kept: list[Action] = [*captures[:CAPTURES], Pass()]
    return [[move] for move in kept]


def quick(state: BvaState, player: PlayerId, rng: Rng) -> Action:
    """Every seat of a simulated game: the plain player."""
    return plain(state, player, rng)


HINTS = SearchHints(plans=plans, others=quick, own=quick, paired=True)
