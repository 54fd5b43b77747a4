"""The Breakfast vs Aliens game object: the engine contract wired to the rules and panels."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from games.breakfast_vs_aliens import picture, rules, thinking
from games.breakfast_vs_aliens.catalogue import ALL_CARDS, CARDS, card, effect, kind, short
from games.breakfast_vs_aliens.help import HELP_TEXT
from games.breakfast_vs_aliens.panels import private_panel, table_panel
from games.breakfast_vs_aliens.scoring import outcome, scores
from games.breakfast_vs_aliens.state import (
    Action,
    Attach,
    AttachStep,
    BvaOptions,
    BvaState,
    DrawnStep,
    EscapeStep,
    JamColour,
    JamStep,
    OfferStep,
    PeekStep,
    ShieldStep,
    action_adapter,
    outside_deck,
)
from games.breakfast_vs_aliens.strategies import strategies
from games.breakfast_vs_aliens.views import private_view, public_view
from games.engine import (
    ALL_VIEWS,
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
from games.kit import new_log_lines
from games.presentation import Panel


class BreakfastVsAliens(Game[BvaState, Action]):
    id: ClassVar[str] = "breakfast-vs-aliens"
    title: ClassVar[str] = "Breakfast vs Aliens"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    summary: ClassVar[str] = (
        "Capture colourful aliens with teams of breakfast heroes: match every trait, "
        "mind the disasters."
    )
    help_text: ClassVar[str] = HELP_TEXT
    turn_style: ClassVar[TurnStyle] = TurnStyle.TURNS
    private_panel: ClassVar[PrivatePanel] = PrivatePanel.ON_REQUEST
    timer_option: ClassVar[str | None] = "turn_timeout"
    copy_on_write: ClassVar[bool] = True  # rules.apply_action builds a new state

    Options: ClassVar[type[BaseModel]] = BvaOptions
    State: ClassVar[type[BvaState]] = BvaState
    action_adapter: ClassVar[TypeAdapter[Any]] = action_adapter

    # -- rules -----------------------------------------------------------------------------------
    def setup(self, players: list[PlayerId], options: BaseModel, seed: int) -> BvaState:
        opts = BvaOptions.model_validate(options.model_dump())
        return rules.setup(players, opts, seed)

    def active_players(self, state: BvaState) -> set[PlayerId]:
        return rules.active_players(state)

    def legal_actions(self, state: BvaState, player: PlayerId) -> Sequence[Action]:
        return rules.legal_actions(state, player)

    def is_legal(self, state: BvaState, player: PlayerId, action: Action) -> bool:
        return rules.is_legal(state, player, action)

    def explain_illegal(self, state: BvaState, player: PlayerId, action: Action) -> str:
        return rules.problem(state, player, action) or "That move isn't allowed right now."

    def apply_action(self, state: BvaState, player: PlayerId, action: Action) -> BvaState:
        return rules.apply_action(state, player, action)

    def on_timeout(self, state: BvaState, player: PlayerId) -> Action:
        return rules.on_timeout(state, player)

    def clock(self, state: BvaState) -> Clock | None:
        return rules.clock(state)

    def news(self, before: BvaState, after: BvaState) -> list[str]:
        return new_log_lines(before.log, after.log)

    def view(self, state: BvaState, viewer: PlayerId | None) -> BaseModel:
        if viewer is None or viewer not in state.players:
            return public_view(state)
        return private_view(state, viewer)

    def outcome(self, state: BvaState) -> Outcome | None:
        return outcome(state)

    # -- presentation ----------------------------------------------------------------------------
    def panel(self, state: BvaState, viewer: PlayerId | None) -> Panel:
        if viewer is None or viewer not in state.players:
            return table_panel(state)
        return private_panel(state, viewer)

    def private_decision(self, state: BvaState, player: PlayerId) -> bool:
        step = state.pending
        return isinstance(step, PeekStep) and step.player == player and not state.over

    def views_touched(
        self, before: BvaState, after: BvaState, player: PlayerId
    ) -> set[PlayerId | None] | None:
        return ALL_VIEWS

    def undo_policy(
        self, before: BvaState, after: BvaState, player: PlayerId, action: Action
    ) -> Undo:
        # Choosing where a treasure goes (or a Jam Jar's colour) reveals nothing, unless what
        # followed by itself drew a card (the next turn's refill, say).
        if isinstance(action, Attach | JamColour) and after.deck == before.deck:
            return Undo.CONSENT
        return Undo.NEVER

    # -- checks ----------------------------------------------------------------------------------
    def check_invariants(self, state: BvaState) -> None:
        places = [*state.deck, *outside_deck(state)]
        for hero, treasures in state.attached.items():
            assert treasures, f"{hero} has an empty treasure list"
            assert any(hero in state.heroes[p] for p in state.players), f"{hero} not in play"
        counts = Counter(places)
        dupes = sorted(c for c, n in counts.items() if n > 1)
        assert not dupes, f"cards in two places: {dupes}"
        assert set(counts) == set(ALL_CARDS), f"missing {sorted(set(ALL_CARDS) - set(counts))}"
        # Each place holds the right kind of card.
        for p in state.players:
            assert all(kind(h) == "hero" for h in state.heroes[p]), f"{p}: heroes"
            assert all(kind(t) == "treasure" for t in state.waiting[p]), f"{p}: waiting"
            assert not (state.waiting[p] and state.heroes[p]), f"{p}: treasure left waiting"
            assert all(kind(c) in ("alien", "disaster") for c in state.jails[p]), f"{p}: jail"
        assert all(kind(t) == "treasure" for ts in state.attached.values() for t in ts)
        assert all(kind(a) == "alien" for a in state.escaped)
        assert all(kind(d) == "disaster" for d in state.beside + state.alien_disasters)
        assert state.alien is None or kind(state.alien) == "alien"
        if state.full:
            assert not state.escaped and not state.alien_disasters
            assert len(state.play) <= 3
            assert all(kind(c) != "disaster" for c in state.play)
            assert all(kind(t) == "treasure" for t in state.jam)
        else:
            assert not state.play and not state.peek and not state.jam
            assert state.disaster is None and state.extra_turns == 0
        owned = {t for ts in state.attached.values() for t in ts}
        owned |= {t for p in state.players for t in state.waiting[p]}
        if isinstance(state.pending, AttachStep | JamStep):
            owned.add(state.pending.treasure)
        assert all(t in owned and effect(t) == "jam_jar" for t in state.jam), "stray Jam colour"
        assert (state.alien is not None) == isinstance(state.pending, OfferStep | DrawnStep)
        assert (state.stage == "escape") == isinstance(state.pending, EscapeStep)
        assert bool(state.peek) == isinstance(state.pending, PeekStep)
        assert (state.disaster is not None) == isinstance(state.pending, ShieldStep)
        if state.over:
            assert state.pending is None
        else:
            assert self.active_players(state), "nobody is awaited"
        # Points add up: the last progress snapshot is the current score.
        assert state.progress and state.progress[-1] == scores(state)

    def draw(self, spec: dict[str, Any]) -> bytes:
        return picture.draw(spec)

    def secrets(self, state: BvaState, player: PlayerId | None) -> set[str]:
        if player is None:
            return set(state.deck)
        step = state.pending
        if isinstance(step, PeekStep) and step.player == player:
            return set(state.peek)
        return set()

    def secret_words(self, secret: str) -> set[str]:
        return {card(secret).name, short(secret)} if secret in CARDS else set()

    def strategies(self) -> dict[str, Strategy]:
        return strategies()

    def search_hints(self) -> SearchHints:
        return thinking.HINTS

    def search_move(
        self,
        seen: BvaState,
        player: PlayerId,
        *,
        simulations: int,
        stop: Callable[[], bool] | None = None,
    ) -> tuple[Action, int] | None:
        return thinking.search_move(seen, player, simulations, stop)


GAME = BreakfastVsAliens()
