"""Café Carnage: the Game object, wiring the rules, views and panels together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from games.cafe_carnage import (
    announce,
    deal,
    invariants,
    planning,
    present,
    rules,
    scoring,
    views,
)
from games.cafe_carnage.help import HELP_TEXT
from games.cafe_carnage.state import ACTION_ADAPTER, AutoPlay, CafeAction, CafeOptions, CafeState
from games.cafe_carnage.strategies import STRATEGIES
from games.engine import (
    Clock,
    Game,
    Outcome,
    PlayerId,
    PrivatePanel,
    SearchHints,
    Strategy,
    TurnStyle,
    Undo,
)
from games.presentation import Panel
from games.rng import Rng


class CafeCarnage(Game[CafeState, CafeAction]):
    id: ClassVar[str] = "cafe-carnage"
    title: ClassVar[str] = "Café Carnage"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 8
    summary: ClassVar[str] = (
        "Five dinners out: order secretly, vote to split or pay separately — or run for it. "
        "Most Gourmet Points within $30 wins. (Box: 4–6; 3 and 7–8 are variants.)"
    )
    help_text: ClassVar[str] = HELP_TEXT
    turn_style: ClassVar[TurnStyle] = TurnStyle.SIMULTANEOUS
    private_panel: ClassVar[PrivatePanel] = PrivatePanel.DM
    timer_option: ClassVar[str | None] = "turn_timeout"
    copy_on_write: ClassVar[bool] = True

    Options: ClassVar[type[BaseModel]] = CafeOptions
    State: ClassVar[type[CafeState]] = CafeState
    action_adapter: ClassVar[TypeAdapter[Any]] = ACTION_ADAPTER

    # -- rules -----------------------------------------------------------------------------------
    def setup(self, players: list[PlayerId], options: BaseModel, seed: int) -> CafeState:
        opts = (
            options
            if isinstance(options, CafeOptions)
            else CafeOptions.model_validate(options.model_dump())
        )
        state = deal.new_state(players, opts, seed)
        state.announcements.append(announce.start_announcement(state))
        return state

    def active_players(self, state: CafeState) -> set[PlayerId]:
        return rules.active_players(state)

    def legal_actions(self, state: CafeState, player: PlayerId) -> Sequence[CafeAction]:
        return rules.legal_actions(state, player)

    def is_legal(self, state: CafeState, player: PlayerId, action: CafeAction) -> bool:
        return rules.is_legal(state, player, action)

    def explain_illegal(self, state: CafeState, player: PlayerId, action: CafeAction) -> str:
        return rules.explain_illegal(state, player, action)

    def apply_action(self, state: CafeState, player: PlayerId, action: CafeAction) -> CafeState:
        return rules.apply_action(state, player, action)

    def on_timeout(self, state: CafeState, player: PlayerId) -> CafeAction:
        return AutoPlay()

    def clock(self, state: CafeState) -> Clock | None:
        return rules.clock(state)

    def view(self, state: CafeState, viewer: PlayerId | None) -> BaseModel:
        if viewer is None or viewer not in state.players:
            return views.public_view(state)
        return views.private_view(state, viewer)

    def outcome(self, state: CafeState) -> Outcome | None:
        if not state.over:
            return None
        return scoring.outcome(state, announce.outcome_summary(state))

    # -- presentation ----------------------------------------------------------------------------
    def panel(self, state: CafeState, viewer: PlayerId | None) -> Panel:
        if viewer is None or viewer not in state.players:
            return present.table_panel(state)
        return present.player_panel(state, viewer)

    def views_touched(
        self, before: CafeState, after: CafeState, player: PlayerId
    ) -> set[PlayerId | None] | None:
        return present.views_touched(before, after, player)

    def undo_policy(
        self, before: CafeState, after: CafeState, player: PlayerId, action: CafeAction
    ) -> Undo:
        return rules.undo_policy(before, after, action)

    # -- checks ----------------------------------------------------------------------------------
    def check_invariants(self, state: CafeState) -> None:
        invariants.check_invariants(state)

    def secrets(self, state: CafeState, player: PlayerId | None) -> set[str]:
        return views.secrets(state, player)

    def secret_words(self, secret: str) -> set[str]:
        return views.secret_words(secret)

    def private_move(self, before: CafeState, player: PlayerId, action: CafeAction) -> str:
        return views.private_move(action)

    def strategies(self) -> dict[str, Strategy]:
        return dict(STRATEGIES)

    def search_hints(self) -> SearchHints:
        return planning.HINTS

    def determinize(self, seen: CafeState, player: PlayerId, rng: Rng) -> CafeState | None:
        return planning.determinize(seen, player, rng)


GAME = CafeCarnage()
