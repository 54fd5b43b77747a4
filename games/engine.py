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
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from games.presentation import Announcement, Panel
from games.presentation import player as player_token
from games.rng import Rng

PlayerId = str


class TurnStyle(StrEnum):
    """How players take their moves; front ends word waiting and pings by it."""

    TURNS = "turns"  # one player (or a few, one after another) at a time, in public
    SIMULTANEOUS = "simultaneous"  # everyone awaited works at once (secret picks, own boards)


class PrivatePanel(StrEnum):
    """Whether players have a private panel (``panel(state, player)``), and how it reaches them."""

    NEVER = "never"  # everything is on the table
    ON_REQUEST = "on_request"  # shown privately when asked (/game hand) or when a move needs it
    DM = "dm"  # pushed by direct message whenever it changes (hands, ballots, own boards)


ALL_VIEWS = None  # views_touched(): any view may have changed


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
    # For the end-of-game chart: the running score after each round, oldest first (one dict of
    # player → score per round; a cooperative game may chart the table as the one key "table").
    progress: list[dict[str, int]] = Field(default_factory=list)
    # A cooperative game's record of each player: the highest level they cleared (what its
    # board ranks instead of a rating); empty when the game has no levels.
    cleared: dict[PlayerId, int] = Field(default_factory=dict)


class Undo(StrEnum):
    """Whether a move may be taken back (see ``Game.undo_policy``)."""

    NEVER = "never"  # it revealed something (a card drawn, ballots shown) or ended a step
    CONSENT = "consent"  # the others are asked, and it is undone when nobody objects
    FREE = "free"  # it affects nobody else yet (your own board before Done): no consent


class Clock(BaseModel):
    """A timed step. Front ends arm one timer per ``key``; at its deadline they play ``on_timeout``
    for every player still active while the key is unchanged."""

    key: str
    seconds: float
    remind: bool = True  # send a reminder halfway
    # A step the whole table waits for (a level pick): the host may end it early, and the
    # absent players' default moves are played, so one absent player never stalls the table.
    host_may_skip: bool = False


S = TypeVar("S", bound=GameState)
A = TypeVar("A", bound=BaseModel)

# A strategy picks an action for a player; used by `simulate` and property tests.
Strategy = Callable[[Any, PlayerId, Rng], BaseModel]


@dataclass(frozen=True)
class SearchHints:
    """What a game tells the searching bot (``games/search.py``) to spend its budget well; every
    field is optional (None: the search's general way).

    - ``plans(view, player)``: the moves to compare, each a sequence of the player's own moves
      played one after another (a whole order, not its first pick); the bot plays the best
      one's moves in a row while nobody else sees them (each checked again as it comes), the
      first of them at least. Each plan must start with a legal move.
    - ``value(start, state, player)``: stop a simulated game at ``state`` (``start`` is the
      view the search began from) and score it for ``player`` in [0, 1]; None: play on.
    - ``others``: who plays the other seats in simulated games (else the rollout player);
      ``own``: who plays the searching seat's later moves there (else the rollout player).
    - ``paired``: compare the plans round by round, each in the same sampled world with the same
      luck to come (where luck decides more than the move, the difference between two moves
      then shows in far fewer simulations); else each simulation samples its own world and
      UCB1 picks the plan.
    """

    plans: Callable[[Any, PlayerId], Sequence[Sequence[BaseModel]]] | None = None
    value: Callable[[Any, Any, PlayerId], float | None] | None = None
    others: Strategy | None = None
    own: Strategy | None = None
    paired: bool = False


class Game(ABC, Generic[S, A]):
    """Implemented once per game package and registered in ``games/__init__.py``."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    summary: ClassVar[str]  # one line for menus
    help_text: ClassVar[str]  # the rules in our own concise words (markdown), incl. our decisions
    # The game's shape: front ends read these instead of guessing.
    turn_style: ClassVar[TurnStyle] = TurnStyle.TURNS
    private_panel: ClassVar[PrivatePanel] = PrivatePanel.NEVER
    # The players win or lose together: no rating; its board ranks the highest level cleared.
    cooperative: ClassVar[bool] = False
    timer_option: ClassVar[str | None] = None  # the Options field (seconds) of the step timer
    # When the bot was down during a timed step, give the lost time back (else overdue fires).
    refund_downtime: ClassVar[bool] = False
    # The game announces default moves itself (else the front end says who was auto-played).
    announces_timeouts: ClassVar[bool] = False
    # apply_action gets the caller's state and must not mutate it (it builds the new state and
    # shares what it does not change); otherwise it gets a private deep copy it may mutate.
    copy_on_write: ClassVar[bool] = False

    Options: ClassVar[type[BaseModel]]
    State: ClassVar[type[GameState]]
    action_adapter: ClassVar[TypeAdapter[Any]]  # validates an action from JSON/dict

    # -- rules -----------------------------------------------------------------------------------
    @abstractmethod
    def setup(self, players: list[PlayerId], options: BaseModel, seed: int) -> S:
        """The first state. Front ends call :func:`new_game`, which checks the players first."""

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
        """Apply a legal action and return the new state. ``state`` is a private copy it may
        mutate, unless the game is ``copy_on_write`` (then it must leave ``state`` as it is)."""

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

    def table(self, state: S) -> list[Panel]:
        """The public table as one message of up to 10 panels (embeds); their controls are laid
        out together under them. Override when one panel cannot hold the table."""
        return [self.panel(state, None)]

    def private_decision(self, state: S, player: PlayerId) -> bool:
        """For ``ON_REQUEST`` games: ``player`` has a private decision now (a peek at the deck),
        so their private panel is shown to them at once, privately."""
        return False

    def views_touched(self, before: S, after: S, player: PlayerId) -> set[PlayerId | None] | None:
        """Which views ``player``'s move from ``before`` to ``after`` can have changed: private
        panels by player id, the table as None; ``ALL_VIEWS`` (None) when any may have. Front
        ends render only these. Overrides must be safe: when unsure, return ALL_VIEWS."""
        return ALL_VIEWS

    def undo_policy(self, before: S, after: S, player: PlayerId, action: A) -> Undo:
        """May ``player`` take back this move (``before`` → ``after``) while nothing happened
        since? Front ends undo by replaying the log without it, so a move that drew from the
        state's RNG or revealed anything must be NEVER. The safe default is NEVER."""
        return Undo.NEVER

    def news(self, before: S, after: S) -> list[str]:
        """The public lines a move (``before`` → ``after``) adds to the game's log: what a player
        would want to read back in the game's thread (who did what, in public terms). Games
        whose announcements already tell each move keep the default: none."""
        return []

    def draw(self, spec: dict[str, Any]) -> bytes:
        """A PNG of a :class:`~games.presentation.Picture`'s ``spec`` (games with pictures)."""
        raise NotImplementedError(f"{self.id} draws no pictures")

    # -- checks used by the test suite and the simulator -----------------------------------------
    def check_invariants(self, state: S) -> None:
        """Raise AssertionError when conservation or another invariant is broken."""

    def secrets(self, state: S, player: PlayerId | None) -> set[str]:
        """Strings that only ``player`` may see now (card ids, ...): they must not occur in any
        other player's view or panel, nor in the public view, table or announcements. With
        ``player`` None: strings nobody may see now (a face-down deck)."""
        return set()

    def secret_words(self, secret: str) -> set[str]:
        """How texts write ``secret`` (a string ``secrets`` may return: a card id's name, a
        tile's face; none for any other string). Nobody the secret is hidden from may read these
        words, unless they may see them elsewhere too (another copy of the card on the table).
        Tests read it; the default: none beyond the string itself."""
        return set()

    def private_move(self, before: S, player: PlayerId, action: A) -> str:
        """A move of ``player``'s that the table may not see, as the table may hear of it
        ("their order"): what a public notice says instead of the move's own label."""
        return "their move"

    def strategies(self) -> dict[str, Strategy]:
        """Named players for `simulate`; "random" is always available."""
        return {}

    # -- for the searching bot (games/search.py) -------------------------------------------------
    def determinize(self, seen: S, player: PlayerId, rng: Rng) -> S | None:
        """``seen`` (``player``'s view: hidden strings are tokens ``"?N"``) with its tokens
        replaced by hidden strings drawn with ``rng``, consistent with what ``player`` saw.
        None: the generic determinizer (distinct strings from the game's secrets) will do."""
        return None

    def search_move(
        self,
        seen: S,
        player: PlayerId,
        *,
        simulations: int,
        stop: Callable[[], bool] | None = None,
    ) -> tuple[A, int] | None:
        """A searching bot's move from ``seen`` (``player``'s view) by the game's own search,
        and how much of ``simulations`` it used (``stop`` is polled as the budget runs); None:
        the generic search. Asked only where :meth:`searchable` says yes."""
        return None

    def searchable(self, state: S, player: PlayerId) -> bool:
        """Whether a searching bot should choose ``player``'s move now. False for a choice that
        is a preference rather than a play (a difficulty level): its normal player makes it."""
        return True

    def search_hints(self) -> SearchHints:
        """How a searching bot should compare moves and cut its simulated games short."""
        return SearchHints()

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


def new_game(game: Game[S, A], players: list[PlayerId], options: BaseModel, seed: int) -> S:
    """The one way to start a game: the seat count and seats are checked here, for every game."""
    n = len(players)
    if not game.min_players <= n <= game.max_players:
        seated = f"{n} {'is' if n == 1 else 'are'} seated"
        if game.min_players == game.max_players:
            raise IllegalAction(f"{game.title} needs {game.min_players} players; {seated}.")
        raise IllegalAction(
            f"{game.title} needs {game.min_players}–{game.max_players} players; {seated}."
        )
    if len(set(players)) != n:
        raise IllegalAction("Each player can only sit at the table once.")
    return game.setup(list(players), options, seed)


def apply(game: Game[S, A], state: S, player: PlayerId, action: A) -> S:
    """The central legality check, then the game's own ``apply_action`` (on a deep copy unless
    the game is copy-on-write)."""
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
    if game.copy_on_write:
        return game.apply_action(state, player, action)
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
