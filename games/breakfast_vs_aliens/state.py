"""Options, moves, decision steps and the state of Breakfast vs Aliens (pydantic, JSON-exact)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games import kit
from games.breakfast_vs_aliens.catalogue import Colour
from games.engine import GameState, PlayerId

Mode = Literal["mini-muffin", "full-pancake"]


class BvaOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Mode = Field(
        default="mini-muffin",
        description="Mini-Muffin (ages 3+): card texts ignored, colour bars count. "
        "Full Pancake (ages 8+): three play cards and the card texts.",
    )
    turn_timeout: int = kit.timer_field(
        kit.DAY,
        "How long a turn waits; then the absent player draws and declines optional captures.",
    )


# -- moves ----------------------------------------------------------------------------------------
# Frozen: one instance may be shared by every legal-move list that offers it (see rules.py).


class _Move(BaseModel):
    model_config = ConfigDict(frozen=True)


class Draw(_Move):
    """Draw the top card of the deck (Mini-Muffin: your turn; Full Pancake: your action)."""

    type: Literal["draw"] = "draw"


class Capture(_Move):
    """Capture ``alien`` with these heroes of yours (Full Pancake: ``ignore`` one of its traits
    with a Golden Spatula you own)."""

    type: Literal["capture"] = "capture"
    alien: str
    heroes: list[str]
    ignore: Colour | None = None


class Pass(_Move):
    """Decline: a capture offer, an escape-pile turn, or (empty deck) your last action."""

    type: Literal["pass"] = "pass"


class PutBack(_Move):
    """Full Pancake: put the alien you drew at the bottom of the deck."""

    type: Literal["put_back"] = "put_back"


class Take(_Move):
    """Full Pancake: take a hero or treasure from the play cards."""

    type: Literal["take"] = "take"
    card: str


class Use(_Move):
    """Full Pancake: use your Magic Toaster or Cereal Compass (your action)."""

    type: Literal["use"] = "use"
    card: str


class Attach(_Move):
    """Attach the treasure you just gained to this hero of yours."""

    type: Literal["attach"] = "attach"
    hero: str


class JamColour(_Move):
    """Full Pancake: the colour your new Jam Jar gives its hero."""

    type: Literal["jam"] = "jam"
    colour: Colour


class Shield(_Move):
    """A disaster was revealed: cancel it with your Syrup Shield (use) or let it happen."""

    type: Literal["shield"] = "shield"
    use: bool


class Give(_Move):
    """Spilled Milk: pass this hero of yours to the player on your left."""

    type: Literal["give"] = "give"
    hero: str


class Burn(_Move):
    """Burnt Toast: discard this hero of yours (with its treasures)."""

    type: Literal["burn"] = "burn"
    hero: str


class Keep(_Move):
    """Magic Toaster: keep this peeked card (None: nothing there is a hero or treasure)."""

    type: Literal["keep"] = "keep"
    card: str | None = None


class Arrange(_Move):
    """Cereal Compass: put the peeked cards back on top in this order (first = top)."""

    type: Literal["arrange"] = "arrange"
    order: list[str]


Action = (
    Draw
    | Capture
    | Pass
    | PutBack
    | Take
    | Use
    | Attach
    | JamColour
    | Shield
    | Give
    | Burn
    | Keep
    | Arrange
)
ActionUnion = Annotated[Action, Field(discriminator="type")]
action_adapter: TypeAdapter[Action] = TypeAdapter(ActionUnion)


# -- decision steps -------------------------------------------------------------------------------


class OfferStep(BaseModel):
    """Mini-Muffin: the drawn alien is offered to ``player``; ``queue``: who comes after."""

    kind: Literal["offer"] = "offer"
    player: PlayerId
    queue: list[PlayerId] = Field(default_factory=list)


class DrawnStep(BaseModel):
    """Full Pancake: ``player`` drew an alien they can capture; capture it or put it back."""

    kind: Literal["drawn"] = "drawn"
    player: PlayerId


class AttachStep(BaseModel):
    """``player`` chooses the hero that gets ``treasure``."""

    kind: Literal["attach"] = "attach"
    player: PlayerId
    treasure: str


class JamStep(BaseModel):
    """Full Pancake: ``player`` chooses the colour of the Jam Jar ``treasure``."""

    kind: Literal["jam"] = "jam"
    player: PlayerId
    treasure: str


class ShieldStep(BaseModel):
    """Full Pancake: a disaster was revealed; Syrup Shield holders may cancel it."""

    kind: Literal["shield"] = "shield"
    waiting: list[PlayerId]  # holders who have not answered yet
    refill: bool  # revealed while refilling the play cards (a cancelled one lets the refill go on)


class MilkStep(BaseModel):
    """Full Pancake, Spilled Milk: everyone with a hero picks one to pass left."""

    kind: Literal["milk"] = "milk"
    chosen: dict[PlayerId, str] = Field(default_factory=dict)  # shown once everyone chose
    waiting: list[PlayerId] = Field(default_factory=list)


class BurnStep(BaseModel):
    """Full Pancake, Burnt Toast: ``player`` discards one of their heroes."""

    kind: Literal["burn"] = "burn"
    player: PlayerId


class PeekStep(BaseModel):
    """Full Pancake: ``player`` looks at the cards in ``state.peek`` (privately)."""

    kind: Literal["peek"] = "peek"
    player: PlayerId
    tool: Literal["magic_toaster", "cereal_compass"]


class EscapeStep(BaseModel):
    """Mini-Muffin endgame: ``player`` may capture one alien from the escape pile."""

    kind: Literal["escape"] = "escape"
    player: PlayerId


Step = Annotated[
    OfferStep
    | DrawnStep
    | AttachStep
    | JamStep
    | ShieldStep
    | MilkStep
    | BurnStep
    | PeekStep
    | EscapeStep,
    Field(discriminator="kind"),
]

# Where the current turn is: Mini-Muffin "draw"; Full Pancake "refill" then "action"; both "end"
# once the turn's move is made (pending steps may still follow), "escape" for the Mini-Muffin
# endgame, "over" at the end.
Stage = Literal["draw", "refill", "action", "end", "escape", "over"]


class BvaState(GameState):
    options: BvaOptions
    # Cards: every one of the 60 ids is in exactly one of these places (check_invariants).
    deck: list[str]  # index 0 is the top
    play: list[str] = Field(default_factory=list)  # Full Pancake: the face-up play cards
    heroes: dict[PlayerId, list[str]]
    attached: dict[str, list[str]] = Field(default_factory=dict)  # hero id → its treasures
    waiting: dict[PlayerId, list[str]]  # treasures waiting for their owner's next hero
    jam: dict[str, Colour] = Field(
        default_factory=dict
    )  # Full Pancake: each owned Jam Jar's colour
    # Disasters beside the deck. Mini-Muffin: they stack their colours on the next alien drawn.
    # Full Pancake: Alien Reinforcements waiting for the next capture.
    beside: list[str] = Field(default_factory=list)
    alien: str | None = None  # the alien on offer (Mini-Muffin) or just drawn (Full Pancake)
    alien_disasters: list[str] = Field(default_factory=list)  # Mini-Muffin: stacked on ``alien``
    disaster: str | None = None  # Full Pancake: revealed, waiting for the Syrup Shield holders
    peek: list[str] = Field(default_factory=list)  # Magic Toaster / Cereal Compass (private)
    jails: dict[PlayerId, list[str]]
    escaped: list[str] = Field(default_factory=list)
    discard: list[str] = Field(default_factory=list)
    # Whose turn and where it is.
    current: PlayerId
    stage: Stage
    pending: Step | None = None
    turn: int = 0  # counts turns (extra turns included); the turn clock's key
    seq: int = 0  # counts quick steps (capture offers to others, reactions, ...): their clock keys
    extra_turns: int = 0  # Full Pancake: Breakfast Rush turns owed to the current player
    last_card_drawn: bool = False
    # Full Pancake stalemate guard: turns in a row with no capture and no card leaving the deck.
    idle_turns: int = 0
    turn_deck: int = 0  # deck size when the current turn began
    turn_jailed: int = 0  # cards in jails when the current turn began
    escape_passes: int = 0  # Mini-Muffin endgame: players in a row who did not capture
    log: list[str] = Field(default_factory=list)  # recent public events for the table, newest last
    # Running scores, one snapshot at the start and one after each capture (the end chart).
    progress: list[dict[PlayerId, int]] = Field(default_factory=list)
    end_reason: str = ""

    @property
    def full(self) -> bool:
        return self.options.mode == "full-pancake"

    def __setattr__(self, name: str, value: Any) -> None:
        # A move assigns a dozen fields of its own new state (copy-on-write: see rules.py), where
        # every field counts as set already (see kit.evolve and setup): a plain write skips
        # pydantic's bookkeeping of the fields set (about a tenth of a move's time). No field is
        # validated on assignment anyway.
        if name in STATE_FIELDS:
            self.__dict__[name] = value
        else:
            super().__setattr__(name, value)

    @property
    def over(self) -> bool:
        return self.stage == "over"


STATE_FIELDS: frozenset[str] = frozenset(BvaState.model_fields)


def outside_deck(state: BvaState) -> list[str]:
    """Every card not in the draw deck, wherever it lies: with the deck, each of the game's
    cards once (``check_invariants``). In a seat's view, as that seat sees them (a card it may
    not see, another player's peek, is a token): what a sampled deck must leave out
    (``thinking.deal``). One list for both, so they cannot drift apart."""
    cards = [*state.play, *state.beside, *state.escaped, *state.discard, *state.peek]
    cards += state.alien_disasters
    if state.alien is not None:
        cards.append(state.alien)
    if state.disaster is not None:
        cards.append(state.disaster)
    if isinstance(state.pending, AttachStep | JamStep):
        cards.append(state.pending.treasure)  # in the gainer's hand, being placed
    for p in state.players:
        cards += state.heroes[p] + state.waiting[p] + state.jails[p]
    for treasures in state.attached.values():
        cards += treasures
    return cards
