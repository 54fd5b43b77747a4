"""Bot players in the core: seating them, playing them, and what they may see."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from bot.core.errors import NotAllowed
from bot.core.robots import Robots, decide, strategy_for
from bot.core.seat_view import as_seen_by, hidden_from
from bot.core.seats import is_robot, robot_seat_name
from bot.core.sessions import Change, Session, SessionService
from bot.core.store import SessionStatus
from games import REGISTRY
from games.engine import Game, GameState, apply, new_game
from games.rng import Rng

HOST = "1001"
FRIEND = "1002"


async def lobby(service: SessionService, game_id: str = "monster-cafe") -> Session:
    return await service.create(
        game_id=game_id, channel_id=7, guild_id=1, host_id=HOST, host_name="Host", seed=5
    )


async def started_with_two_robots(service: SessionService) -> Session:
    """A Café Carnage game of the host and two bot players, just started."""
    s = await lobby(service, "cafe-carnage")
    s = await service.add_robot(s.id, HOST)
    s = await service.add_robot(s.id, HOST)
    return await service.start(s.id, HOST)


# -- seating ---------------------------------------------------------------------------------------


async def test_the_host_seats_and_removes_bot_players(service: SessionService) -> None:
    s = await lobby(service)
    s = await service.add_robot(s.id, HOST)
    s = await service.add_robot(s.id, HOST)
    robots = [p for p in s.players if is_robot(p.user_id)]
    assert [p.user_id for p in robots] == ["bot-1", "bot-2"]
    assert all(p.name.startswith("🤖 ") for p in robots)  # labelled wherever names show
    assert [p.name for p in robots] == ["🤖 Biscuit (normal)", "🤖 Mocha (normal)"]
    assert [p.name for p in robots] == [robot_seat_name(f"bot-{n}", "normal") for n in (1, 2)]
    s = await service.remove_robot(s.id, HOST)
    assert [p.user_id for p in s.players] == [HOST, "bot-1"]
    s = await service.add_robot(s.id, HOST)  # the freed id is used again
    assert [p.user_id for p in s.players] == [HOST, "bot-1", "bot-2"]


async def test_bot_seats_are_refused_with_a_reason_and_change_nothing(
    service: SessionService,
) -> None:
    s = await lobby(service)  # Monster Café: 2-4 players
    await service.join(s.id, FRIEND, "Friend")
    with pytest.raises(NotAllowed, match="Only the host"):
        await service.add_robot(s.id, FRIEND)
    with pytest.raises(NotAllowed, match="no bot player"):
        await service.remove_robot(s.id, HOST)
    await service.add_robot(s.id, HOST)
    await service.add_robot(s.id, HOST)
    with pytest.raises(NotAllowed, match="full"):
        await service.add_robot(s.id, HOST)
    with pytest.raises(NotAllowed, match="Only the host"):
        await service.remove_robot(s.id, FRIEND)
    s = await service.start(s.id, HOST)
    with pytest.raises(NotAllowed, match="lobby"):
        await service.add_robot(s.id, HOST)
    after = await service.load(s.id)
    assert after.player_ids == [HOST, FRIEND, "bot-1", "bot-2"]
    assert after.version == s.version


# -- playing ---------------------------------------------------------------------------------------


async def play_as_human(service: SessionService, robots: Robots, s: Session, seed: int) -> Session:
    """The humans move at random whenever awaited; the bot seats are left to ``robots``."""
    rng = Rng(seed=seed)
    for _ in range(3000):
        await robots.idle()
        s = await service.load(s.id)
        if s.status is not SessionStatus.ACTIVE:
            return s
        assert s.state is not None
        awaited = [p for p in s.state.players if p in s.game.active_players(s.state)]
        humans = [p for p in awaited if not is_robot(p)]
        assert humans, f"{s.game.id}: bot seats {awaited} are awaited but did not move"
        player = rng.choice(humans)
        await service.act(s.id, player, rng.choice(list(s.game.legal_actions(s.state, player))))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game_id", list(REGISTRY))
async def test_a_table_of_bots_and_one_person_plays_to_its_end(
    service: SessionService, game_id: str
) -> None:
    game = REGISTRY[game_id]
    robots = Robots(service, delay=0.0)
    await robots.start()
    s = await lobby(service, game_id)
    for _ in range(max(game.min_players, min(3, game.max_players)) - 1):
        s = await service.add_robot(s.id, HOST)
    s = await service.start(s.id, HOST)
    s = await play_as_human(service, robots, s, seed=3)
    await robots.stop()
    assert s.status is SessionStatus.FINISHED
    assert robots.moves_played > 0
    assert await service.replay(s.id) == s.state  # bot moves are logged like any move


async def test_after_a_restart_awaited_bot_seats_move_again(service: SessionService) -> None:
    s = await started_with_two_robots(service)  # nobody plays the bots: "bot process" down
    assert s.state is not None
    assert {"bot-1", "bot-2"} <= s.game.active_players(s.state)
    robots = Robots(service, delay=0.0)
    await robots.start()  # a new process: it looks at the open sessions
    await robots.idle()
    await robots.stop()
    s = await service.load(s.id)
    assert s.state is not None
    assert s.game.active_players(s.state) == {HOST}  # the bots ordered and confirmed
    assert robots.moves_played >= 2


async def test_moves_say_whether_a_bot_seat_may_be_awaited(service: SessionService) -> None:
    """A move in a game of humans only does not set the bot players looking (a check per
    click); in a game with a bot seat, every move does."""
    changes: list[Change] = []
    service.subscribe(changes.append)
    for robots in (0, 1):
        s = await lobby(service, "cafe-carnage")
        await service.join(s.id, FRIEND, "Friend")
        if robots:
            await service.add_robot(s.id, HOST)
        else:
            await service.join(s.id, "1003", "Third")
        s = await service.start(s.id, HOST)
        assert s.state is not None
        changes.clear()
        move = next(iter(s.game.legal_actions(s.state, HOST)))
        await service.act(s.id, HOST, move)
        assert [c.robots for c in changes] == [bool(robots)]
        await service.abandon(s.id, HOST, may_manage=True)


async def test_a_move_that_awaits_no_bot_seat_sets_no_bot_looking(
    service: SessionService,
) -> None:
    """Once the bot seat has confirmed its order, the person's moves await no bot seat: the
    change says so (the bot players load nothing for them); before, it names the bot seat."""
    changes: list[Change] = []
    service.subscribe(changes.append)
    s = await lobby(service, "cafe-carnage")
    await service.join(s.id, FRIEND, "Friend")
    s = await service.add_robot(s.id, HOST)
    s = await service.start(s.id, HOST)
    robot = next(p for p in s.player_ids if is_robot(p))
    assert s.state is not None
    changes.clear()
    await service.act(s.id, HOST, next(iter(s.game.legal_actions(s.state, HOST))))
    assert [(c.robots, c.awaited_robots) for c in changes] == [(True, frozenset({robot}))]
    while robot in s.game.active_players(s.state):  # the bot seat orders and confirms
        move = decide(s.game, s.state, robot, seed=s.version)
        s = (await service.act(s.id, robot, move)).session
        assert s.state is not None
    changes.clear()
    await service.act(s.id, FRIEND, next(iter(s.game.legal_actions(s.state, FRIEND))))
    assert [(c.robots, c.awaited_robots) for c in changes] == [(False, frozenset())]


async def test_moves_while_a_bot_seat_pauses_start_no_check(service: SessionService) -> None:
    """While an awaited bot seat's move is on its way (it pauses), the people's moves start
    no check of the session (no task, no load); the bot seat still moves once it may."""
    go = asyncio.Event()

    async def sleep(seconds: float) -> None:
        await go.wait()

    robots = Robots(service, delay=2.0, sleep=sleep)
    await robots.start()
    s = await lobby(service, "cafe-carnage")
    await service.join(s.id, FRIEND, "Friend")
    await service.add_robot(s.id, HOST)
    s = await service.start(s.id, HOST)
    robot = next(p for p in s.player_ids if is_robot(p))
    for _ in range(1000):  # the start's check schedules the bot seat's move, which pauses
        if (s.id, robot) in robots._moves and not robots._checks:
            break
        await asyncio.sleep(0.01)
    assert (s.id, robot) in robots._moves and not robots._checks
    assert s.state is not None
    await service.act(s.id, HOST, next(iter(s.game.legal_actions(s.state, HOST))))
    assert not robots._checks  # no check started for the person's move
    go.set()
    await robots.idle()
    s = await service.load(s.id)
    assert s.state is not None and robot not in s.game.active_players(s.state)
    await robots.stop()


class OneMoveAtATime(Robots):
    """Bot players as they were: each move its own transaction."""

    PLAYS_RUNS = False


async def test_a_bot_seats_private_moves_are_one_transaction(service: SessionService) -> None:
    """A bot seat's order in Café Carnage (picks and a ballot nobody else sees, then Confirm,
    which all see) is one transaction and one change, each move its own log entry in order,
    the game replaying to the stored state; and the bot chooses the very moves it chose one
    transaction at a time (the same game, seed and seat)."""
    played: dict[bool, list[str]] = {}
    for runs, channel in ((True, 7), (False, 8)):
        robots = (Robots if runs else OneMoveAtATime)(service, delay=0)
        await robots.start()
        s = await service.create(
            game_id="cafe-carnage",
            channel_id=channel,
            guild_id=1,
            host_id=HOST,
            host_name="Host",
            seed=5,
        )
        await service.join(s.id, FRIEND, "Friend")
        await service.add_robot(s.id, HOST)
        changes: list[Change] = []
        service.subscribe(
            lambda c, sid=s.id, seen=changes: seen.append(c) if c.session_id == sid else None
        )
        s = await service.start(s.id, HOST)
        started = s.version
        await robots.idle()
        await robots.stop()
        s = await service.load(s.id)
        assert s.state is not None and "bot-1" not in s.game.active_players(s.state)
        moves = [a.action for a in await service.store.actions(s.id) if a.player == "bot-1"]
        assert robots.moves_played == len(moves) >= 3
        assert json.loads(moves[-1])["type"] == "confirm"
        assert await service.replay(s.id) == s.state
        if runs:  # the start's change, then the bot's order: one write
            assert s.version == started + 1 and len(changes) == 2
        else:
            assert s.version == started + len(moves)
        played[runs] = moves
    assert played[True] == played[False]


async def test_bot_players_wait_a_human_looking_moment(service: SessionService) -> None:
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    robots = Robots(service, delay=2.0, sleep=sleep)
    await robots.start()
    await started_with_two_robots(service)
    await robots.idle()
    await robots.stop()
    assert len(pauses) >= 2
    assert all(1.2 <= p <= 2.8 for p in pauses)
    assert len(set(pauses)) == len(pauses)  # not a metronome


async def test_bot_seats_get_no_reminders(service: SessionService) -> None:
    s = await lobby(service, "cafe-carnage")
    await service.join(s.id, FRIEND, "Friend")
    await service.add_robot(s.id, HOST)
    s = await service.start(s.id, HOST)
    deadline = await service.deadline(s.id)
    assert deadline is not None
    assert await service.remind(s.id, deadline.key, deadline.due_at)
    targets = {p.target for p in await service.unsent_posts(s.id)}
    assert {f"user:{HOST}", f"user:{FRIEND}"} <= targets
    assert not any(is_robot(t.removeprefix("user:")) for t in targets)


# -- what a bot seat may see -----------------------------------------------------------------------

GAMES_WITH_SECRETS = [
    gid
    for gid, game in REGISTRY.items()
    if any(
        hidden_from(game, s, p)
        for s in [new_game(game, ["1", "bot-1", "bot-2"][: game.max_players], game.Options(), 3)]
        for p in s.players
    )
]


def test_some_games_have_secrets_to_keep() -> None:
    assert {"cafe-carnage", "monster-cafe", "breakfast-vs-aliens"} <= set(GAMES_WITH_SECRETS)


def states_of_random_play(game: Game[Any, Any], seed: int, every: int) -> list[GameState]:
    """Every ``every``-th state of a game its own strategy plays (bots and one person)."""
    players = ["1", "bot-1", "bot-2", "bot-3"][: max(game.min_players, min(3, game.max_players))]
    state = new_game(game, players, game.Options(), seed)
    rng = Rng(seed=seed)
    out: list[GameState] = []
    for step in range(2000):
        if game.outcome(state) is not None:
            break
        player = rng.choice(sorted(game.active_players(state)))
        if step % every == 0:
            out.append(state)
        action = decide(game, state, player, seed=step)
        state = apply(game, state, player, action)
    return out


def _swap(value: Any, a: str, b: str) -> Any:
    if isinstance(value, str):
        return b if value == a else a if value == b else value
    if isinstance(value, list):
        return [_swap(v, a, b) for v in value]
    if isinstance(value, dict):
        return {_swap(k, a, b): _swap(v, a, b) for k, v in value.items()}
    return value


def others_secrets_changed(
    game: Game[Any, Any], state: GameState, player: str, rng: Rng, swaps: int = 6
) -> GameState | None:
    """A valid state that differs from ``state`` only in what ``player`` may not see: hidden
    cards of the same kind swapped between places (others' hands, the decks), kept only when
    the game's invariants still hold and ``player``'s view, panel and the table are unchanged."""
    hidden = sorted(hidden_from(game, state, player))
    if len(hidden) < 2:
        return None
    kinds: dict[str, list[str]] = {}
    for item in hidden:
        kinds.setdefault(re.sub(r"\d+", "#", item), []).append(item)
    # Cards of one kind share their id's shape ("D05", "D12"); ids of no common shape (two VIP
    # cards) may be swapped with each other: the game's invariants refuse what makes no sense.
    pools = [ids for ids in kinds.values() if len(ids) > 1] or [hidden]
    seen = (
        game.view(state, player).model_dump_json(),
        game.panel(state, player).model_dump_json(),
        json.dumps([p.model_dump(mode="json") for p in game.table(state)]),
    )
    changed, done = state, 0
    for _ in range(swaps * 6):
        a, b = rng.sample(rng.choice(pools), 2)
        data = _swap(changed.model_dump(mode="json", round_trip=True), a, b)
        try:
            candidate = type(state).model_validate(data)
            game.check_invariants(candidate)
        except (AssertionError, ValueError):
            continue
        same = (
            game.view(candidate, player).model_dump_json(),
            game.panel(candidate, player).model_dump_json(),
            json.dumps([p.model_dump(mode="json") for p in game.table(candidate)]),
        )
        if same != seen or candidate in (changed, state):
            continue
        changed, done = candidate, done + 1
        if done == swaps:
            break
    return changed if changed != state else None


def peeking(game: Game[Any, Any]) -> Any:
    """A cheating strategy: its move depends on everything in the state it is given."""

    def choose(state: GameState, player: str, rng: Rng) -> BaseModel:
        moves = list(game.legal_actions(state, player))
        everything = state.model_dump_json(exclude={"rng"})
        return moves[int(hashlib.sha256(everything.encode()).hexdigest(), 16) % len(moves)]

    return choose


@pytest.mark.heavy
@pytest.mark.parametrize("game_id", GAMES_WITH_SECRETS)
def test_a_bot_decides_from_its_own_view_only(game_id: str) -> None:
    """A bot's choice never changes when only other players' secrets (or the decks) change;
    the game's own strategy decides on the seat's view exactly as on the whole state (so
    hiding costs it nothing); and a strategy that peeks is blinded by the seat view."""
    game = REGISTRY[game_id]
    rng = Rng(seed=11)
    compared = peeks_caught = 0
    for seed in (1, 2):
        for state in states_of_random_play(game, seed, every=4):
            player = rng.choice(sorted(game.active_players(state)))
            _, strategy = strategy_for(game, player)
            chosen = decide(game, state, player, seed=9)
            assert chosen == strategy(state, player, Rng(seed=9)), (game_id, player)
            other = others_secrets_changed(game, state, player, rng)
            if other is None:
                continue
            compared += 1
            assert decide(game, other, player, seed=9) == chosen, (game_id, player)
            assert as_seen_by(game, other, player, 9) == as_seen_by(game, state, player, 9)
            cheat = peeking(game)
            blind = cheat(as_seen_by(game, state, player, 9), player, Rng(seed=9))
            assert blind == cheat(as_seen_by(game, other, player, 9), player, Rng(seed=9))
            if cheat(state, player, Rng(seed=9)) != cheat(other, player, Rng(seed=9)):
                peeks_caught += 1
    assert compared >= 5, f"{game_id}: too few states with others' secrets to change"
    assert peeks_caught > 0, "the check never saw a peeking strategy's move change"


def test_the_seat_view_hides_others_secrets_and_keeps_ones_own() -> None:
    game = REGISTRY["cafe-carnage"]
    state = new_game(game, ["1", "bot-1", "bot-2"], game.Options(), 4)
    seen = as_seen_by(game, state, "bot-1", seed=1).model_dump_json()
    for secret in game.secrets(state, "bot-1"):
        assert f'"{secret}"' in seen
    for other in ("1", "bot-2", None):
        for secret in game.secrets(state, other):
            assert f'"{secret}"' not in seen
    assert as_seen_by(game, state, "bot-1", seed=1).rng != state.rng  # no peeking at the future


async def test_a_robot_that_is_stopped_plays_no_more(service: SessionService) -> None:
    robots = Robots(service, delay=0.05)
    await robots.start()
    await started_with_two_robots(service)
    await robots.stop()
    await asyncio.sleep(0.15)
    assert robots.moves_played == 0


@pytest.mark.parametrize("failure", ["raises", "illegal"])
async def test_a_failing_strategy_never_stalls_the_table(
    service: SessionService,
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
    expect_errors: Callable[..., None],
) -> None:
    """A strategy that raises or picks a move the rules refuse: the bot plays the rules'
    default move instead, as for a player whose clock ran out (a strategy that raises is our
    bug: logged as an ERROR)."""
    if failure == "raises":
        expect_errors(r"bot\.core\.robots ERROR: the strategy of bot player bot-\d failed")

    def broken(state: Any, player: str, rng: Rng) -> BaseModel:
        if failure == "raises":
            raise KeyError("?1")
        return REGISTRY["monster-cafe"].parse_action({"type": "draw"}).model_copy()

    monkeypatch.setattr("bot.core.robots.strategy_for", lambda game, uid: ("broken", broken))
    robots = Robots(service, delay=0.0)
    await robots.start()
    s = await started_with_two_robots(service)
    await robots.idle()
    await robots.stop()
    s = await service.load(s.id)
    assert s.state is not None
    assert s.game.active_players(s.state) == {HOST}  # the bots' defaults were played
    assert robots.moves_played >= 2
