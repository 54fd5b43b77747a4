"""The Alien Café game object: the engine contract wired to the rules, panels and strategies."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, TypeAdapter

from games.alien_cafe import rules
from games.alien_cafe.actions import Action, DoneAction, LevelAction, action_adapter
from games.alien_cafe.panels import private_panel, private_view, public_panel, public_view
from games.alien_cafe.state import (
    CELLS,
    LOSSES_ALLOWED,
    MAX_ROUNDS,
    WINS_NEEDED,
    AlienCafeOptions,
    AlienCafeState,
)
from games.alien_cafe.strategies import strategies
from games.alien_cafe.text import final_summary
from games.alien_cafe.tiles import ALL_TILES, TILES
from games.engine import Clock, Game, Outcome, PrivatePanel, Strategy, TurnStyle
from games.presentation import Panel

HELP = """\
**Alien Café** — cooperative and simultaneous. Everyone fills their own 4×4 tray at once, \
against the round timer; the table wins or loses together.

**Tiles.** Red bag: 36 aliens (🟣🟢🔵🟠, each wants to be next to a 🍔 main, 🍰 dessert or \
🥤 drink) + 4 alien Jokers. Blue bag: 36 orders (🍔🍰🥤, each wants a given alien colour) + \
4 order Jokers. "Next to" = touching in the same row or column.

**A round.** 1) Each player picks a level 0–4 (default: last round's level; at the level \
timeout it is kept). Level L adds one random special tile of each level from 1 to L. \
2) Everyone gets 3 aliens + 3 orders in their DM and the service timer starts. 3) From your \
DM: pick a hand tile (menu), click an empty cell to place it; click a placed tile to pick it \
up, then click another cell to move it (onto a tile: they swap) or take it back. Draw 👽/🍽️ from either bag \
(an empty bag is refused). Give a tile from your hand (menu) to a player who is not done — \
never a special tile. Press **Done** when happy: it is final for the round (your tray locks \
and nobody can give you tiles). 4) The round ends when everyone is done or at the deadline \
(everyone still working is made done).

**Scoring.** Each placed tile: +1 if its condition holds, −1 if not. Jokers: 0. Each tile left \
in hand (special ones too): −1. House Rules: +1 if your tray has no tile of the banned type, \
else −1; never counted as unplaced. A Joker counts as the type it is declared (alien colour or \
order category, and so as an alien or an order) for its neighbours and House Rules. The bot \
picks the best declarations for you (shown live); pick a Joker up to declare it yourself — \
your choice wins over the automatic one ("automatic" undoes it).

**Special tiles** (6 per level, face down, drawn at random, never given):
L1 🧂 Seasoning: not next to any order · 😠 Grumpy alien: not next to any other alien.
L2 🍱 Sharing Platter: next to ≥ 2 aliens · 😋 Hungry alien: next to ≥ 2 orders.
L3 🦃 Banquet: next to ≥ 3 aliens · 🤤 Glutton: next to ≥ 3 orders.
L4 📜 House Rule (no purple / green / blue / orange aliens, no drinks, no desserts): not placed, \
applies to your whole tray.
Grumpy, Hungry and Glutton are aliens of no colour; Platters and Banquets are orders of no \
category; Seasoning is neither.

**Service.** It succeeds when every player has ≥ 10 points. Then all tiles go back: aliens and \
orders to their bags, special tiles to their level's pile (reshuffled) — so each round's special \
tiles are a fresh random draw. **End:** the table wins at the 3rd successful service and loses \
at the 3rd failed one (at most 5 rounds). 1 player = solo practice.
"""


class AlienCafe(Game[AlienCafeState, Action]):
    id: ClassVar[str] = "alien-cafe"
    title: ClassVar[str] = "Alien Café"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 4
    summary: ClassVar[str] = (
        "Cooperative real-time tile placing: seat picky aliens next to their orders on a 4×4 tray."
    )
    help_text: ClassVar[str] = HELP
    turn_style: ClassVar[TurnStyle] = TurnStyle.SIMULTANEOUS
    private_panel: ClassVar[PrivatePanel] = PrivatePanel.DM
    timer_option: ClassVar[str | None] = "round_time"
    refund_downtime: ClassVar[bool] = True
    Options: ClassVar[type[BaseModel]] = AlienCafeOptions
    State: ClassVar[type[AlienCafeState]] = AlienCafeState
    action_adapter: ClassVar[TypeAdapter[Any]] = action_adapter

    def setup(self, players: list[str], options: BaseModel, seed: int) -> AlienCafeState:
        opts = AlienCafeOptions.model_validate(options.model_dump())
        return rules.setup(players, opts, seed)

    def active_players(self, state: AlienCafeState) -> set[str]:
        return rules.active_players(state)

    def legal_actions(self, state: AlienCafeState, player: str) -> Sequence[Action]:
        return rules.legal_actions(state, player)

    def is_legal(self, state: AlienCafeState, player: str, action: Action) -> bool:
        if player not in self.active_players(state):
            return False
        return rules.problem(state, player, action) is None

    def explain_illegal(self, state: AlienCafeState, player: str, action: Action) -> str:
        return rules.problem(state, player, action) or "That move isn't allowed right now."

    def apply_action(self, state: AlienCafeState, player: str, action: Action) -> AlienCafeState:
        return rules.apply_action(state, player, action)

    def on_timeout(self, state: AlienCafeState, player: str) -> Action:
        if state.phase == "levels":
            return LevelAction(level=state.seats[player].level)
        return DoneAction()

    def clock(self, state: AlienCafeState) -> Clock | None:
        if state.phase == "levels":
            return Clock(key=f"levels-{state.round}", seconds=state.options.level_time)
        if state.phase == "service":
            return Clock(key=f"service-{state.round}", seconds=state.options.round_time)
        return None

    def view(self, state: AlienCafeState, viewer: str | None) -> BaseModel:
        if viewer is None or viewer not in state.seats:
            return public_view(state)
        return private_view(state, viewer)

    def outcome(self, state: AlienCafeState) -> Outcome | None:
        if state.phase != "over":
            return None
        won = state.successes >= WINS_NEEDED
        scores = {p: sum(r.scores.get(p, 0) for r in state.results) for p in state.players}
        return Outcome(
            scores=scores,
            winners=list(state.players) if won else [],
            cooperative=True,
            summary=final_summary(state),
        )

    def panel(self, state: AlienCafeState, viewer: str | None) -> Panel:
        if viewer is None:
            return public_panel(state)
        return private_panel(state, viewer)

    def secrets(self, state: AlienCafeState, player: str | None) -> set[str]:
        seat = state.seats.get(player) if player is not None else None
        if seat is None:
            return set()
        return set(seat.hand) | set(seat.house)

    def strategies(self) -> dict[str, Strategy]:
        return strategies()

    def check_invariants(self, state: AlienCafeState) -> None:
        places: list[str] = list(state.red) + list(state.blue)
        for pile in state.piles:
            places += pile
        for seat in state.seats.values():
            places += seat.hand + [t for t in seat.tray if t is not None] + seat.house
        counts = Counter(places)
        dupes = [t for t, n in counts.items() if n > 1]
        assert not dupes, f"tiles in two places: {dupes}"
        assert set(counts) == ALL_TILES, (
            f"missing {sorted(ALL_TILES - set(counts))}, unknown {sorted(set(counts) - ALL_TILES)}"
        )
        assert all(t.startswith("A") and not TILES[t].special for t in state.red), "red bag"
        assert all(t.startswith("O") and not TILES[t].special for t in state.blue), "blue bag"
        assert len(state.piles) == 4
        for level, pile in enumerate(state.piles, start=1):
            assert all(TILES[t].level == level for t in pile), f"level {level} pile"
        assert list(state.seats) == list(state.players), "one seat per player"
        assert 1 <= state.round <= MAX_ROUNDS
        assert state.successes <= WINS_NEEDED and state.failures <= LOSSES_ALLOWED
        assert len(state.results) == state.round - (0 if state.phase == "over" else 1)
        if state.phase == "over":
            assert (
                state.successes >= WINS_NEEDED
                or state.failures >= LOSSES_ALLOWED
                or len(state.results) == MAX_ROUNDS
            )
        for pid, seat in state.seats.items():
            assert len(seat.tray) == CELLS, f"{pid}: tray size"
            assert 0 <= seat.level <= 4
            assert all(TILES[t].kind == "house" for t in seat.house), f"{pid}: house"
            assert not any(TILES[t].kind == "house" for t in seat.hand), f"{pid}: house in hand"
            assert not any(TILES[t].kind == "house" for t in seat.tray if t), f"{pid}: house"
            if state.phase != "service":
                assert not seat.hand and not seat.house and not any(seat.tray), f"{pid}: tiles"
                assert not seat.done and seat.held is None and not seat.declared
            else:
                assert seat.ready
                held_ok = seat.held is None or seat.held in seat.hand or seat.held in seat.tray
                assert held_ok, f"{pid}: held tile elsewhere"
                for tid in seat.declared:
                    assert tid in seat.tray and TILES[tid].joker, f"{pid}: declaration"
                specials = [TILES[t].level for t in seat.hand + seat.tray + seat.house if t]
                specials = [lvl for lvl in specials if lvl]
                # Own special tiles: one per level up to the player's level (never given).
                expected = list(range(1, seat.level + 1))
                assert sorted(specials) == expected, f"{pid}: special tiles {specials}"
            if state.phase == "levels" and not seat.ready:
                assert not seat.done
