"""Bot levels: easy, normal and the hard search (it never peeks, it keeps its budget), seating a
bot at a level, bots agreeing to undos, and the arena."""

from __future__ import annotations

import json

import pytest

from bot.core.arena import Match, parse_seats, play_match, play_plan, run_arena, wilson
from bot.core.errors import UserError
from bot.core.levels import (
    Level,
    Plan,
    determinizer,
    easy_strategy,
    hard_plan,
    normal_strategy,
)
from bot.core.seat_view import as_seen_by
from bot.core.seats import robot_level
from bot.core.sessions import SessionService
from games import REGISTRY
from games.cafe_carnage.state import Confirm, Pick
from games.engine import GameState, apply, new_game
from games.rng import Rng
from games.search import is_token, search

HOST = "1001"


def carnage(seed: int = 11) -> GameState:
    game = REGISTRY["cafe-carnage"]
    return new_game(game, ["bot-1", "bot-2", "bot-3"], game.parse_options({}), seed)


def other_deal(state: GameState) -> GameState:
    """The same game with bot-2's and bot-3's secrets swapped and the decks reversed: a deal
    that bot-1's view cannot tell from the first."""
    data = state.model_dump(mode="json", round_trip=True)
    for key in ("hands", "menus"):
        data[key]["bot-2"], data[key]["bot-3"] = data[key]["bot-3"], data[key]["bot-2"]
    data["decks"] = {course: list(reversed(deck)) for course, deck in data["decks"].items()}
    data["rng"]["seed"] += 1  # and the future draws differ too
    return type(state).model_validate(data)


def test_hard_decides_alike_whatever_the_hidden_cards_are() -> None:
    game = REGISTRY["cafe-carnage"]
    first = carnage()
    second = other_deal(first)
    assert first != second  # the real deals differ…
    seen = [as_seen_by(game, s, "bot-1", 5) for s in (first, second)]
    assert seen[0] == seen[1]  # …and bot-1 sees the same
    options = game.parse_options({})
    _, normal = normal_strategy(game, "bot-1")
    results = [
        search(
            game,
            view,
            "bot-1",
            policy=normal,
            determinize=determinizer(game, first.players, options),
            seed=42,
            simulations=24,
        )
        for view in seen
    ]
    assert results[0].simulations == 24
    assert results[0].action == results[1].action
    assert results[0].visits == results[1].visits and results[0].values == results[1].values


def test_the_determinizer_fills_every_token_with_a_card_of_its_slot() -> None:
    game = REGISTRY["cafe-carnage"]
    real = carnage()
    seen = as_seen_by(game, real, "bot-1", 5)
    assert any(is_token(card) for card in seen.hands["bot-2"])  # type: ignore[attr-defined]
    world = determinizer(game, real.players, game.parse_options({}))(seen, "bot-1", Rng(seed=3))
    dumped = world.model_dump_json()
    assert '"?' not in dumped
    game.check_invariants(world)  # every card in one place: a deal that could be
    # What bot-1 holds stays as it is; the others hold cards of the same kinds as in truth.
    assert world.hands["bot-1"] == real.hands["bot-1"]  # type: ignore[attr-defined]
    for course, cards in world.menus["bot-2"].items():  # type: ignore[attr-defined]
        assert len(cards) == len(real.menus["bot-2"][course])  # type: ignore[attr-defined]


def test_the_search_keeps_its_budget_counted_in_simulations() -> None:
    game = REGISTRY["breakfast-vs-aliens"]
    state = new_game(game, ["bot-1", "bot-2"], game.parse_options({}), 3)
    _, normal = normal_strategy(game, "bot-1")
    while len(game.legal_actions(state, player := sorted(game.active_players(state))[0])) < 2:
        state = apply(game, state, player, normal(state, player, Rng(seed=1)))
    seen = as_seen_by(game, state, player, 1)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) >= 7

    stopped = hard_plan(
        game,
        seen,
        player,
        options=game.parse_options({}),
        policy=normal,
        seed=1,
        simulations=50,
        stop=stop,
    )
    assert stopped.simulations == 7  # stopped when asked, after the simulations already run
    assert stopped.moves[0] in game.legal_actions(state, player)
    whole = hard_plan(
        game, seen, player, options=game.parse_options({}), policy=normal, seed=1, simulations=9
    )
    assert whole.simulations == 9


def test_easy_plays_legal_random_moves() -> None:
    game = REGISTRY["cafe-carnage"]
    state = carnage()
    player = "bot-1"
    easy = easy_strategy(game)
    moves = {easy(state, player, Rng(seed=n)).model_dump_json() for n in range(30)}
    legal = {m.model_dump_json() for m in game.legal_actions(state, player)}
    assert moves <= legal and len(moves) > 1


async def test_the_host_seats_bots_by_level(service: SessionService) -> None:
    s = await service.create(
        game_id="monster-cafe", channel_id=7, guild_id=1, host_id=HOST, host_name="H", seed=5
    )
    s = await service.add_robot(s.id, HOST, "hard")
    s = await service.add_robot(s.id, HOST)
    names = [p.name for p in s.players[1:]]
    assert names == ["🤖 Biscuit (hard)", "🤖 Mocha (normal)"]
    assert [robot_level(n) for n in names] == ["hard", "normal"]
    assert robot_level("🤖 Biscuit") == "normal"  # a seat stored before levels
    with pytest.raises(UserError, match="no bot level"):
        await service.add_robot(s.id, HOST, "impossible")
    assert len((await service.load(s.id)).players) == 3  # refused: nothing changed


async def test_bot_players_agree_to_an_undo_at_once(service: SessionService) -> None:
    s = await service.create(
        game_id="monster-cafe", channel_id=7, guild_id=1, host_id=HOST, host_name="H", seed=5
    )
    s = await service.add_robot(s.id, HOST)
    s = await service.start(s.id, HOST)
    game = s.game
    assert s.state is not None
    for _ in range(40):  # the host plays until a move the others must consent to undo
        assert s.state is not None
        if HOST not in game.active_players(s.state):
            bot = next(iter(game.active_players(s.state)))
            s = (await service.act(s.id, bot, game.on_timeout(s.state, bot))).session
            continue
        before = s.state
        move = game.legal_actions(before, HOST)[0]
        s = (await service.act(s.id, HOST, move)).session
        assert s.state is not None
        if game.undo_policy(before, s.state, HOST, move).value == "consent":
            break
    else:
        pytest.skip("no move needing consent came up")
    answer = await service.ask_undo(s.id, HOST)
    assert answer.undone  # (before levels: the bot was asked, and the host waited for it)
    assert (await service.load(s.id)).state == before


def test_the_arena_tallies_levels_by_seat() -> None:
    result = run_arena(
        "breakfast-vs-aliens",
        2,
        parse_seats("normal,easy"),
        games=4,
        seed=3,
        simulations=2,
        run=lambda play, todo: [play(m) for m in todo],
    )
    assert result.games == 4 and result.unfinished == 0
    normal, easy = result.by_level[Level.NORMAL], result.by_level[Level.EASY]
    assert normal.seats == easy.seats == 4
    assert normal.wins + easy.wins == pytest.approx(4.0)  # one win (or its shares) a game
    text = "\n".join(result.lines())
    assert "normal" in text and "easy" in text and "%" in text


def test_the_arena_plays_with_the_options_given() -> None:
    modes: list[str] = []

    def play(match: Match) -> tuple[list[float], bool, bool]:
        game = REGISTRY[match.game_id]
        options = game.parse_options(json.loads(match.options))
        modes.append(new_game(game, ["a", "b"], options, match.seed).options.mode)  # type: ignore[attr-defined]
        return play_match(match)

    result = run_arena(
        "breakfast-vs-aliens",
        2,
        parse_seats("normal,easy"),
        games=2,
        simulations=2,
        options={"mode": "full-pancake"},
        run=lambda _, todo: [play(m) for m in todo],
    )
    assert modes == ["full-pancake", "full-pancake"]
    assert result.games == 2 and result.unfinished == 0
    assert "(2p, mode=full-pancake)" in result.lines()[0]


def test_an_arena_game_seats_hard_and_ends() -> None:
    shares, ended, cooperative = play_match(
        Match("breakfast-vs-aliens", (Level.HARD, Level.NORMAL), 9, None, 2)
    )
    assert ended and not cooperative
    assert sum(shares) == pytest.approx(1.0)


def test_wilson_interval() -> None:
    low, high = wilson(30, 40)
    assert 0.59 < low < 0.61 and 0.85 < high < 0.87
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="no bot level"):
        parse_seats("hard,grandmaster")


def test_alien_cafes_level_4_player_decides_from_its_view_alone() -> None:
    # It used to read the other seat's house (secret): on a bot's view it found a token and
    # failed, so a normal bot at level 4 only ever played the default move.
    game = REGISTRY["alien-cafe"]
    play = game.strategies()["greedy-L4"]
    state = new_game(game, ["bot-1", "bot-2"], game.parse_options({}), 2)
    rng = Rng(seed=1)
    for _ in range(1000):
        if game.outcome(state) is not None:
            break
        mover = next(p for p in state.players if p in game.active_players(state))
        state = apply(game, state, mover, play(as_seen_by(game, state, mover, 5), mover, rng))
    assert game.outcome(state) is not None


def test_a_budget_too_short_to_try_every_move_plays_the_normal_move() -> None:
    game = REGISTRY["cafe-carnage"]
    state = carnage()
    seen = as_seen_by(game, state, "bot-1", 5)
    _, normal = normal_strategy(game, "bot-1")
    moves = game.legal_actions(seen, "bot-1")
    assert len(moves) > 2
    short = search(
        game,
        seen,
        "bot-1",
        policy=normal,
        determinize=determinizer(game, state.players, game.parse_options({})),
        seed=1,
        simulations=2,
    )
    assert short.simulations == 2
    assert short.action == normal(seen, "bot-1", Rng(seed=1))


def test_the_arena_plays_a_hard_seats_plan_as_a_bot_player_does() -> None:
    """Café Carnage: the whole order searched once (picks, ballot, Confirm) is played in a row;
    a plan whose next move no longer fits stops there (the seat searches again); the normal
    move of a search that compared nothing goes on with the normal player's, up to the move
    the table sees."""
    game = REGISTRY["cafe-carnage"]
    state = carnage()
    options = game.parse_options({})
    _, normal = normal_strategy(game, "bot-1")
    seen = as_seen_by(game, state, "bot-1", 5)
    plan = hard_plan(game, seen, "bot-1", options=options, policy=normal, seed=3, simulations=48)
    assert plan.compared and len(plan.moves) == 5 and plan.moves[-1] == Confirm()
    ordered = play_plan(game, state, "bot-1", plan, normal, Rng(seed=1))
    assert "bot-1" not in game.active_players(ordered)  # its order is made and confirmed
    expected = state
    for move in plan.moves:
        expected = apply(game, expected, "bot-1", move)
    assert ordered == expected

    garbled = Plan([plan.moves[0], Pick(card="not-a-dish"), *plan.moves[2:]], 48)
    once = play_plan(game, state, "bot-1", garbled, normal, Rng(seed=1))
    assert once == apply(game, state, "bot-1", plan.moves[0])

    starved = hard_plan(game, seen, "bot-1", options=options, policy=normal, seed=3, simulations=2)
    assert not starved.compared and starved.moves == [normal(seen, "bot-1", Rng(seed=3))]
    by_normal = play_plan(game, state, "bot-1", starved, normal, Rng(seed=1))
    assert "bot-1" not in game.active_players(by_normal)
