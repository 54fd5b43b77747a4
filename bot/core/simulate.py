"""`python -m bot simulate`: full games with random (or scripted) players, through the real
engine, the real session service and a temporary SQLite file. Every finished game is replayed
from its seed and action log and compared with the stored state."""

from __future__ import annotations

import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core.errors import UserError
from bot.core.sessions import SessionService
from bot.core.store import SessionStatus
from bot.core.store.sqlite import SqliteStore
from games import REGISTRY
from games.engine import Game, Strategy
from games.rng import Rng

MAX_ACTIONS_PER_GAME = 20_000


@dataclass
class Summary:
    game_id: str
    strategy: str
    players: int
    games: int = 0
    finished: int = 0
    actions: int = 0
    timeouts: int = 0
    undos: int = 0  # moves taken back (asked at random, agreed by the others)
    errors: int = 0
    replay_mismatches: int = 0
    wins: int = 0  # cooperative games: games the table won
    cooperative: bool = False
    seconds: float = 0.0
    first_error: str = ""
    scores: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.errors == 0 and self.replay_mismatches == 0 and self.finished == self.games

    def line(self) -> str:
        rate = self.games / self.seconds if self.seconds else 0.0
        text = (
            f"{self.game_id} ({self.players}p, {self.strategy}): {self.games} games, "
            f"{self.finished} finished, {self.actions} actions ({self.timeouts} timeouts, "
            f"{self.undos} taken back), "
            f"{self.errors} errors, {self.replay_mismatches} replay mismatches, {rate:.1f} games/s"
        )
        if self.cooperative and self.games:
            text += f", table won {100 * self.wins / self.games:.0f}%"
        return text


def random_strategy(game: Game[Any, Any]) -> Strategy:
    def choose(state: Any, player: str, rng: Rng) -> Any:
        return rng.choice(list(game.legal_actions(state, player)))

    return choose


def player_counts(game: Game[Any, Any], requested: int | None) -> list[int]:
    if requested is None:
        return list(range(game.min_players, game.max_players + 1))
    return [min(max(requested, game.min_players), game.max_players)]


async def simulate_game_type(
    service: SessionService,
    game: Game[Any, Any],
    *,
    players: int,
    games: int,
    seed: int,
    strategy_name: str = "random",
    timeout_rate: float = 0.03,
    undo_rate: float = 0.0,
) -> Summary:
    strategies = {"random": random_strategy(game), **game.strategies()}
    strategy = strategies[strategy_name]
    summary = Summary(game.id, strategy_name, players, cooperative=False)
    started = time.perf_counter()
    channel_base = abs(hash((game.id, players, strategy_name, seed))) % 10**9 * 10**5
    for number in range(games):
        summary.games += 1
        rng = Rng(seed=seed * 1_000_003 + number)
        try:
            await _play_one(
                service,
                game,
                players,
                rng,
                strategy,
                summary,
                channel_base + number,
                timeout_rate,
                undo_rate,
            )
        except Exception as exc:  # a bug: count it, keep going, show the first one
            summary.errors += 1
            if not summary.first_error:
                summary.first_error = "".join(traceback.format_exception(exc))
    summary.seconds = time.perf_counter() - started
    return summary


async def _play_one(
    service: SessionService,
    game: Game[Any, Any],
    players: int,
    rng: Rng,
    strategy: Strategy,
    summary: Summary,
    channel_id: int,
    timeout_rate: float,
    undo_rate: float,
) -> None:
    ids = [f"p{i + 1}" for i in range(players)]
    session = await service.create(
        game_id=game.id,
        channel_id=channel_id,
        guild_id=1,
        host_id=ids[0],
        host_name="P1",
        seed=rng.randint(0, 2**62),
    )
    for i, pid in enumerate(ids[1:], start=2):
        await service.join(session.id, pid, f"P{i}")
    session = await service.start(session.id, ids[0])
    for _ in range(MAX_ACTIONS_PER_GAME):
        state = session.state
        assert state is not None
        if session.status is not SessionStatus.ACTIVE:
            break
        clock = game.clock(state)
        if clock is not None and rng.randint(1, 1000) <= timeout_rate * 1000:
            result = await service.fire_deadline(session.id, clock.key)
            if result is not None:
                summary.timeouts += len(result.applied)
                summary.actions += len(result.applied)
                session = result.session
                continue
        active = sorted(game.active_players(state))
        if not active:
            raise AssertionError(f"game {game.id} waits for nobody but is not over")
        player = rng.choice(active)
        action = strategy(state, player, rng)
        session = (await service.act(session.id, player, action)).session
        summary.actions += 1
        game.check_invariants(session.state)
        asks = session.status is SessionStatus.ACTIVE and rng.randint(1, 1000) <= undo_rate * 1000
        if asks and await _take_back(service, session.id, player):
            summary.undos += 1
            session = await service.load(session.id)
            game.check_invariants(session.state)
    outcome = session.outcome()
    if outcome is None:
        raise AssertionError(f"game did not end within {MAX_ACTIONS_PER_GAME} actions")
    summary.finished += 1
    if outcome.cooperative and outcome.winners:
        summary.wins += 1
    summary.cooperative = summary.cooperative or outcome.cooperative
    replayed = await service.replay(session.id)
    if replayed != session.state:
        summary.replay_mismatches += 1


async def _take_back(service: SessionService, session_id: int, player: str) -> bool:
    """``player`` asks to take back their last move and everyone else agrees; whether it was
    taken back (many moves may not be: they revealed something)."""
    try:
        answer = await service.ask_undo(session_id, player)
    except UserError:
        return False
    if answer.undone:
        return True
    assert answer.seq is not None
    s = await service.load(session_id)
    for other in [p for p in s.player_ids if p != player]:
        answer = await service.answer_undo(session_id, other, answer.seq, agree=True)
        if answer.settled:
            return answer.undone
    return False


async def run_simulation(
    game_ids: list[str],
    *,
    players: int | None,
    games: int,
    seed: int,
    strategy: str,
    database: Path | None = None,
) -> list[Summary]:
    with tempfile.TemporaryDirectory(prefix="cafebot-sim-") as tmp:
        path = database or Path(tmp) / "simulate.sqlite3"
        # NORMAL: the simulator's file is thrown away; FULL would only measure the disk.
        store = await SqliteStore.open(path, synchronous="NORMAL")
        try:
            service = SessionService(store)
            summaries: list[Summary] = []
            for game_id in game_ids:
                game = REGISTRY[game_id]
                names = _strategy_names(game, strategy)
                for count in player_counts(game, players):
                    for name in names:
                        summaries.append(
                            await simulate_game_type(
                                service,
                                game,
                                players=count,
                                games=games,
                                seed=seed,
                                strategy_name=name,
                                # Random play fuzzes deadlines too; a named strategy measures
                                # how well the game can be played: nobody is timed out early.
                                timeout_rate=0.03 if name == "random" else 0.0,
                                # Random play asks for undos too (each replayed exactly).
                                undo_rate=0.05 if name == "random" else 0.0,
                            )
                        )
            return summaries
        finally:
            await store.close()


def _strategy_names(game: Game[Any, Any], requested: str) -> list[str]:
    available = ["random", *game.strategies()]
    if requested == "all":
        return available
    if requested in available:
        return [requested]
    return ["random"]
