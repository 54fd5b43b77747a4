"""Monster Café: the Game object, wiring rules, scoring, views and strategies together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from games.engine import (
    Clock,
    Game,
    Outcome,
    PlayerId,
    PrivatePanel,
    Strategy,
    TurnStyle,
    Undo,
)
from games.kit import new_log_lines
from games.monster_cafe import picture, present, rules, scoring
from games.monster_cafe.catalogue import MONSTER_KIND, TABLE_MEAL, monster_label, table_label
from games.monster_cafe.help import HELP_TEXT
from games.monster_cafe.invariants import check_invariants
from games.monster_cafe.state import (
    CancelClear,
    Clear,
    MonsterCafeOptions,
    MonsterCafeState,
    Move,
    Seat,
    Sorbet,
    action_adapter,
)
from games.monster_cafe.strategies import greedy, timeout_move
from games.presentation import Panel


class MonsterCafe(Game[MonsterCafeState, Move]):
    id: ClassVar[str] = "monster-cafe"
    title: ClassVar[str] = "Monster Café"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    summary: ClassVar[str] = (
        "Seat hungry monsters at gross tables, clear the best one, and dodge the lemon sorbet."
    )
    help_text: ClassVar[str] = HELP_TEXT
    turn_style: ClassVar[TurnStyle] = TurnStyle.TURNS
    private_panel: ClassVar[PrivatePanel] = PrivatePanel.NEVER
    timer_option: ClassVar[str | None] = "turn_timeout"
    announces_timeouts: ClassVar[bool] = True  # "⏰ Time's up" with the moves played, once
    copy_on_write: ClassVar[bool] = True

    Options: ClassVar[type[BaseModel]] = MonsterCafeOptions
    State: ClassVar[type[MonsterCafeState]] = MonsterCafeState
    action_adapter: ClassVar[TypeAdapter[Any]] = action_adapter

    # -- rules -----------------------------------------------------------------------------------
    def setup(self, players: list[PlayerId], options: BaseModel, seed: int) -> MonsterCafeState:
        opts = (
            options
            if isinstance(options, MonsterCafeOptions)
            else MonsterCafeOptions.model_validate(options.model_dump())
        )
        return rules.setup(players, opts, seed)

    def active_players(self, state: MonsterCafeState) -> set[PlayerId]:
        return set() if state.over or state.current is None else {state.current}

    def legal_actions(self, state: MonsterCafeState, player: PlayerId) -> Sequence[Move]:
        return rules.legal_actions(state, player)

    def is_legal(self, state: MonsterCafeState, player: PlayerId, action: Move) -> bool:
        return rules.is_legal(state, player, action)

    def explain_illegal(self, state: MonsterCafeState, player: PlayerId, action: Move) -> str:
        return rules.explain_illegal(state, player, action)

    def apply_action(
        self, state: MonsterCafeState, player: PlayerId, action: Move
    ) -> MonsterCafeState:
        return rules.apply_move(state, player, action)

    def clock(self, state: MonsterCafeState) -> Clock | None:
        if state.over:
            return None
        return Clock(key=f"turn-{state.turn}", seconds=state.turn_timeout)

    def on_timeout(self, state: MonsterCafeState, player: PlayerId) -> Move:
        return timeout_move(state, player).model_copy(update={"auto": True})

    def outcome(self, state: MonsterCafeState) -> Outcome | None:
        return scoring.outcome(state) if state.over else None

    # -- presentation ----------------------------------------------------------------------------
    def news(self, before: MonsterCafeState, after: MonsterCafeState) -> list[str]:
        return new_log_lines(before.log, after.log)

    def view(self, state: MonsterCafeState, viewer: PlayerId | None) -> BaseModel:
        return present.public_view(state)

    def panel(self, state: MonsterCafeState, viewer: PlayerId | None) -> Panel:
        return present.table_panel(state) if viewer is None else present.private_panel()

    def views_touched(
        self, before: MonsterCafeState, after: MonsterCafeState, player: PlayerId
    ) -> set[PlayerId | None] | None:
        return {None}  # everything is on the table; private panels never change

    def undo_policy(
        self, before: MonsterCafeState, after: MonsterCafeState, player: PlayerId, action: Move
    ) -> Undo:
        if after.rng.counter != before.rng.counter or after.round != before.round or after.over:
            return Undo.NEVER  # drew from the RNG, or ended a round: never (a safety net)
        if isinstance(action, Clear | CancelClear):
            return Undo.FREE  # asking to clear (or not) changed nothing yet
        if isinstance(action, Seat | Sorbet):
            return Undo.CONSENT  # a choice about a card already revealed; the others may mind
        return Undo.NEVER  # a draw reveals a card; a confirmed clear ends your round

    # -- checks and players ----------------------------------------------------------------------
    def check_invariants(self, state: MonsterCafeState) -> None:
        check_invariants(state)

    def draw(self, spec: dict[str, Any]) -> bytes:
        return picture.draw(spec)

    def secrets(self, state: MonsterCafeState, player: PlayerId | None) -> set[str]:
        # The decks are face down: no view names a card in them (only how many are left).
        return set(state.deck) | set(state.table_deck) if player is None else set()

    def secret_words(self, secret: str) -> set[str]:
        # A face-down card: monsters by their kind, tables by their meal.
        if secret in MONSTER_KIND:
            return {monster_label(secret)}
        return {table_label(secret)} if secret in TABLE_MEAL else set()

    def strategies(self) -> dict[str, Strategy]:
        return {"greedy": greedy, "timeout": lambda s, p, _rng: timeout_move(s, p)}


GAME = MonsterCafe()
