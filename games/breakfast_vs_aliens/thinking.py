"""How the hard bot thinks in Breakfast vs Aliens.

Mini-Muffin (:func:`search_move`): a search anchored to the normal player. Its few choices
(capture an alien or let it go, with which heroes; which hero gets a treasure; which escaped alien
to take at the end) are where the weighing normal player (``strategies.weighed``) is already
good, and the deck's order decides far more of a game than one capture does. So:

- only the moves worth comparing are compared: the normal player's choice, its
  :data:`CAPTURES` best captures by its own yardstick, and letting the alien go
  (:func:`candidates`);
- every candidate plays the same sampled decks (common random numbers): what differs between
  their results is the move's doing, not the deck's;
- after :data:`HALVE` of the budget only the normal player's move and the best other so far
  go on, so the one comparison that can change the move gets the most decks;
- each simulated game is played by the normal player for its first :data:`WEIGHED_MOVES`
  moves (every seat: the opponents answer as the real ones would), then by the quick ``plain``
  player to the end (:func:`playout`);
- the search plays another move than the normal player's only when its gain over it, world by
  world, stands clear of the sample's noise (:data:`MARGIN` standard errors): with a budget of
  a few dozen decks most differences are luck. (The search before this one followed every
  difference, with the plain player for every seat: it won 12.5 % of the games at a table of
  four against the normal player's 25 %.)

Full Pancake: the generic search (``games/search.py``) with :data:`HINTS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from games.breakfast_vs_aliens.catalogue import ALL_CARDS
from games.breakfast_vs_aliens.rules import active_players, apply_action, legal_actions
from games.breakfast_vs_aliens.scoring import scores
from games.breakfast_vs_aliens.state import (
    Action,
    AttachStep,
    BvaState,
    Capture,
    EscapeStep,
    OfferStep,
    Pass,
    outside_deck,
)
from games.breakfast_vs_aliens.strategies import capture_worth, greedy, plain
from games.engine import PlayerId, SearchHints
from games.rng import V2_SEEDS, Rng

CAPTURES = 3  # capture options compared (the normal player's best), besides letting it go
WEIGHED_MOVES = 8  # moves of a simulated game played by the normal player, then plain ones
HALVE = 0.5  # after this share of the budget, only the normal move and the best other go on
MARGIN = 1.0  # standard errors by which a move must beat the normal player's to be played
SHARE = 0.9  # a simulated game's result: this much for the win, the rest for the margin
MAX_MOVES = 2_000  # a simulated game never runs longer (Mini-Muffin's take ~100 moves)


def candidates(state: BvaState, player: PlayerId) -> list[Action]:
    """The moves to compare, the normal player's first: its choice, its :data:`CAPTURES` best
    captures and letting the alien go (an offer or an escape-pile turn); every hero for a
    treasure."""
    legal = legal_actions(state, player)
    normal = greedy(state, player, Rng(seed=1))
    if isinstance(state.pending, AttachStep):
        return [normal, *(m for m in legal if m != normal)]
    captures = [m for m in legal if isinstance(m, Capture)]
    captures.sort(key=lambda m: -capture_worth(state, player, m))
    out = [normal]
    for move in [*captures[:CAPTURES], Pass()]:
        if move not in out and move in legal:
            out.append(move)
    return out


def deal(seen: BvaState, rng: Rng) -> BvaState | None:
    """A world ``seen`` cannot tell from the real one: the deck (all tokens in a seat's view)
    holds the cards outside it that the seat does not see, in a random order. None: the view
    hides more than the deck (another player's peek: not Mini-Muffin's)."""
    shown = set(outside_deck(seen))
    unseen = [c for c in ALL_CARDS if c not in shown]
    if len(unseen) != len(seen.deck) or seen.peek:
        return None
    rng.shuffle(unseen)
    return seen.model_copy(
        update={"deck": unseen, "rng": Rng(seed=rng.randint(V2_SEEDS, (1 << 63) - 1))}
    )


def playout(state: BvaState, player: PlayerId, move: Action) -> float:
    """``player``'s result of ``move`` in the world ``state``: the game played to its end, the
    normal player for the first :data:`WEIGHED_MOVES` moves, then ``plain``."""
    luck = Rng(seed=state.rng.seed)  # strategies take one; the same for every candidate
    state = apply_action(state, player, move)
    for n in range(MAX_MOVES):
        if state.over:
            break
        active = active_players(state)
        mover = next(p for p in state.players if p in active)
        policy = greedy if n < WEIGHED_MOVES else plain
        state = apply_action(state, mover, policy(state, mover, luck))
    return result(state, player)


def result(state: BvaState, player: PlayerId) -> float:
    """The seat's share of the win, and a little for its margin over the best other (in [0, 1])."""
    table = scores(state)
    mine = table[player]
    best_other = max(v for p, v in table.items() if p != player)
    top = max(mine, best_other)
    winners = sum(1 for v in table.values() if v == top)
    share = 1.0 / winners if mine == top else 0.0
    margin = (mine - best_other) / (abs(mine) + abs(best_other) + 1)
    return SHARE * share + (1 - SHARE) * (margin + 1) / 2


def search_move(
    seen: BvaState,
    player: PlayerId,
    simulations: int,
    stop: Callable[[], bool] | None = None,
) -> tuple[Action, int] | None:
    """The hard bot's Mini-Muffin move from ``seen`` (``player``'s view), and the simulated
    games it played (one a candidate in a world: ``simulations`` at most, fewer when ``stop()``
    says so); None where the generic search decides (Full Pancake, moves nobody weighs)."""
    if seen.full or not isinstance(seen.pending, OfferStep | EscapeStep | AttachStep):
        return None
    moves = candidates(seen, player)
    if len(moves) == 1:
        return moves[0], 0
    # The view's RNG is the caller's fresh seed (never the real one): the search's own luck.
    rng = Rng(seed=V2_SEEDS | (seen.rng.seed & ((1 << 62) - 1)))
    rewards: list[list[float]] = [[] for _ in moves]
    alive = list(range(len(moves)))  # the candidates still played, the normal move first
    done, turn = 0, 0
    world: BvaState | None = None
    while done < simulations:
        if stop is not None and done and stop():
            break
        if turn == 0:
            if len(alive) > 2 and done >= HALVE * simulations:
                alive = [0, alive[1 + best_gain([rewards[i] for i in alive])]]
            world = deal(seen, rng)
            if world is None:
                return None
        assert world is not None
        index = alive[turn]
        rewards[index].append(playout(world, player, moves[index]))
        done += 1
        turn = (turn + 1) % len(alive)
    return moves[alive[choose([rewards[i] for i in alive])]], done


def best_gain(rewards: Sequence[Sequence[float]]) -> int:
    """Among the candidates after the first, the one (counted from 0) whose mean gain over the
    first, in the worlds all played, is largest."""
    rounds = min(len(r) for r in rewards)
    gains = [sum(r[:rounds]) - sum(rewards[0][:rounds]) for r in rewards[1:]]
    return max(range(len(gains)), key=lambda i: gains[i])


def choose(rewards: Sequence[Sequence[float]]) -> int:
    """The candidate to play: the one whose gain over the first (the normal player's), world
    by world, is largest once :data:`MARGIN` standard errors are taken off; the first when none
    gains for sure. Only worlds every candidate played count."""
    rounds = min(len(r) for r in rewards)
    if rounds < 2:
        return 0
    best, best_score = 0, 0.0
    for i in range(1, len(rewards)):
        gains = [rewards[i][k] - rewards[0][k] for k in range(rounds)]
        mean = sum(gains) / rounds
        var = sum((g - mean) ** 2 for g in gains) / (rounds - 1)
        score = mean - MARGIN * math.sqrt(var / rounds)
        if score > best_score:
            best, best_score = i, score
    return best


def plans(state: BvaState, player: PlayerId) -> Sequence[Sequence[Action]]:
    """Full Pancake (the generic search): every legal move."""
    return [[move] for move in legal_actions(state, player)]


def quick(state: BvaState, player: PlayerId, rng: Rng) -> Action:
    """Every seat of a simulated game: the plain player."""
    return plain(state, player, rng)


HINTS = SearchHints(plans=plans, others=quick, own=quick, paired=True)
