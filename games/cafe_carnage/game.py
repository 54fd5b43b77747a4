"""Café Carnage: the Game object tying rules, views and panels together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from games.cafe_carnage import present, rules
from games.cafe_carnage.cards import (
    ACTION_NAME,
    CARDS_PER_COURSE,
    COURSE_CARDS,
    COURSES,
    DISHES,
    HAND_SIZE,
    MONEY_TOTAL,
    action_cards,
    action_kind,
    action_owner,
    dish,
    run_card,
)
from games.cafe_carnage.help import HELP_TEXT
from games.cafe_carnage.state import (
    ACTION_ADAPTER,
    AutoPlay,
    CafeOptions,
    CafeState,
    Confirm,
    Pick,
    Play,
)
from games.cafe_carnage.strategies import STRATEGIES
from games.engine import (
    Clock,
    Game,
    Outcome,
    PlayerId,
    PrivatePanel,
    Strategy,
    TurnStyle,
)
from games.presentation import Panel

CafeAction = Pick | Play | Confirm | AutoPlay


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
        state = rules.new_state(players, opts, seed)
        state.announcements.append(present.start_announcement(state))
        return state

    def active_players(self, state: CafeState) -> set[PlayerId]:
        if state.over:
            return set()
        return {p for p in state.players if p not in state.confirmed}

    def legal_actions(self, state: CafeState, player: PlayerId) -> Sequence[CafeAction]:
        if player not in self.active_players(state):
            return []
        actions: list[CafeAction] = [
            Pick(card=card) for course in COURSES for card in state.menus[player][course]
        ]
        actions.extend(Play(card=card) for card in state.hands[player])
        if not rules.missing(state, player):
            actions.append(Confirm())
        return actions

    def is_legal(self, state: CafeState, player: PlayerId, action: CafeAction) -> bool:
        # The deadline's AutoPlay is accepted from any awaited player (it only takes defaults),
        # but it is not offered as a move.
        if isinstance(action, AutoPlay):
            return player in self.active_players(state)
        return action in self.legal_actions(state, player)

    def explain_illegal(self, state: CafeState, player: PlayerId, action: CafeAction) -> str:
        if isinstance(action, Pick):
            if action.card not in DISHES:
                return "There is no such dish."
            return f"{dish(action.card).name} isn't on your menu this round."
        if isinstance(action, Play):
            kind = action_kind(action.card)
            if kind is None or action_owner(action.card) != player:
                return "That isn't one of your action cards."
            if action.card == run_card(player) and player in state.run_discarded:
                return "Your RUN! card is gone — you escaped once and can't run again."
            return f"You don't hold that {ACTION_NAME[kind]} card any more."
        if isinstance(action, Confirm):
            return f"Choose {rules.missing_words(rules.missing(state, player))} before you confirm."
        return "That move isn't allowed right now."

    def apply_action(self, state: CafeState, player: PlayerId, action: CafeAction) -> CafeState:
        if isinstance(action, Pick):
            state.picks[player][dish(action.card).course] = action.card
        elif isinstance(action, Play):
            state.played[player] = action.card
        else:
            if isinstance(action, AutoPlay):
                for course in COURSES:
                    if course not in state.picks[player]:
                        state.picks[player][course] = rules.default_dish(state, player, course)
                if player not in state.played:
                    state.played[player] = rules.default_card(state, player)
                state.auto_played.append(player)
            state.confirmed.append(player)
            if len(state.confirmed) == len(state.players):
                record = rules.resolve_round(state)
                state.announcements.append(present.round_announcement(state, record))
                if state.over:
                    state.announcements.append(present.final_announcement(state))
        return state

    def on_timeout(self, state: CafeState, player: PlayerId) -> CafeAction:
        return AutoPlay()

    def clock(self, state: CafeState) -> Clock | None:
        if state.over:
            return None
        return Clock(key=f"r{state.round}", seconds=state.options.turn_timeout)

    def view(self, state: CafeState, viewer: PlayerId | None) -> BaseModel:
        if viewer is None or viewer not in state.players:
            return present.public_view(state)
        return present.private_view(state, viewer)

    def outcome(self, state: CafeState) -> Outcome | None:
        if not state.over:
            return None
        return Outcome(
            scores={s.player: s.gp for s in state.standings},
            winners=present.winners(state.standings),
            summary=present.outcome_summary(state),
        )

    # -- presentation ----------------------------------------------------------------------------
    def panel(self, state: CafeState, viewer: PlayerId | None) -> Panel:
        if viewer is None or viewer not in state.players:
            return present.table_panel(state)
        return present.player_panel(state, viewer)

    # -- checks ----------------------------------------------------------------------------------
    def check_invariants(self, state: CafeState) -> None:
        players = state.players
        # Dish cards: each in exactly one place, of the right course.
        for course in COURSES:
            places = list(state.decks[course]) + list(state.eaten[course])
            for p in state.menus:
                places.extend(state.menus[p][course])
            assert sorted(places) == sorted(COURSE_CARDS[course]), f"{course} cards not conserved"
            assert len(places) == CARDS_PER_COURSE
        if state.over:
            assert not state.menus and not state.played and not state.confirmed
        else:
            assert set(state.menus) == set(players)
            for p in players:
                for course, card in state.picks[p].items():
                    assert card in state.menus[p][course], f"{p} picked {card} off their menu"
                if p in state.played:
                    assert state.played[p] in state.hands[p], f"{p} played a card not in hand"
                if p in state.confirmed:
                    assert not rules.missing(state, p), f"{p} confirmed an incomplete order"
        # Action cards: in a hand, in the anonymous discard, or a discarded RUN!.
        in_hands = 0
        for p in players:
            hand = state.hands[p]
            assert len(set(hand)) == len(hand) and set(hand) <= set(action_cards(p))
            assert (run_card(p) in hand) == (p not in state.run_discarded)
            in_hands += len(hand)
        assert state.ballot_discard.get("run", 0) == 0
        total = in_hands + sum(state.ballot_discard.values()) + len(state.run_discarded)
        assert total == HAND_SIZE * len(players), "action cards not conserved"
        assert len(state.run_discarded) == len(set(state.run_discarded))
        # Money: players' $ + the supply is the box's total; nobody is in debt.
        assert sum(state.budget.values()) + state.supply == MONEY_TOTAL, "money not conserved"
        assert state.supply >= 0 and all(v >= 0 for v in state.budget.values())
        # Confirmed and auto-played players are seated, each once.
        assert len(set(state.confirmed)) == len(state.confirmed)
        assert set(state.auto_played) <= set(state.confirmed)
        assert len(state.history) == (state.round if state.over else state.round - 1)

    def secrets(self, state: CafeState, player: PlayerId | None) -> set[str]:
        if player is None:
            return set()
        found: set[str] = set(state.hands.get(player, []))
        for cards in state.menus.get(player, {}).values():
            found.update(cards)
        if player in state.played:
            found.add(state.played[player])
        return found

    def strategies(self) -> dict[str, Strategy]:
        return dict(STRATEGIES)


GAME = CafeCarnage()
