"""The one contract every game satisfies, and the central legality check.

A game is pure: state (pydantic) + legal actions + apply + per-player views. No discord, no
aiosqlite, no asyncio, no clock and no global randomness in ``games/``.

Front ends call :func:`apply` (never ``Game.apply_action`` directly): it refuses moves after the
end, by players who are not seated or not awaited, and moves that are not legal, with a message a
player understands, and it never mutates the state it was given.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from games.presentation import Announcement, Panel
from games.presentation import player as player_token
from games.rng import Rng

PlayerId = str


class IllegalAction(Exception):
    """A move the rules do not allow; ``message`` is shown to the player as is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GameState(BaseModel):
    """Fields every game state has. Games subclass it and add their own."""

    players: list[PlayerId]
    rng: Rng
    # Public events worth a new channel message, oldest first; front ends post the ones they have
    # not posted yet (they remember how many they have posted).
    announcements: list[Announcement] = Field(default_factory=list)


class Outcome(BaseModel):
    """The result of a finished game."""

    scores: dict[PlayerId, int]
    winners: list[PlayerId]  # several on a shared win; empty when a cooperative table lost
    cooperative: bool = False
    summary: list[str] = Field(default_factory=list)  # how the result came about, in words


class Clock(BaseModel):
    """A timed step. Front ends arm one timer per ``key``; at its deadline they play ``on_timeout``
    for every player still active while the key is unchanged."""

    key: str
    seconds: float
    remind: bool = True  # send a reminder halfway


S = TypeVar("S", bound=GameState)
A = TypeVar("A", bound=BaseModel)

# A strategy picks an action for a player; used by `simulate` and property tests.
Strategy = Callable[[Any, PlayerId, Rng], BaseModel]


class Game(ABC, Generic[S, A]):
    """Implemented once per game package and registered in ``games/__init__.py``."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    summary: ClassVar[str]  # one line for menus
    help_text: ClassVar[str]  # the rules in our own concise words (markdown), incl. our decisions
    has_secrets: ClassVar[bool] = False  # players have a private view worth a DM
    # When the bot was down during a timed step, give the lost time back (else overdue fires).
    refund_downtime: ClassVar[bool] = False
    # The game announces default moves itself (else the front end says who was auto-played).
    announces_timeouts: ClassVar[bool] = False

    Options: ClassVar[type[BaseModel]]
    State: ClassVar[type[GameState]]
    action_adapter: ClassVar[TypeAdapter[Any]]  # validates an action from JSON/dict

    # -- rules -----------------------------------------------------------------------------------
    @abstractmethod
    def setup(self, players: list[PlayerId], options: BaseModel, seed: int) -> S: ...

    @abstractmethod
    def active_players(self, state: S) -> set[PlayerId]:
        """Whose input the game is waiting for."""

    @abstractmethod
    def legal_actions(self, state: S, player: PlayerId) -> Sequence[A]:
        """Every legal action of ``player`` now (finite, deterministic order)."""

    def is_legal(self, state: S, player: PlayerId, action: A) -> bool:
        return action in self.legal_actions(state, player)

    def explain_illegal(self, state: S, player: PlayerId, action: A) -> str:
        """Why ``action`` is refused, in a player's words. Override for precise messages."""
        return "That move isn't allowed right now."

    @abstractmethod
    def apply_action(self, state: S, player: PlayerId, action: A) -> S:
        """Apply a legal action to ``state`` (a private copy it may mutate) and return it."""

    @abstractmethod
    def on_timeout(self, state: S, player: PlayerId) -> A:
        """The default move for a player who let the clock run out."""

    def clock(self, state: S) -> Clock | None:
        """The timed step in progress, if any."""
        return None

    @abstractmethod
    def view(self, state: S, viewer: PlayerId | None) -> BaseModel:
        """What ``viewer`` may see (None: the public)."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result, once the game is over."""

    # -- presentation (pure, Discord-free) -------------------------------------------------------
    @abstractmethod
    def panel(self, state: S, viewer: PlayerId | None) -> Panel:
        """The table (viewer None) or one player's private panel, with controls that are legal."""

    # -- checks used by the test suite and the simulator -----------------------------------------
    def check_invariants(self, state: S) -> None:
        """Raise AssertionError when conservation or another invariant is broken."""

    def secrets(self, state: S, player: PlayerId) -> set[str]:
        """Strings that only ``player`` may see now (card ids, ...): they must not occur in any
        other player's view or panel, nor in the public view, panel or announcements."""
        return set()

    def strategies(self) -> dict[str, Strategy]:
        """Named players for `simulate`; "random" is always available."""
        return {}

    # -- helpers ---------------------------------------------------------------------------------
    def parse_options(self, raw: dict[str, Any]) -> BaseModel:
        try:
            return self.Options.model_validate(raw)
        except ValidationError as exc:
            raise IllegalAction(_friendly(exc)) from None

    def parse_action(self, raw: Any) -> A:
        try:
            action: A = self.action_adapter.validate_python(raw)
        except ValidationError:
            raise IllegalAction("That isn't a move this game knows.") from None
        return action

    def load_state(self, raw: str) -> S:
        state: S = self.State.model_validate_json(raw)  # type: ignore[assignment]
        return state


def _friendly(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "options"
        parts.append(f"{where}: {err['msg']}")
    return "Invalid option — " + "; ".join(parts)


def apply(game: Game[S, A], state: S, player: PlayerId, action: A) -> S:
    """The central legality check, then the game's own ``apply_action`` on a deep copy."""
    if game.outcome(state) is not None:
        raise IllegalAction("This game is over.")
    if player not in state.players:
        raise IllegalAction("You're not seated at this table.")
    active = game.active_players(state)
    if player not in active:
        waiting = ", ".join(player_token(p) for p in state.players if p in active)
        raise IllegalAction(f"It's not your move right now — the table is waiting for {waiting}.")
    if not game.is_legal(state, player, action):
        raise IllegalAction(game.explain_illegal(state, player, action))
    # A validated round trip through pydantic-core: a deep copy ~5x faster than copy.deepcopy.
    private_copy = type(state).model_validate(state.model_dump(round_trip=True))
    return game.apply_action(private_copy, player, action)


def clock_key(game: Game[S, A], state: S) -> str | None:
    """The key of the timed step in progress, or None when nothing is timed."""
    clock = game.clock(state)
    return clock.key if clock is not None else None


def play_timeout(
    game: Game[S, A], state: S, player: PlayerId, limit: int = 50
) -> tuple[S, list[A]]:
    """Play ``on_timeout`` for ``player`` until they are no longer awaited in this timed step."""
    key = clock_key(game, state)
    played: list[A] = []
    while (
        len(played) < limit
        and game.outcome(state) is None
        and player in game.active_players(state)
        and clock_key(game, state) == key
    ):
        action = game.on_timeout(state, player)
        state = apply(game, state, player, action)
        played.append(action)
    return state, played
