"""A bot that thinks: information-set Monte Carlo search with determinization, for every game.

It decides from one seat's view only: a state in which every string hidden from that seat is an
opaque token ``"?N"`` (``bot.core.seat_view``) and whose RNG tells nothing of the real one. Each
simulation

1. *determinizes* that view: the tokens get concrete hidden strings, drawn from those the seat
   cannot see (the game's :meth:`~games.engine.Game.determinize` where it has one, else
   :func:`generic_determinizer`), and the RNG a fresh seed (future draws are sampled too);
2. picks one of the seat's legal moves by UCB1 (the moves of the view, so every world ranks the
   same moves) — or one of the game's *plans*, a sequence of the seat's own moves, where the
   game's :class:`~games.engine.SearchHints` name them;
3. plays the game to its end with a rollout player (the ``normal`` level) for every seat, or
   until the hints' ``value`` stops it early (the hints may also name other players for the
   other seats and for the seat's own later moves);
4. scores the end for the seat: its share of the win, a little for its score margin (or the
   hints' value).

The plan played most often wins (all its moves: a bot plays them in a row); until every one was
tried once, the rollout player's own move. The budget is a number of simulations and,
optionally, a ``stop`` callback the caller polls (a clock lives outside ``games/``, which stays
pure).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from games.engine import Game, GameState, PlayerId, SearchHints, Strategy
from games.rng import V2_SEEDS, Rng

TOKEN_PREFIX = "?"  # seat_view's tokens: "?1", "?2", …
MAX_ROLLOUT_MOVES = 5_000  # a rollout that does not end by then counts as a draw
EXPLORE = 0.7  # UCB1's exploration constant (rewards lie in [0, 1])

Determinizer = Callable[[GameState, PlayerId, Rng], GameState]


class CannotDeterminize(Exception):
    """The view's hidden strings cannot be filled in (the caller plays its normal move)."""


@dataclass
class SearchResult:
    action: BaseModel  # the plan's first move
    simulations: int  # simulations that reached a result
    # The best plan's moves (``action`` first); one move where there were no plans to compare.
    plan: list[BaseModel] = field(default_factory=list)
    # False: the budget ran out before every plan was tried, so ``action`` is the rollout
    # player's own move (and the rest of its turn is the rollout player's to choose).
    compared: bool = True
    visits: dict[int, int] = field(default_factory=dict)  # by index in the view's legal moves
    values: dict[int, float] = field(default_factory=dict)  # mean reward, same keys


def is_token(value: str) -> bool:
    return value.startswith(TOKEN_PREFIX) and value[1:].isdigit()


def _replace(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_replace(item, mapping) for item in value]
    if isinstance(value, dict):
        return {_replace(k, mapping): _replace(v, mapping) for k, v in value.items()}
    return value


Slot = tuple[str, ...]  # where a string sits: the dict keys on its way, "#" for a list index
Universe = dict[Slot, frozenset[str]]  # the hidden strings each slot may hold


def _slots(value: Any, at: Slot, out: dict[Slot, set[str]]) -> None:
    if isinstance(value, str):
        out.setdefault(at, set()).add(value)
    elif isinstance(value, list):
        for item in value:
            _slots(item, (*at, "#"), out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _slots(key, (*at, "{}"), out)
            _slots(item, (*at, str(key)), out)


def slots_of(state: GameState) -> dict[Slot, set[str]]:
    """Every string of ``state`` (its RNG aside), by the slot it sits in."""
    data = state.model_dump(mode="json", round_trip=True)
    data.pop("rng", None)
    out: dict[Slot, set[str]] = {}
    _slots(data, (), out)
    return out


def hidden_universe(
    game: Game[Any, Any], players: list[PlayerId], options: BaseModel, deals: int = 24
) -> Universe:
    """Which hidden strings each slot of the state may hold, as far as ``deals`` fresh games
    with these players (the same ids: a card may name its owner) and options show (public
    knowledge: the rules and the box)."""
    found: dict[Slot, set[str]] = {}
    for seed in range(deals):
        state = game.setup(list(players), options, seed)
        secret = set(game.secrets(state, None))
        for p in players:
            secret |= game.secrets(state, p)
        for slot, strings in slots_of(state).items():
            if strings & secret:
                found.setdefault(slot, set()).update(strings & secret)
    return {slot: frozenset(strings) for slot, strings in found.items()}


def generic_determinizer(universe: Universe) -> Determinizer:
    """Fill a view's tokens with distinct hidden strings the view does not show, each drawn
    from what its slots may hold (a dish where a dish lies, a card where a card lies); one
    string per token, as a token stands for one hidden string wherever it occurs."""
    everything = frozenset().union(*universe.values()) if universe else frozenset()

    # The search asks again and again about one view: what it shows is worked out once.
    last: list[Any] = [None, None, None]  # the view, its tokens' pools (by token), its dump

    def determinize(seen: GameState, player: PlayerId, rng: Rng) -> GameState:
        if last[0] is not seen:
            last[:] = [seen, *_token_pools(seen, universe, everything)]
        tokens: dict[str, frozenset[str]] = last[1]
        if not tokens:
            return seen.model_copy(deep=True)
        used: set[str] = set(last[2][1])
        mapping: dict[str, str] = {}
        # The most constrained first, so a wide slot does not take what a narrow one needs.
        for token in sorted(tokens, key=lambda t: (len(tokens[t]), int(t[1:]))):
            pool = sorted(tokens[token] - used)
            if not pool:
                raise CannotDeterminize(f"nothing left for {token}")
            mapping[token] = rng.choice(pool)
            used.add(mapping[token])
        data = _replace(last[2][0], mapping)
        world: GameState = type(seen).model_validate(data)
        return world

    return determinize


def _token_pools(
    seen: GameState, universe: Universe, everything: frozenset[str]
) -> tuple[dict[str, frozenset[str]], tuple[Any, set[str]]]:
    """The hidden strings each token of ``seen`` may stand for; its dump and every string it
    shows."""
    where = slots_of(seen)
    shown = set().union(*where.values()) if where else set()
    tokens: dict[str, frozenset[str]] = {}
    for slot, strings in where.items():
        for token in (s for s in strings if is_token(s)):
            fits = universe.get(slot)
            if fits is not None:
                tokens[token] = tokens.get(token, fits) & fits
            else:
                tokens.setdefault(token, everything)
    return tokens, (seen.model_dump(mode="json", round_trip=True), shown)


def reward(game: Game[Any, Any], state: GameState, player: PlayerId) -> float:
    """The seat's result in [0, 1]: its share of the win (the table's success in a cooperative
    game), plus a little for its score against the best other (ties broken by margin)."""
    outcome = game.outcome(state)
    if outcome is None:
        return 0.5
    won = player in outcome.winners
    share = (1.0 / len(outcome.winners)) if won else 0.0
    mine = outcome.scores.get(player, 0)
    others = [v for p, v in outcome.scores.items() if p != player]
    if outcome.cooperative or not others:
        margin = mine / (abs(mine) + 10)
    else:
        best = max(others)
        margin = (mine - best) / (abs(mine) + abs(best) + 1)
    return 0.9 * share + 0.05 * (margin + 1)


def rollout(
    game: Game[Any, Any],
    state: GameState,
    policy: Strategy,
    rng: Rng,
    limit: int,
    *,
    player: PlayerId | None = None,
    hints: SearchHints | None = None,
    start: GameState | None = None,
) -> tuple[GameState, float | None]:
    """Play ``state`` (a private copy: it may be changed) with ``policy`` for every seat (the
    hints' ``own`` for ``player``'s, ``others`` for the rest), the seat awaited first moving first, to
    the end or until the hints' ``value`` scores it for ``player``. The state reached, and that
    score (None at the end)."""
    value = hints.value if hints is not None and player is not None else None
    others = hints.others if hints is not None and hints.others is not None else policy
    own = hints.own if hints is not None and hints.own is not None else policy
    for _ in range(limit):
        if value is not None:  # first: it may score the end too (the others played by hint)
            assert player is not None
            score = value(start if start is not None else state, state, player)
            if score is not None:
                return state, score
        if game.outcome(state) is not None:
            return state, None
        active = game.active_players(state)
        if not active:
            return state, None
        mover = next(p for p in state.players if p in active)
        action = (own if mover == player else others)(state, mover, rng)
        state = game.apply_action(state, mover, action)
    return state, None


def search(
    game: Game[Any, Any],
    seen: GameState,
    player: PlayerId,
    *,
    policy: Strategy,
    determinize: Determinizer,
    seed: int,
    simulations: int,
    stop: Callable[[], bool] | None = None,
    rollout_limit: int = MAX_ROLLOUT_MOVES,
) -> SearchResult:
    """The seat's best move found within ``simulations`` (or until ``stop()`` says so; it is
    asked between simulations). ``seen`` is the seat's view; it is not changed. The game's
    :class:`~games.engine.SearchHints` say which plans to compare and where a simulated game
    may stop."""
    legal: Sequence[BaseModel] = list(game.legal_actions(seen, player))
    if not legal:
        raise ValueError(f"{player} has no legal move")
    rng = Rng(seed=seed)
    if len(legal) == 1 or not game.searchable(seen, player):
        only = policy(seen, player, rng)
        return SearchResult(action=only, simulations=0, plan=[only])
    hints = game.search_hints()
    plans: list[Sequence[BaseModel]] = (
        [list(plan) for plan in hints.plans(seen, player) if plan]
        if hints.plans is not None
        else [[move] for move in legal]
    )
    if len(plans) == 1:
        return SearchResult(action=plans[0][0], simulations=0, plan=list(plans[0]))
    # The rollout player's own move: the answer until the search has tried every move (a
    # budget too short to compare them all must not play whichever came first).
    try:
        fallback: BaseModel | None = policy(seen, player, Rng(seed=seed))
    except Exception:
        fallback = None  # it reached for a token: the search alone decides
    visits = [0] * len(plans)
    totals = [0.0] * len(plans)
    done = 0
    shared: tuple[GameState, int, int] | None = None  # paired: this round's world and seeds
    for _ in range(simulations):
        if stop is not None and done and stop():
            break
        index = done % len(plans) if hints.paired else _ucb(visits, totals, done)
        visits[index] += 1
        done += 1
        try:
            if not hints.paired:
                world = determinize(seen, player, rng)
                world.rng = Rng(seed=rng.randint(V2_SEEDS, (1 << 63) - 1))
                luck = rng
            else:
                if shared is None or index == 0:
                    world = determinize(seen, player, rng)
                    shared = (world, rng.randint(V2_SEEDS, (1 << 63) - 1), rng.randint(0, 1 << 62))
                # Each plan plays its own copy of the round's world, with the same luck.
                world = shared[0] if game.copy_on_write else shared[0].model_copy(deep=True)
                world.rng = Rng(seed=shared[1])
                luck = Rng(seed=shared[2])
            for move in plans[index]:
                if not game.is_legal(world, player, move):
                    break  # impossible in this world: counts as no gain
                world = game.apply_action(world, player, move)
            else:
                end, score = rollout(
                    game, world, policy, luck, rollout_limit, player=player, hints=hints, start=seen
                )
                totals[index] += reward(game, end, player) if score is None else score
        except CannotDeterminize:
            raise
        except Exception:
            # A rollout player that stumbles in a sampled world (a rule it never met): this
            # world tells nothing; the budget still moves on.
            totals[index] += 0.5
    if hints.paired:  # every plan played the same worlds (give or take the last round's)
        best = max(
            range(len(plans)),  # a tie: the rollout player's own move
            key=lambda i: (totals[i] / max(visits[i], 1), plans[i][0] == fallback),
        )
    else:
        best = max(range(len(plans)), key=lambda i: (visits[i], totals[i]))
    plan = list(plans[best])
    starved = False  # not every plan tried: the rollout player's move
    if fallback is not None and fallback in legal and 0 in visits:
        plan, starved = [fallback], True
    return SearchResult(
        action=plan[0],
        simulations=done,
        plan=plan,
        compared=not starved,
        visits={i: v for i, v in enumerate(visits) if v},
        values={i: totals[i] / visits[i] for i in range(len(plans)) if visits[i]},
    )


def _ucb(visits: list[int], totals: list[float], done: int) -> int:
    for i, v in enumerate(visits):
        if v == 0:
            return i
    log_n = math.log(done)
    return max(
        range(len(visits)),
        key=lambda i: totals[i] / visits[i] + EXPLORE * math.sqrt(log_n / visits[i]),
    )
