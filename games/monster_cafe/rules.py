"""The rules of Monster Café: setup, legal moves, applying them, timeouts and the outcome."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel

from games.engine import (
    Clock,
    Game,
    Outcome,
    PlayerId,
    PrivatePanel,
    Strategy,
    TurnStyle,
)
from games.monster_cafe import present
from games.monster_cafe.cards import (
    ALL_MONSTERS,
    ALL_TABLES,
    KIND_BY_KEY,
    MEAL_OF_KIND,
    MONSTER_KIND,
    REGULAR_KINDS,
    ROUNDS,
    SEATS_PER_TABLE,
    SORBET,
    TABLE_MEAL,
    monster_label,
    monsters_of_kind,
    tables_of_meal,
)
from games.monster_cafe.help import HELP_TEXT
from games.monster_cafe.state import (
    Clear,
    Collection,
    Draw,
    MonsterCafeOptions,
    MonsterCafeState,
    Seat,
    Sorbet,
    Table,
    Taken,
    action_adapter,
)
from games.monster_cafe.strategies import Move, greedy, timeout_move
from games.presentation import Panel, player
from games.rng import Rng

LOG_LENGTH = 6
SLOTS = "ABCD"


def deal_starting_monsters(state: MonsterCafeState) -> None:
    """Each player, in seat order, takes the top monster; a Lemon Sorbet is shuffled back into the
    deck and another card drawn."""
    for pid in state.players:
        while True:
            card = state.deck.pop(0)
            if MONSTER_KIND[card] != SORBET:
                state.collections[pid].monsters.append(card)
                break
            state.deck.append(card)
            state.rng.shuffle(state.deck)


def next_to_the_left(state: MonsterCafeState, pid: PlayerId) -> PlayerId:
    """The next player in seat order after ``pid`` who is still in the round."""
    remaining = state.remaining()
    index = state.players.index(pid)
    for step in range(1, len(state.players) + 1):
        candidate = state.players[(index + step) % len(state.players)]
        if candidate in remaining:
            return candidate
    raise AssertionError("nobody is left in the round")


class MonsterCafe(Game[MonsterCafeState, Move]):
    id = "monster-cafe"
    title = "Monster Café"
    min_players = 2
    max_players = 4
    summary = (
        "Seat hungry monsters at gross tables, clear the best one, and dodge the lemon sorbet."
    )
    help_text = HELP_TEXT
    turn_style = TurnStyle.TURNS
    private_panel = PrivatePanel.NEVER
    timer_option = "turn_timeout"
    announces_timeouts = True  # "⏰ Time's up" with the move played, in one message

    Options = MonsterCafeOptions
    State = MonsterCafeState
    action_adapter = action_adapter

    # -- setup -----------------------------------------------------------------------------------
    def setup(self, players: list[PlayerId], options: BaseModel, seed: int) -> MonsterCafeState:
        opts = MonsterCafeOptions.model_validate(options.model_dump())
        rng = Rng(seed=seed)
        out_of_play: list[str] = []
        if len(players) < 4:
            for kind in sorted(rng.sample(REGULAR_KINDS, 2), key=REGULAR_KINDS.index):
                out_of_play += monsters_of_kind(kind) + tables_of_meal(MEAL_OF_KIND[kind])
        deck = [c for c in ALL_MONSTERS if c not in out_of_play]
        table_deck = [t for t in ALL_TABLES if t not in out_of_play]
        rng.shuffle(deck)
        rng.shuffle(table_deck)
        state = MonsterCafeState(
            players=list(players),
            rng=rng,
            turn_timeout=opts.turn_timeout,
            deck=deck,
            table_deck=table_deck,
            collections={p: Collection() for p in players},
            out_of_play=out_of_play,
        )
        deal_starting_monsters(state)
        starter = state.rng.choice(state.players)
        self._log(state, f"🎲 {player(starter)} was picked at random to start.")
        self._start_round(state, starter)
        return state

    # -- whose move, which moves -------------------------------------------------------------------
    def active_players(self, state: MonsterCafeState) -> set[PlayerId]:
        return set() if state.over or state.current is None else {state.current}

    def legal_actions(self, state: MonsterCafeState, player: PlayerId) -> Sequence[Move]:
        if state.over or player != state.current:
            return []
        if state.drawn is not None:
            if state.drawn_is_sorbet():
                return [Sorbet(kind=k) for k in state.collections[player].kinds()]
            return [Seat(table=t.card) for t in state.seatable()]
        moves: list[Move] = [Draw()] if state.can_draw() else []
        return moves + [Clear(table=t.card) for t in state.clearable()]

    def is_legal(self, state: MonsterCafeState, player: PlayerId, action: Move) -> bool:
        return action.model_copy(update={"auto": False}) in self.legal_actions(state, player)

    def explain_illegal(self, state: MonsterCafeState, player: PlayerId, action: Move) -> str:
        drawn = state.drawn
        if isinstance(action, Sorbet):
            if drawn is None or not state.drawn_is_sorbet():
                return "You haven't drawn a Lemon Sorbet."
            if action.kind not in KIND_BY_KEY or action.kind == SORBET:
                return "That isn't a monster type."
            return f"You have no {KIND_BY_KEY[action.kind].name} in your collection."
        if drawn is not None:
            if state.drawn_is_sorbet():
                return "You drew a Lemon Sorbet: choose a monster type from your collection first."
            if isinstance(action, Seat):
                table = state.table(action.table)
                if table is None:
                    return "There's no such table in the café."
                return "That table is full — pick another one."
            return (
                f"You've drawn {monster_label(drawn)}: seat it at a table with a free seat first."
            )
        if isinstance(action, Seat):
            return "Draw a monster first."
        if isinstance(action, Draw):
            if not state.deck:
                return "The monster deck is empty — you must clear a table."
            return "Every table is full — you must clear one."
        table = state.table(action.table)
        if table is None:
            return "There's no such table in the café."
        return "You can't clear an empty table — seat a monster there first."

    # -- applying a move -------------------------------------------------------------------------
    def apply_action(
        self, state: MonsterCafeState, player: PlayerId, action: Move
    ) -> MonsterCafeState:
        if isinstance(action, Draw):
            event, turn_over = self._draw(state, player)
        elif isinstance(action, Seat):
            event, turn_over = self._seat(state, player, action.table), True
        elif isinstance(action, Sorbet):
            event, turn_over = self._sorbet(state, player, action.kind), True
        else:
            event, turn_over = self._clear(state, player, action.table), True
        if event:
            self._log(state, event)
            if action.auto:
                state.announcements.append(present.auto_announcement(player, event))
        if turn_over:
            self._after_turn(state, player)
        return state

    def _draw(self, state: MonsterCafeState, pid: PlayerId) -> tuple[str | None, bool]:
        card = state.deck.pop(0)
        if MONSTER_KIND[card] == SORBET and not state.collections[pid].monsters:
            state.discard.append(card)
            return (
                f"{player(pid)} drew 🍋 Lemon Sorbet with nothing to scare off: it's discarded.",
                True,
            )
        state.drawn = card  # a monster awaits its seat, or a sorbet its victims
        return None, False

    def _seat(self, state: MonsterCafeState, pid: PlayerId, table_card: str) -> str:
        table = state.table(table_card)
        assert table is not None and state.drawn is not None
        card, state.drawn = state.drawn, None
        table.seats.append(card)
        where = present.table_name(table)
        return f"{player(pid)} drew {monster_label(card)} and seated it at {where}."

    def _sorbet(self, state: MonsterCafeState, pid: PlayerId, kind: str) -> str:
        collection = state.collections[pid]
        assert state.drawn is not None
        victims = [c for c in collection.monsters if MONSTER_KIND[c] == kind]
        collection.monsters = [c for c in collection.monsters if MONSTER_KIND[c] != kind]
        state.discard += [*victims, state.drawn]
        state.drawn = None
        return (
            f"{player(pid)} drew 🍋 Lemon Sorbet: {present.monsters_text(victims)} "
            "fled to the discard pile."
        )

    def _clear(self, state: MonsterCafeState, pid: PlayerId, table_card: str) -> str:
        table = state.table(table_card)
        assert table is not None
        state.tables.remove(table)
        collection = state.collections[pid]
        collection.tables.append(table.card)
        collection.monsters += table.seats
        taken = Taken(player=pid, slot=table.slot, table=table.card, monsters=table.seats)
        state.taken.append(taken)
        return f"{present.take_text(taken)} and sits out the rest of the round."

    def _after_turn(self, state: MonsterCafeState, pid: PlayerId) -> None:
        remaining = state.remaining()
        if not remaining:
            self._end_round(state)
        elif remaining == [pid]:
            self._start_turn(state, pid, announce=False)  # the last diner's run goes on
        else:
            self._start_turn(state, next_to_the_left(state, pid), announce=True)

    def _start_turn(self, state: MonsterCafeState, pid: PlayerId, announce: bool) -> None:
        state.current = pid
        state.turn += 1
        if announce:
            state.announcements.append(present.turn_announcement(state, pid))

    def _start_round(self, state: MonsterCafeState, starter: PlayerId) -> None:
        count = state.tables_per_round
        assert len(state.table_deck) >= count, "the table deck ran out"
        dealt, state.table_deck = state.table_deck[:count], state.table_deck[count:]
        state.tables = [
            Table(slot=slot, card=card) for slot, card in zip(SLOTS, dealt, strict=False)
        ]
        state.taken = []
        self._log(state, f"🔔 Round {state.round}/{ROUNDS}: the tables are set.")
        self._start_turn(state, starter, announce=True)

    def _end_round(self, state: MonsterCafeState) -> None:
        leftovers, state.tables = state.tables, []  # two players: the dummy table
        for table in leftovers:
            state.dummy_discard += [table.card, *table.seats]
        state.announcements.append(present.round_end_announcement(state, state.taken, leftovers))
        if state.round == ROUNDS:
            state.over = True
            state.current = None
            state.announcements.append(present.final_announcement(state))
            self._log(state, "🏁 The café is closed.")
        else:
            state.round += 1
            self._start_round(state, state.taken[-1].player)

    @staticmethod
    def _log(state: MonsterCafeState, line: str) -> None:
        state.log = [*state.log, line][-LOG_LENGTH:]

    # -- time ------------------------------------------------------------------------------------
    def clock(self, state: MonsterCafeState) -> Clock | None:
        if state.over:
            return None
        return Clock(key=f"turn-{state.turn}", seconds=state.turn_timeout)

    def on_timeout(self, state: MonsterCafeState, player: PlayerId) -> Move:
        return timeout_move(state, player).model_copy(update={"auto": True})

    # -- views and results -----------------------------------------------------------------------
    def view(self, state: MonsterCafeState, viewer: PlayerId | None) -> BaseModel:
        return present.public_view(state)

    def panel(self, state: MonsterCafeState, viewer: PlayerId | None) -> Panel:
        return present.table_panel(state)

    def outcome(self, state: MonsterCafeState) -> Outcome | None:
        if not state.over:
            return None
        rows = present.standings(state)
        scores = {r.player: r.total for r in rows}
        best = max(scores.values())
        return Outcome(
            scores=scores,
            winners=[p for p in state.players if scores[p] == best],
            summary=[f"{player(r.player)}: {r.total} — " + "; ".join(r.lines) for r in rows],
        )

    def strategies(self) -> dict[str, Strategy]:
        return {"greedy": greedy, "timeout": lambda s, p, _rng: timeout_move(s, p)}

    # -- invariants ------------------------------------------------------------------------------
    def check_invariants(self, state: MonsterCafeState) -> None:
        places: dict[str, list[str]] = {
            "deck": state.deck,
            "table deck": state.table_deck,
            "tables": [t.card for t in state.tables],
            "seats": [c for t in state.tables for c in t.seats],
            "drawn": [state.drawn] if state.drawn else [],
            "discard": state.discard,
            "out of play": state.out_of_play,
            "dummy discard": state.dummy_discard,
        }
        for pid, collection in state.collections.items():
            places[f"{pid}'s monsters"] = collection.monsters
            places[f"{pid}'s tables"] = collection.tables
        seen = Counter(c for cards in places.values() for c in cards)
        everything = Counter([*ALL_MONSTERS, *ALL_TABLES])
        assert seen == everything, (
            f"cards not conserved: extra {seen - everything}, missing {everything - seen}"
        )
        monster_places = ["deck", "seats", "drawn", "discard"]
        monster_places += [k for k in places if k.endswith("monsters")]
        for name in monster_places:
            assert all(c in MONSTER_KIND for c in places[name]), f"a non-monster in {name}"
        for name in ["table deck", "tables", *[k for k in places if k.endswith("tables")]]:
            assert all(c in TABLE_MEAL for c in places[name]), f"a non-table in {name}"
        for name in ["seats", *[k for k in places if k.endswith("monsters")]]:
            assert all(MONSTER_KIND[c] != SORBET for c in places[name]), f"a sorbet in {name}"
        assert all(len(t.seats) <= SEATS_PER_TABLE for t in state.tables), "a table seats over 4"
        assert set(state.collections) == set(state.players)
        assert len(state.out_of_play) == (0 if len(state.players) == 4 else 16)
        assert state.dummy or not state.dummy_discard, "dummy discards without a dummy table"
        assert len(set(state.cleared())) == len(state.taken)
        finished = ROUNDS if state.over else state.round - 1  # rounds every player took a table in
        for pid, collection in state.collections.items():
            this_round = 0 if state.over else state.cleared().count(pid)
            assert len(collection.tables) == finished + this_round, f"{pid} has a wrong table count"
        dummies = sum(c in TABLE_MEAL for c in state.dummy_discard)
        assert dummies == (finished if state.dummy else 0), "a wrong number of dummy tables"
        if state.over:
            assert state.round == ROUNDS and state.current is None and not state.tables
            assert state.drawn is None and not state.table_deck
        else:
            assert state.current in state.remaining(), "the current player has cleared"
            assert len(state.tables) + len(state.taken) == state.tables_per_round
            assert len(state.table_deck) == (ROUNDS - state.round) * state.tables_per_round
            assert state.drawn is None or state.drawn_is_sorbet() or state.seatable()


GAME = MonsterCafe()
