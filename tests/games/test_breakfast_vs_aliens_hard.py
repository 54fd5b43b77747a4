"""Breakfast vs Aliens' hard bot (Mini-Muffin): it never peeks at the deck, it deals only decks
its view allows, and it leaves the normal player's move only for a gain clear of the noise."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.core.levels import hard_plan, normal_strategy
from bot.core.seat_view import as_seen_by
from games import REGISTRY
from games.breakfast_vs_aliens import thinking
from games.breakfast_vs_aliens.state import AttachStep, BvaState, OfferStep
from games.engine import apply, new_game
from games.rng import Rng
from games.search import is_token

GAME = REGISTRY["breakfast-vs-aliens"]
PLAYERS = ["bot-1", "bot-2", "bot-3"]


def a_choice(step: type[OfferStep | AttachStep], seed: int = 4) -> tuple[BvaState, str]:
    """A game played by normal players up to a ``step`` whose player has several candidates."""
    state = new_game(GAME, PLAYERS, GAME.parse_options({}), seed)
    _, normal = normal_strategy(GAME, "bot-1")
    for _ in range(400):
        player = next(p for p in state.players if p in GAME.active_players(state))
        if isinstance(state.pending, step) and len(thinking.candidates(state, player)) > 2:
            assert isinstance(state, BvaState)
            return state, player
        state = apply(GAME, state, player, normal(state, player, Rng(seed=1)))
    raise AssertionError(f"no {step.__name__} with a choice came up")


def an_offer_with_a_choice() -> tuple[BvaState, str]:
    return a_choice(OfferStep)


def hard_moves_in_two_decks(
    first: BvaState, player: str
) -> tuple[list[object], list[tuple[object, int]]]:
    """The seat's view and hard's move (40 simulations) in ``first`` and in the same game with
    its deck reversed: the real decks differ, the seat sees the same, and hard moves the same."""
    second = first.model_copy(update={"deck": list(reversed(first.deck))})
    assert first.deck != second.deck  # the real decks differ…
    seen = [as_seen_by(GAME, s, player, 5) for s in (first, second)]
    assert seen[0] == seen[1]  # …and the seat sees the same
    _, normal = normal_strategy(GAME, player)
    options = GAME.parse_options({})
    moves: list[tuple[object, int]] = [
        (plan.moves[0], plan.simulations)
        for plan in (
            hard_plan(GAME, view, player, options=options, policy=normal, seed=1, simulations=40)
            for view in seen
        )
    ]
    assert moves[0] == moves[1]
    return list(seen), moves


def test_hard_decides_alike_whatever_the_deck_order_is() -> None:
    first, player = an_offer_with_a_choice()
    _, moves = hard_moves_in_two_decks(first, player)
    assert moves[0][1] == 40  # its own search ran, the whole budget
    assert moves[0][0] in GAME.legal_actions(first, player)


@pytest.mark.parametrize("step", [OfferStep, AttachStep])
def test_a_sampled_deck_holds_exactly_the_cards_the_table_does_not_show(
    step: type[OfferStep | AttachStep],
) -> None:
    # At an AttachStep the treasure being placed is in the gainer's hand, on no shelf of the
    # table: a deal that forgot it found one card too few outside the deck and gave up.
    real, player = a_choice(step)
    seen = as_seen_by(GAME, real, player, 5)
    assert isinstance(seen, BvaState) and all(is_token(c) for c in seen.deck)
    world = thinking.deal(seen, Rng(seed=3))
    assert world is not None
    assert Counter(world.deck) == Counter(real.deck)  # the same cards, in an order of its own
    assert world.deck != real.deck
    GAME.check_invariants(world)
    assert '"?' not in world.model_dump_json()


def test_the_normal_players_move_comes_first_and_stays_without_a_clear_gain() -> None:
    state, player = an_offer_with_a_choice()
    _, normal = normal_strategy(GAME, player)
    moves = thinking.candidates(state, player)
    assert moves[0] == normal(state, player, Rng(seed=1))
    assert len(set(m.model_dump_json() for m in moves)) == len(moves)  # no move twice
    # Luck either way: the normal player's move.
    assert thinking.choose([[0.5] * 6, [0.9, 0.1, 0.9, 0.1, 0.9, 0.1]]) == 0
    # A small but steady gain in every world: the better move.
    assert thinking.choose([[0.5] * 6, [0.5] * 6, [0.55] * 6]) == 2
    # A gain from one lucky world, a loss in another: not clear enough.
    assert thinking.choose([[0.5] * 6, [0.5] * 4 + [1.0, 0.4]]) == 0
    assert thinking.choose([[0.5], [1.0]]) == 0  # one world tells nothing


def test_hard_places_a_treasure_alike_whatever_the_deck_order_is() -> None:
    first, player = a_choice(AttachStep)
    seen, moves = hard_moves_in_two_decks(first, player)
    # Its own search ran (the generic one would have run the same 40), the whole budget.
    own = [thinking.search_move(view, player, 40) for view in seen if isinstance(view, BvaState)]
    assert len(own) == 2 and own[0] is not None
    assert own[0] == own[1] == moves[0]
    assert moves[0][0] in GAME.legal_actions(first, player)


def test_the_best_other_move_goes_on_after_half_the_budget() -> None:
    # Gains over the normal player's move (the first), in the worlds all three played.
    assert thinking.best_gain([[0.5] * 4, [0.4] * 4, [0.6] * 3]) == 1  # the third, counted from 0
    assert thinking.best_gain([[0.5] * 4, [0.6] * 4, [0.4] * 4]) == 0
    state, player = an_offer_with_a_choice()
    seen = as_seen_by(GAME, state, player, 5)
    assert isinstance(seen, BvaState)
    result = thinking.search_move(seen, player, 60)
    assert result is not None and result[1] == 60  # the whole budget, however it was shared
