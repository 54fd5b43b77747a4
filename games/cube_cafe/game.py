"""Cube Café: the Game object wiring rules, rounds, scoring and presentation together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from games.cube_cafe import planning, present, rounds, rules, scoring
from games.cube_cafe.actions import ACTION_ADAPTER, Action, Done
from games.cube_cafe.catalogue import (
    CARS_PER_COLOUR,
    COLOURS,
    CUBES_PER_COLOUR,
    DISHWASHER,
    DRIVE_SLOTS,
    GRILL_ROOM,
    MANAGER_REWARDS,
    MANAGER_SPACES,
    MAX_SATISFACTION,
    PLATES_PER_COLOUR,
    QUEUE_SPOTS,
    REFILL_TOKENS,
    REWARD_NAME,
    ROUNDS,
    STAFF,
    TABLES,
    VIPS,
)
from games.cube_cafe.help import HELP_TEXT
from games.cube_cafe.picture import draw_restaurant
from games.cube_cafe.state import CubeCafeOptions, CubeCafeState, assign
from games.cube_cafe.strategies import STRATEGIES
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
from games.kit import replace
from games.presentation import Panel
from games.rng import Rng


class CubeCafe(Game[CubeCafeState, Action]):
    id: ClassVar[str] = "cube-cafe"
    title: ClassVar[str] = "Cube Café"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 5
    summary: ClassVar[str] = (
        "Run a restaurant for cube-hungry meeples: roll shared staff dice, turn your action "
        "wheel, seat, cook, serve and refill. Most tips after 8 rounds wins."
    )
    help_text: ClassVar[str] = HELP_TEXT
    turn_style: ClassVar[TurnStyle] = TurnStyle.SIMULTANEOUS
    private_panel: ClassVar[PrivatePanel] = PrivatePanel.DM
    timer_option: ClassVar[str | None] = "phase_timeout"
    announces_timeouts: ClassVar[bool] = True  # the round's results say who forfeited
    copy_on_write: ClassVar[bool] = True  # apply_action builds a new state (see there)

    Options: ClassVar[type[BaseModel]] = CubeCafeOptions
    State: ClassVar[type[CubeCafeState]] = CubeCafeState
    action_adapter: ClassVar[TypeAdapter[Any]] = ACTION_ADAPTER

    # -- rules -----------------------------------------------------------------------------------
    def setup(self, players: list[PlayerId], options: BaseModel, seed: int) -> CubeCafeState:
        opts = CubeCafeOptions.model_validate(options.model_dump())
        state = rounds.new_state(players, opts, seed)
        arrivals = rounds.start_round(state)
        state.announcements.append(present.round_start(state, arrivals))
        return state

    def active_players(self, state: CubeCafeState) -> set[PlayerId]:
        if state.over:
            return set()
        # A plain loop (asked before every move): a comprehension costs a frame of its own.
        active = set()
        for pid, board in state.boards.items():  # a board per player
            if not board.done:
                active.add(pid)
        return active

    def legal_actions(self, state: CubeCafeState, player: PlayerId) -> Sequence[Action]:
        if player not in state.boards:
            return []
        return rules.legal_actions(state, player)

    def is_legal(self, state: CubeCafeState, player: PlayerId, action: Action) -> bool:
        return player in state.boards and rules.problem(state, player, action) is None

    def explain_illegal(self, state: CubeCafeState, player: PlayerId, action: Action) -> str:
        if player not in state.boards:
            return "You're not seated at this table."
        return rules.problem(state, player, action) or "That move isn't allowed right now."

    def apply_action(
        self, before: CubeCafeState, player: PlayerId, action: Action
    ) -> CubeCafeState:
        # Copy-on-write: a move in phase 3 changes its player's board only (and the plate bag):
        # the new state gets a new board of theirs, sharing what the move leaves alone.
        # The Done that ends the round runs the automatic phases, which replace every board.
        if type(action) is not Done:
            return rules.apply_move(before, player, action)
        boards = {**before.boards, player: rules.finish(before.boards[player], action.timed_out)}
        for board in boards.values():
            if not board.done:  # others are still working: the round goes on
                return replace(before, {"boards": boards})
        # The phases draw from the generator (a draw changes it).
        state = replace(before, {"boards": boards, "rng": replace(before.rng, {})})
        round_no = state.round
        reports = rounds.end_round(state)
        announcements = [present.round_end(state, round_no, reports)]
        if state.over:
            announcements.append(present.final(state))
        else:
            arrivals = rounds.start_round(state)
            announcements.append(present.round_start(state, arrivals))
        assign(state, {"announcements": [*state.announcements, *announcements]})
        return state

    def on_timeout(self, state: CubeCafeState, player: PlayerId) -> Action:
        return Done(timed_out=True)

    def clock(self, state: CubeCafeState) -> Clock | None:
        if state.over:
            return None
        return Clock(key=f"assign-{state.round}", seconds=state.options.phase_timeout)

    def views_touched(
        self, before: CubeCafeState, after: CubeCafeState, player: PlayerId
    ) -> set[PlayerId | None] | None:
        # A move inside phase 3 changes only its player's board (and the table showing it); the
        # Done that ends the round changes every restaurant.
        if after.round == before.round and not after.over:
            return {player, None}
        return ALL_VIEWS

    def undo_policy(
        self, before: CubeCafeState, after: CubeCafeState, player: PlayerId, action: Action
    ) -> Undo:
        if isinstance(action, Done) or after.round != before.round or after.over:
            return Undo.NEVER
        if after.rng.counter != before.rng.counter or after.plate_bag != before.plate_bag:
            return Undo.NEVER  # a plate was drawn: the order is revealed
        return Undo.FREE

    def view(self, state: CubeCafeState, viewer: PlayerId | None) -> BaseModel:
        if viewer is None or viewer not in state.players:
            return present.public_view(state)
        return present.player_view(state, viewer)

    def outcome(self, state: CubeCafeState) -> Outcome | None:
        if not state.over:  # asked before every move: answered without a call
            return None
        return scoring.outcome(state)

    # -- presentation ----------------------------------------------------------------------------
    def panel(self, state: CubeCafeState, viewer: PlayerId | None) -> Panel:
        if viewer is None or viewer not in state.players:
            return present.header_panel(state)
        return present.player_panel(state, viewer)

    def table(self, state: CubeCafeState) -> list[Panel]:
        return present.table_panels(state)

    def draw(self, spec: dict[str, Any]) -> bytes:
        return draw_restaurant(spec)

    def strategies(self) -> dict[str, Strategy]:
        return dict(STRATEGIES)

    def secrets(self, state: CubeCafeState, player: PlayerId | None) -> set[str]:
        # Nothing is secret between players; nobody may know the VIP cards still face down.
        if player is not None:
            return set()
        return set(state.vips) - set(state.revealed_vips())

    def secret_words(self, secret: str) -> set[str]:
        return {VIPS[secret].name} if secret in VIPS else set()

    # -- for the searching bot -------------------------------------------------------------------
    def determinize(self, seen: CubeCafeState, player: PlayerId, rng: Rng) -> CubeCafeState:
        return planning.determinize(seen, player, rng)

    def search_hints(self) -> SearchHints:
        return planning.HINTS

    # -- checks ----------------------------------------------------------------------------------
    def check_invariants(self, state: CubeCafeState) -> None:
        players = state.players
        assert set(state.boards) == set(players)
        assert 1 <= state.round <= ROUNDS
        assert len(state.vips) == len(set(state.vips)) == 2 and set(state.vips) <= set(VIPS)
        assert len(state.progress) == state.round - (0 if state.over else 1)
        plates = dict.fromkeys(COLOURS, 0)
        cars = dict.fromkeys(COLOURS, 0)
        for colour in state.plate_bag:
            plates[colour] += 1
        for colour in state.car_bag:
            cars[colour] += 1
        for pid in players:
            board = state.boards[pid]
            where = f"restaurant of {pid}"
            assert board.cubes() == dict.fromkeys(COLOURS, CUBES_PER_COLOUR), f"cubes: {where}"
            assert all(n >= 0 for n in board.menu.values()), f"menu below 0: {where}"
            assert len(board.grill) <= GRILL_ROOM, f"grill over {GRILL_ROOM}: {where}"
            assert len(board.hot) <= GRILL_ROOM and len(board.cold) <= GRILL_ROOM
            assert board.money >= 0, f"money below 0: {where}"
            assert 0 <= board.manager < MANAGER_SPACES
            assert 0 <= board.rotation < len(COLOURS)
            assert len(board.tables) == TABLES and len(board.dishwasher) == len(DISHWASHER)
            assert len(board.drive) == len(DRIVE_SLOTS)
            assert len(board.queue) <= QUEUE_SPOTS
            assert all(p in (*VIPS, "guest") for p in board.queue)
            for table in board.tables:
                assert 0 <= table.satisfaction <= MAX_SATISFACTION, f"satisfaction: {where}"
                if table.guest is None:
                    assert table.cube is None and not table.refill and table.satisfaction == 0
                    assert table.dirty == (table.plate is not None)
                else:
                    assert not table.dirty
                    assert table.cube is None or table.plate is not None
                if table.plate is not None:
                    plates[table.plate] += 1
            assert sum(t.refill for t in board.tables) <= REFILL_TOKENS
            for plate in board.dishwasher:
                if plate is not None:
                    plates[plate] += 1
            for car in board.drive:
                if car is not None:
                    cars[car.colour] += 1
                    assert 0 <= car.satisfaction <= MAX_SATISFACTION
                    assert car.cube in (None, car.colour)
            # Each VIP meeple is in at most one place, and only once it has arrived.
            guests = board.queue + [t.guest for t in board.tables if t.guest is not None]
            vips = [g for g in guests if g in VIPS]
            assert len(vips) == len(set(vips)) and set(vips) <= set(state.revealed_vips())
            # Staff: recruited this round = spent + unspent (+ forfeited at Done).
            for staff in board.hand + board.spent + board.forfeited + board.recruited:
                assert staff in STAFF
            assert sorted(board.recruited) == sorted(board.hand + board.spent + board.forfeited)
            assert not (board.done and (board.hand or board.pending)), f"done: {where}"
            assert all(r in REWARD_NAME for r in board.pending)
            assert len(set(board.paid)) == len(board.paid) and set(board.paid) <= set(
                MANAGER_REWARDS
            )
        assert plates == dict.fromkeys(COLOURS, PLATES_PER_COLOUR), f"plates: {plates}"
        assert cars == dict.fromkeys(COLOURS, CARS_PER_COLOUR), f"cars: {cars}"


GAME = CubeCafe()
