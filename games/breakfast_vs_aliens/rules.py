"""Setup, the turn flow of both modes, legal moves, applying them, timeouts and clocks.

Copy-on-write: ``apply_action`` never mutates the state it is given. It works on a shallow copy
(:func:`games.kit.evolve`) whose lists, dicts and steps are shared with the state before the move;
the helpers replace the ones a move changes (``state.deck = state.deck[1:]``) and never change one
in place.
"""

from __future__ import annotations

from itertools import permutations

from games import kit
from games.breakfast_vs_aliens import effects
from games.breakfast_vs_aliens.capture import (
    can_capture,
    can_capture_any,
    capture_options,
    hero_traits,
    is_valid_capture,
    owned_treasures,
)
from games.breakfast_vs_aliens.catalogue import (
    ALL_CARDS,
    COLOURS,
    HAND_HEROES,
    PLAY_CARDS,
    Colour,
    card,
    effect,
    kind,
)
from games.breakfast_vs_aliens.scoring import leaders, pts, scores, snapshot
from games.breakfast_vs_aliens.state import (
    STATE_FIELDS,
    Action,
    Arrange,
    Attach,
    AttachStep,
    Burn,
    BurnStep,
    BvaOptions,
    BvaState,
    Capture,
    Draw,
    DrawnStep,
    EscapeStep,
    Give,
    JamColour,
    JamStep,
    Keep,
    MilkStep,
    OfferStep,
    Pass,
    PeekStep,
    PutBack,
    Shield,
    ShieldStep,
    Take,
    Use,
)
from games.breakfast_vs_aliens.table import (
    attach,
    capture,
    draw_top,
    gain_hero,
    gain_treasure,
    place_treasure,
)
from games.breakfast_vs_aliens.words import alien_text, card_text, event, note, ping
from games.engine import Clock, PlayerId
from games.kit import evolve
from games.presentation import player
from games.rng import Rng

# A capture offer to another player and Spilled Milk (or the turn timer, if shorter).
QUICK_SECONDS = 120
REACTION_SECONDS = 45  # the Syrup Shield window
TOOLS = ("magic_toaster", "cereal_compass")

# Moves are frozen: the legal-move lists share these instances instead of building new ones.
DRAW, PASS, PUT_BACK = Draw(), Pass(), PutBack()
SHIELDS: tuple[Shield, Shield] = (Shield(use=True), Shield(use=False))
JAM_COLOURS: tuple[JamColour, ...] = tuple(JamColour(colour=c) for c in COLOURS)
HEROES = [c for c in ALL_CARDS if kind(c) == "hero"]
ATTACH = {h: Attach(hero=h) for h in HEROES}
GIVE = {h: Give(hero=h) for h in HEROES}
BURN = {h: Burn(hero=h) for h in HEROES}
TAKE = {c: Take(card=c) for c in ALL_CARDS}
USE = {c: Use(card=c) for c in ALL_CARDS}
KEEP: dict[str | None, Keep] = {c: Keep(card=c) for c in [*ALL_CARDS, None]}


# -- setup ----------------------------------------------------------------------------------------


def setup(players: list[PlayerId], options: BvaOptions, seed: int) -> BvaState:
    """Deal 3 heroes face up to each player from the shuffled deck, shuffle the rest into the
    draw deck, lay out the play cards (Full Pancake) and pick the first player at random."""
    rng = Rng(seed=seed)
    cards = list(ALL_CARDS)
    rng.shuffle(cards)
    pool = [c for c in cards if kind(c) == "hero"]
    heroes: dict[PlayerId, list[str]] = {p: [] for p in players}
    for _ in range(HAND_HEROES):
        for p in players:
            heroes[p].append(pool.pop(0))
    dealt = {h for hand in heroes.values() for h in hand}
    deck = [c for c in cards if c not in dealt]
    rng.shuffle(deck)
    first = rng.choice(players)
    state = BvaState(
        players=list(players),
        rng=rng,
        options=options,
        deck=deck,
        heroes=heroes,
        waiting={p: [] for p in players},
        jails={p: [] for p in players},
        current=first,
        stage="draw",
    )
    # Every field counts as set, as in a loaded or evolved state (assignments keep it so).
    state.__pydantic_fields_set__.update(STATE_FIELDS)
    if state.full:
        effects.refill_like_setup(state)
    snapshot(state)
    mode = "🥞 Full Pancake" if state.full else "🧁 Mini-Muffin"
    event(
        state,
        "🥞 Breakfast vs Aliens",
        [
            f"{mode}: each player has 3 breakfast heroes. Capture the aliens!",
            f"🎲 {player(first)} was picked at random to start.",
        ],
    )
    begin_turn(state, first)
    advance(state)
    return state


# -- the turn flow --------------------------------------------------------------------------------


def next_player(state: BvaState, pid: PlayerId) -> PlayerId:
    nxt = kit.next_in_seat_order(state.players, pid)
    assert nxt is not None
    return nxt


def jailed(state: BvaState) -> int:
    return sum(len(j) for j in state.jails.values())


def begin_turn(state: BvaState, pid: PlayerId, *, extra: bool = False) -> None:
    state.current = pid
    state.turn += 1
    state.turn_deck = len(state.deck)
    state.turn_jailed = jailed(state)
    state.stage = "refill" if state.full else "draw"
    what = "one action (the play cards are refilled first)" if state.full else "draw a card"
    title = "⚡ Breakfast Rush: another turn" if extra else "🥞 Your turn"
    ping(state, title, f"{player(pid)}, it's your turn: {what}.", [pid])


def advance(state: BvaState) -> None:
    """Run what happens by itself (refills, the end of a turn) until someone must decide."""
    while not state.over and state.pending is None:
        if state.stage == "refill":
            if len(state.play) < PLAY_CARDS and state.deck:
                refill_one(state)
            else:
                state.stage = "action"
                remind_current(state)
        elif state.stage == "end":
            end_turn(state)
        else:
            return


def remind_current(state: BvaState) -> None:
    """After a reaction step (a Syrup Shield window) interrupted the refill, the newest turn
    notice names someone else: tell the current player their action is awaited again."""
    notice = next((a for a in reversed(state.announcements) if a.kind == "turn"), None)
    if notice is not None and notice.ping != [state.current]:
        ping(
            state,
            "🥞 Your action",
            f"{player(state.current)}, the refill is done: choose your action.",
            [state.current],
        )


def refill_one(state: BvaState) -> None:
    """Full Pancake: draw one card for the play cards. A disaster happens at once (and ends the
    turn); a Breakfast Rush is kept by the player, who takes another turn after this one."""
    top = draw_top(state)
    if kind(top) == "disaster":
        effects.reveal_disaster(state, top, refill=True)
    elif effect(top) == "breakfast_rush":
        state.extra_turns += 1
        event(
            state,
            "⚡ Breakfast Rush",
            [
                f"⚡ {player(state.current)} drew a Breakfast Rush: they keep it and take another "
                "turn after this one."
            ],
        )
        gain_treasure(state, state.current, top)
    else:
        state.play = [*state.play, top]


def end_turn(state: BvaState) -> None:
    if not state.full:
        if state.deck:
            begin_turn(state, next_player(state, state.current))
        else:
            start_escape(state)
        return
    idle = len(state.deck) >= state.turn_deck and jailed(state) == state.turn_jailed
    state.idle_turns = state.idle_turns + 1 if idle else 0
    if state.last_card_drawn:
        finish(state, "The last card of the deck was drawn.")
    elif state.idle_turns >= len(state.deck) + len(state.players):
        finish(
            state,
            f"Stalemate: {state.idle_turns} turns in a row without a capture or a card leaving "
            "the deck — the aliens win the standoff and the game ends.",
        )
    elif state.extra_turns:
        state.extra_turns -= 1
        begin_turn(state, state.current, extra=True)
    else:
        begin_turn(state, next_player(state, state.current))


def finish(state: BvaState, reason: str) -> None:
    state.stage = "over"
    state.pending = None
    state.end_reason = reason
    table = scores(state)
    top = leaders(state)
    ranking = sorted(state.players, key=lambda p: (-table[p], state.players.index(p)))
    lines = [reason, ""]
    lines += [f"{'🏆' if p in top else '▫️'} {player(p)}: {pts(table[p])}" for p in ranking]
    if len(top) > 1:
        lines.append("Tied at the top: the win is shared!")
    event(state, "🏁 Game over", lines)


# -- Mini-Muffin: offers and the escape pile ------------------------------------------------------


def start_offer(state: BvaState, order: list[PlayerId]) -> None:
    """Offer the drawn alien to each player in ``order`` who can capture it, one at a time; if
    nobody does, it escapes."""
    alien = state.alien
    assert alien is not None
    for i, p in enumerate(order):
        if can_capture(state, p, alien, spatula=False):
            state.pending = OfferStep(player=p, queue=order[i + 1 :])
            if p != state.current:
                state.seq += 1
                ping(
                    state,
                    "🛸 Capture offer",
                    f"{player(p)}, you may capture {alien_text(state, alien)}.",
                    [p],
                )
            return
    escape_alien(state)


def escape_alien(state: BvaState) -> None:
    alien = state.alien
    assert alien is not None
    described = alien_text(state, alien)
    state.escaped = [*state.escaped, alien]
    state.discard = [*state.discard, *state.alien_disasters]
    lines = [f"🛸 {described} escaped: nobody captured it."]
    if state.alien_disasters:
        lines.append(f"Its {len(state.alien_disasters)} stacked disaster(s) are discarded.")
    state.alien = None
    state.alien_disasters = []
    event(state, f"🛸 {card(alien).name} escaped", lines)


def start_escape(state: BvaState) -> None:
    state.stage = "escape"
    state.escape_passes = 0
    if not state.escaped:
        finish(state, "The deck is empty and no alien escaped.")
        return
    event(
        state,
        "🛸 The escape pile",
        [
            "The deck is empty! Clockwise, each player may capture one alien from the escape "
            "pile, round after round, until nobody can."
        ],
    )
    next_escape(state, next_player(state, state.current))


def next_escape(state: BvaState, candidate: PlayerId) -> None:
    """Give the next player who can capture an escaped alien their go; end after a full round
    without a capture."""
    while state.escape_passes < len(state.players) and state.escaped:
        if can_capture_any(state, candidate, state.escaped, spatula=False):
            state.current = candidate
            state.seq += 1
            state.pending = EscapeStep(player=candidate)
            ping(
                state,
                "🛸 Escape pile",
                f"{player(candidate)}, you may capture one alien from the escape pile.",
                [candidate],
            )
            return
        state.escape_passes += 1
        candidate = next_player(state, candidate)
    finish(state, "Nobody can capture another alien from the escape pile.")


# -- whose move, which moves ----------------------------------------------------------------------


def active_players(state: BvaState) -> set[PlayerId]:
    step = state.pending
    if state.over:
        return set()
    if isinstance(step, ShieldStep | MilkStep):
        return set(step.waiting)
    if step is not None:
        return {step.player}
    return {state.current}


def awaits(state: BvaState, pid: PlayerId) -> bool:
    """``pid in active_players(state)``, without building the set."""
    step = state.pending
    if state.stage == "over":
        return False
    if step is None:
        return pid == state.current
    if isinstance(step, ShieldStep | MilkStep):
        return pid in step.waiting
    return pid == step.player


def capture_moves(state: BvaState, pid: PlayerId) -> list[Capture]:
    """Every capture offered to ``pid`` now (minimal hero sets), the best first per alien."""
    step = state.pending
    if isinstance(step, OfferStep | DrawnStep) and state.alien is not None:
        return capture_options(state, pid, state.alien, spatula=state.full)
    if isinstance(step, EscapeStep):
        aliens = sorted(state.escaped, key=lambda a: -card(a).points)
        return [m for a in aliens for m in capture_options(state, pid, a, spatula=False)]
    if step is None and state.stage == "action":
        aliens = [c for c in state.play if kind(c) == "alien"]
        aliens.sort(key=lambda a: -card(a).points)
        return [m for a in aliens for m in capture_options(state, pid, a, spatula=True)]
    return []


def legal_actions(state: BvaState, pid: PlayerId) -> list[Action]:
    if pid not in active_players(state):
        return []
    step = state.pending
    if isinstance(step, OfferStep | EscapeStep):
        return [*capture_moves(state, pid), PASS]
    if isinstance(step, DrawnStep):
        return [*capture_moves(state, pid), PUT_BACK]
    if isinstance(step, AttachStep):
        return [ATTACH[h] for h in state.heroes[pid]]
    if isinstance(step, JamStep):
        return list(JAM_COLOURS)
    if isinstance(step, ShieldStep):
        return list(SHIELDS)
    if isinstance(step, MilkStep):
        return [GIVE[h] for h in state.heroes[pid]]
    if isinstance(step, BurnStep):
        return [BURN[h] for h in state.heroes[pid]]
    if isinstance(step, PeekStep):
        if step.tool == "cereal_compass":
            return [Arrange(order=list(p)) for p in permutations(state.peek)]
        options = effects.keepable(state)
        return [KEEP[c] for c in options] if options else [KEEP[None]]
    if state.stage == "draw":
        return [DRAW]
    # Full Pancake: one action.
    moves: list[Action] = [*capture_moves(state, pid)]
    moves.extend(TAKE[c] for c in state.play if kind(c) in ("hero", "treasure"))
    if state.deck:
        tools = [t for t in owned_treasures(state, pid) if effect(t) in TOOLS]
        moves.extend(USE[t] for t in tools)
        moves.append(DRAW)
    else:
        moves.append(PASS)
    return moves


def is_legal(state: BvaState, pid: PlayerId, action: Action) -> bool:
    return problem(state, pid, action) is None


def listed(state: BvaState, pid: PlayerId, action: Action) -> bool:
    """For an awaited player: ``action in legal_actions(state, pid)``, decided without listing
    them (which searches every capture). Not for captures and Compass orders: :func:`problem`
    checks those itself."""
    step = state.pending
    if isinstance(step, OfferStep | EscapeStep):
        return isinstance(action, Pass)
    if isinstance(step, DrawnStep):
        return isinstance(action, PutBack)
    if isinstance(step, AttachStep):
        return isinstance(action, Attach) and action.hero in state.heroes[pid]
    if isinstance(step, JamStep):
        return isinstance(action, JamColour)
    if isinstance(step, ShieldStep):
        return isinstance(action, Shield)
    if isinstance(step, MilkStep):
        return isinstance(action, Give) and action.hero in state.heroes[pid]
    if isinstance(step, BurnStep):
        return isinstance(action, Burn) and action.hero in state.heroes[pid]
    if isinstance(step, PeekStep):
        if step.tool == "cereal_compass" or not isinstance(action, Keep):
            return False
        options = effects.keepable(state)
        return action.card in options if options else action.card is None
    if state.stage == "draw":
        return isinstance(action, Draw)
    # Full Pancake: one action.
    if isinstance(action, Take):
        return action.card in state.play and kind(action.card) in ("hero", "treasure")
    if not state.deck:
        return isinstance(action, Pass)
    if isinstance(action, Use):
        return action.card in owned_treasures(state, pid) and effect(action.card) in TOOLS
    return isinstance(action, Draw)


def problem(state: BvaState, pid: PlayerId, action: Action) -> str | None:
    """Why ``action`` is refused now (None: it is legal)."""
    if not awaits(state, pid):
        return "It's not your move right now."
    step = state.pending
    if isinstance(action, Capture):
        return capture_problem(state, pid, action)
    if isinstance(action, Arrange):
        if not isinstance(step, PeekStep) or step.tool != "cereal_compass":
            return "You aren't using the Cereal Compass."
        if sorted(action.order) != sorted(state.peek) or len(action.order) != len(state.peek):
            return "Put back exactly the cards you looked at, each once."
        return None
    if listed(state, pid, action):
        return None
    return explain(state, pid, action)


def capture_problem(state: BvaState, pid: PlayerId, action: Capture) -> str | None:
    step = state.pending
    alien = action.alien
    if isinstance(step, OfferStep | DrawnStep):
        where_ok = alien == state.alien
    elif isinstance(step, EscapeStep):
        where_ok = alien in state.escaped
    elif step is None and state.stage == "action":
        where_ok = alien in state.play and kind(alien) == "alien"
    else:
        return "There's no alien to capture right now."
    if not where_ok:
        return "That alien can't be captured right now."
    if not is_valid_capture(state, pid, action, spatula=state.full):
        return "Those heroes don't cover all of the alien's traits."
    return None


def explain(state: BvaState, pid: PlayerId, action: Action) -> str:
    step = state.pending
    if isinstance(action, Draw):
        if not state.deck:
            return "The deck is empty."
        return "You can't draw right now."
    if isinstance(action, Take):
        return "Take a hero or treasure from the play cards on your turn."
    if isinstance(action, Use):
        if not state.deck:
            return "The deck is empty: there's nothing to look at."
        return "Use a Magic Toaster or Cereal Compass of yours, as your action."
    if isinstance(action, Attach | Give | Burn):
        if isinstance(step, AttachStep | MilkStep | BurnStep):
            return "Pick one of your own heroes."
        return "There's nothing to do with a hero right now."
    if isinstance(action, Keep):
        return "Keep a hero or treasure you looked at with the Magic Toaster."
    if isinstance(action, Shield):
        return "You have no Syrup Shield to answer with."
    return "That move isn't allowed right now."


# -- applying a move ------------------------------------------------------------------------------


def apply_action(before: BvaState, pid: PlayerId, action: Action) -> BvaState:
    """The state after a legal move; ``before`` is left as it is (copy-on-write)."""
    state = evolve(before)
    step = state.pending
    if isinstance(action, Capture):
        apply_capture(state, pid, action)
    elif isinstance(action, Pass):
        apply_pass(state, pid)
    elif isinstance(action, Draw):
        if state.full:
            draw_full(state, pid)
        else:
            draw_mini(state, pid)
    elif isinstance(action, PutBack):
        alien = state.alien
        assert alien is not None
        state.deck = [*state.deck, alien]
        state.alien = None
        state.pending = None
        note(state, f"↩️ {player(pid)} put {card(alien).name} at the bottom of the deck.")
    elif isinstance(action, Take):
        state.play = [c for c in state.play if c != action.card]
        state.stage = "end"
        note(state, f"🫳 {player(pid)} took {card_text(state, action.card)}.")
        if kind(action.card) == "hero":
            gain_hero(state, pid, action.card)
        else:
            gain_treasure(state, pid, action.card)
    elif isinstance(action, Use):
        state.stage = "end"
        effects.use_tool(state, pid, action.card)
    elif isinstance(action, Attach):
        assert isinstance(step, AttachStep)
        attach(state, action.hero, step.treasure)
        state.pending = None
        note(
            state,
            f"💎 {player(pid)} attached {card(step.treasure).name} to {card(action.hero).name}.",
        )
    elif isinstance(action, JamColour):
        assert isinstance(step, JamStep)
        state.jam = {**state.jam, step.treasure: action.colour}
        state.pending = None
        place_treasure(state, pid, step.treasure)
    elif isinstance(action, Shield):
        effects.answer_shield(state, pid, action.use)
    elif isinstance(action, Give):
        effects.give(state, pid, action.hero)
    elif isinstance(action, Burn):
        effects.burn(state, pid, action.hero)
    elif isinstance(action, Keep):
        effects.keep(state, pid, action.card)
    else:
        effects.arrange(state, pid, action.order)
    advance(state)
    return state


def apply_capture(state: BvaState, pid: PlayerId, action: Capture) -> None:
    step = state.pending
    capture(state, pid, action)
    if isinstance(step, EscapeStep):
        state.pending = None
        state.escape_passes = 0
        next_escape(state, next_player(state, pid))
    elif step is not None:
        state.pending = None  # an offer (Mini-Muffin) or a drawn alien (Full Pancake)
    else:
        state.stage = "end"


def apply_pass(state: BvaState, pid: PlayerId) -> None:
    step = state.pending
    state.pending = None
    if isinstance(step, OfferStep):
        note(state, f"🙅 {player(pid)} let the alien go by.")
        start_offer(state, step.queue)
    elif isinstance(step, EscapeStep):
        state.escape_passes += 1
        note(state, f"🙅 {player(pid)} passed.")
        next_escape(state, next_player(state, pid))
    else:
        state.stage = "end"  # Full Pancake, deck empty: nothing to do
        note(state, f"🙅 {player(pid)} passed.")


def draw_mini(state: BvaState, pid: PlayerId) -> None:
    top = draw_top(state)
    state.stage = "end"
    what = kind(top)
    if what == "alien":
        state.alien = top
        state.alien_disasters, state.beside = state.beside, []
        note(state, f"🛸 {player(pid)} drew {alien_text(state, top)}!")
        start_offer(state, kit.seat_order_from(state.players, pid))
        return
    note(state, f"🂠 {player(pid)} drew {card_text(state, top)}.")
    if what == "hero":
        gain_hero(state, pid, top)
    elif what == "treasure":
        gain_treasure(state, pid, top)
    else:
        state.beside = [*state.beside, top]


def draw_full(state: BvaState, pid: PlayerId) -> None:
    top = draw_top(state)
    state.stage = "end"
    what = kind(top)
    if what == "disaster":
        effects.reveal_disaster(state, top, refill=False)
    elif what == "alien":
        if can_capture(state, pid, top, spatula=True):
            state.alien = top
            state.pending = DrawnStep(player=pid)
            note(state, f"🛸 {player(pid)} drew {alien_text(state, top)}!")
        else:
            state.deck = [*state.deck, top]
            note(
                state,
                f"🛸 {player(pid)} drew {alien_text(state, top)}, can't capture it: "
                "it goes to the bottom of the deck.",
            )
    elif what == "hero":
        note(state, f"🂠 {player(pid)} drew {card_text(state, top)}.")
        gain_hero(state, pid, top)
    else:
        if effect(top) == "breakfast_rush":
            state.extra_turns += 1
            event(
                state,
                "⚡ Breakfast Rush",
                [
                    f"⚡ {player(pid)} drew a Breakfast Rush: they keep it and take another turn "
                    "after this one."
                ],
            )
        else:
            note(state, f"🂠 {player(pid)} drew {card_text(state, top)}.")
        gain_treasure(state, pid, top)


# -- timeouts and clocks --------------------------------------------------------------------------


def weakest_hero(state: BvaState, pid: PlayerId) -> str:
    """The hero an absent player gives up: the fewest traits and treasures, the latest gained."""
    heroes = state.heroes[pid]
    return min(
        reversed(heroes),
        key=lambda h: len(hero_traits(state, h)) + len(state.attached.get(h, [])),
    )


def rarest_colour(state: BvaState, pid: PlayerId) -> Colour:
    """A Jam Jar's default colour: the one the player's heroes have the fewest of."""
    have = [t for h in state.heroes[pid] for t in hero_traits(state, h)]
    return min(COLOURS, key=lambda c: (have.count(c), COLOURS.index(c)))


def on_timeout(state: BvaState, pid: PlayerId) -> Action:
    """An absent player draws and declines optional captures; other steps take a default."""
    step = state.pending
    if isinstance(step, OfferStep | EscapeStep):
        return PASS
    if isinstance(step, DrawnStep):
        return PUT_BACK
    if isinstance(step, AttachStep):
        return ATTACH[state.heroes[pid][0]]
    if isinstance(step, JamStep):
        return JamColour(colour=rarest_colour(state, pid))
    if isinstance(step, ShieldStep):
        return SHIELDS[1]
    if isinstance(step, MilkStep):
        return GIVE[weakest_hero(state, pid)]
    if isinstance(step, BurnStep):
        return BURN[weakest_hero(state, pid)]
    if isinstance(step, PeekStep):
        if step.tool == "cereal_compass":
            return Arrange(order=list(state.peek))
        options = effects.keepable(state)
        return KEEP[options[0] if options else None]
    if state.stage == "draw" or state.deck:
        return DRAW
    return PASS


def quick_seconds(state: BvaState) -> int:
    return min(QUICK_SECONDS, state.options.turn_timeout)


def clock(state: BvaState) -> Clock | None:
    if state.over:
        return None
    step = state.pending
    if isinstance(step, OfferStep) and step.player != state.current:
        return Clock(key=f"o{state.seq}", seconds=quick_seconds(state), remind=False)
    if isinstance(step, ShieldStep):
        return Clock(key=f"s{state.seq}", seconds=REACTION_SECONDS, remind=False)
    if isinstance(step, MilkStep):
        return Clock(key=f"m{state.seq}", seconds=quick_seconds(state), remind=False)
    if isinstance(step, EscapeStep):
        return Clock(key=f"e{state.seq}", seconds=state.options.turn_timeout)
    return Clock(key=f"t{state.turn}", seconds=state.options.turn_timeout)
