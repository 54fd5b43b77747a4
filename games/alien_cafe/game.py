"""The Alien Café game object: the engine contract wired to the package's modules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from games.alien_cafe import changes, legality, picture, rules, scoring
from games.alien_cafe.actions import DONE, LEVELS, Action, action_adapter
from games.alien_cafe.catalogue import TILES, tile
from games.alien_cafe.help import HELP_TEXT
from games.alien_cafe.invariants import check_invariants
from games.alien_cafe.planner import hard_action
from games.alien_cafe.present import private_panel, table_panel
from games.alien_cafe.state import AlienCafeOptions, AlienCafeState
from games.alien_cafe.strategies import strategies
from games.alien_cafe.views import private_view, public_view
from games.engine import Clock, Game, Outcome, PrivatePanel, Strategy, TurnStyle, Undo
from games.presentation import Panel


class AlienCafe(Game[AlienCafeState, Action]):
    id: ClassVar[str] = "alien-cafe"
    title: ClassVar[str] = "Alien Café"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 4
    summary: ClassVar[str] = (
        "Cooperative real-time tile placing: seat picky aliens next to their orders on a 4×4 tray."
    )
    help_text: ClassVar[str] = HELP_TEXT
    turn_style: ClassVar[TurnStyle] = TurnStyle.SIMULTANEOUS
    private_panel: ClassVar[PrivatePanel] = PrivatePanel.DM
    cooperative: ClassVar[bool] = True
    timer_option: ClassVar[str | None] = "round_time"
    refund_downtime: ClassVar[bool] = True
    copy_on_write: ClassVar[bool] = True
    Options: ClassVar[type[BaseModel]] = AlienCafeOptions
    State: ClassVar[type[AlienCafeState]] = AlienCafeState
    action_adapter: ClassVar[TypeAdapter[Any]] = action_adapter

    def setup(self, players: list[str], options: BaseModel, seed: int) -> AlienCafeState:
        opts = AlienCafeOptions.model_validate(options.model_dump())
        return rules.setup(players, opts, seed)

    def active_players(self, state: AlienCafeState) -> set[str]:
        return legality.active_players(state)

    def legal_actions(self, state: AlienCafeState, player: str) -> Sequence[Action]:
        return legality.legal_actions(state, player)

    def is_legal(self, state: AlienCafeState, player: str, action: Action) -> bool:
        # problem() refuses inactive players itself (ready in the levels, done in the service).
        return legality.problem(state, player, action) is None

    def explain_illegal(self, state: AlienCafeState, player: str, action: Action) -> str:
        return legality.problem(state, player, action) or "That move isn't allowed right now."

    def apply_action(self, state: AlienCafeState, player: str, action: Action) -> AlienCafeState:
        return rules.apply_action(state, player, action)

    def on_timeout(self, state: AlienCafeState, player: str) -> Action:
        if state.phase == "levels":
            return LEVELS[state.seats[player].level]
        return DONE

    def clock(self, state: AlienCafeState) -> Clock | None:
        if state.phase == "levels":
            return Clock(
                key=f"levels-{state.round}", seconds=state.options.level_time, host_may_skip=True
            )
        if state.phase == "service":
            # The round timer is the game itself: nobody cuts it short.
            return Clock(key=f"service-{state.round}", seconds=state.options.round_time)
        return None

    def view(self, state: AlienCafeState, viewer: str | None) -> BaseModel:
        if viewer is None or viewer not in state.seats:
            return public_view(state)
        return private_view(state, viewer)

    def outcome(self, state: AlienCafeState) -> Outcome | None:
        return scoring.outcome(state)

    def panel(self, state: AlienCafeState, viewer: str | None) -> Panel:
        if viewer is None:
            return table_panel(state)
        return private_panel(state, viewer)

    def views_touched(
        self, before: AlienCafeState, after: AlienCafeState, player: str
    ) -> set[str | None] | None:
        return changes.views_touched(before, after, player)

    def undo_policy(
        self, before: AlienCafeState, after: AlienCafeState, player: str, action: Action
    ) -> Undo:
        return changes.undo_policy(before, after, player, action)

    def draw(self, spec: dict[str, Any]) -> bytes:
        return picture.draw(spec)

    def secrets(self, state: AlienCafeState, player: str | None) -> set[str]:
        if player is None:
            # The bags and the special piles are face down: the table knows only how many
            # tiles each holds (a seat's view keeps their lengths, as tokens).
            return {*state.red, *state.blue, *(t for pile in state.piles for t in pile)}
        seat = state.seats.get(player)
        if seat is None:
            return set()
        return set(seat.hand) | set(seat.house)

    def secret_words(self, secret: str) -> set[str]:
        if secret not in TILES:
            return set()
        found = tile(secret)
        return {found.label, found.text}

    def private_move(self, before: AlienCafeState, player: str, action: Action) -> str:
        return changes.private_move(action)

    def searchable(self, state: AlienCafeState, player: str) -> bool:
        return state.phase != "levels"  # a seat's level is its preference, not a play

    def search_move(
        self,
        seen: AlienCafeState,
        player: str,
        *,
        simulations: int,
        stop: Callable[[], bool] | None = None,
    ) -> tuple[Action, int] | None:
        # A simulation plays out every remaining round (seconds): the seat's own tray is
        # searched instead (planner.py).
        return hard_action(seen, player, simulations, stop)

    def strategies(self) -> dict[str, Strategy]:
        return strategies()

    def check_invariants(self, state: AlienCafeState) -> None:
        check_invariants(state)
