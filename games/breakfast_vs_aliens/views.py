"""What each viewer may see: everything on the table is public; only the draw deck is hidden,
and the cards a player peeks at with the Magic Toaster or Cereal Compass are theirs alone."""

from __future__ import annotations

from pydantic import BaseModel

from games.breakfast_vs_aliens.capture import alien_need, hero_traits
from games.breakfast_vs_aliens.catalogue import (
    COLOURS,
    EFFECT_TEXT,
    Colour,
    Kind,
    card,
)
from games.breakfast_vs_aliens.rules import active_players
from games.breakfast_vs_aliens.scoring import card_points, score
from games.breakfast_vs_aliens.state import BvaState, MilkStep, Mode, PeekStep, Stage
from games.engine import PlayerId


class CardView(BaseModel):
    id: str
    kind: Kind
    name: str
    traits: list[Colour]  # heroes: with their treasures' colours; aliens: with stacked disasters
    points: int = 0  # aliens (and disasters in a jail)
    text: str = ""  # Full Pancake: the card's text; Mini-Muffin: the colour bar's colour


class HeroView(BaseModel):
    card: CardView
    treasures: list[CardView]


class SeatView(BaseModel):
    player: PlayerId
    heroes: list[HeroView]
    waiting: list[CardView]  # treasures waiting for this player's next hero
    jail: list[CardView]
    score: int


class PublicView(BaseModel):
    mode: Mode
    stage: Stage
    current: PlayerId
    awaiting: list[PlayerId]
    step: str  # the kind of decision awaited ("" for a plain turn)
    deck_count: int
    play: list[CardView]
    alien: CardView | None
    alien_disasters: list[CardView]
    beside: list[CardView]
    disaster: CardView | None
    escaped: list[CardView]
    discard_count: int  # face up, but only the count is shown
    seats: list[SeatView]
    peeking: PlayerId | None  # who is looking at deck cards (not which)
    peek_count: int
    milk_chosen: list[PlayerId]  # Spilled Milk: who has picked (not which hero)
    extra_turns: int
    log: list[str]


class PrivateView(BaseModel):
    table: PublicView  # what everyone sees
    peek: list[CardView]  # the cards you are looking at, top first
    milk_choice: str | None  # the hero you pass (Spilled Milk)


def card_view(state: BvaState, card_id: str, *, jailed: bool = False) -> CardView:
    c = card(card_id)
    traits: list[Colour] = []
    text = ""
    if c.kind == "hero":
        traits = hero_traits(state, card_id)
    elif c.kind == "alien":
        need = alien_need(state, card_id)
        traits = [colour for colour, n in zip(COLOURS, need, strict=True) for _ in range(n)]
    elif state.full:
        text = EFFECT_TEXT[c.effect]
        if card_id in state.jam:
            traits = [state.jam[card_id]]
    elif c.bar is not None:
        traits = [c.bar]
    points = card_points(state, card_id) if (jailed or c.kind == "alien") else 0
    return CardView(id=card_id, kind=c.kind, name=c.name, traits=traits, points=points, text=text)


def seat_view(state: BvaState, pid: PlayerId) -> SeatView:
    return SeatView(
        player=pid,
        heroes=[
            HeroView(
                card=card_view(state, h),
                treasures=[card_view(state, t) for t in state.attached.get(h, [])],
            )
            for h in state.heroes[pid]
        ],
        waiting=[card_view(state, t) for t in state.waiting[pid]],
        jail=[card_view(state, c, jailed=True) for c in state.jails[pid]],
        score=score(state, pid),
    )


def public_view(state: BvaState) -> PublicView:
    step = state.pending
    return PublicView(
        mode=state.options.mode,
        stage=state.stage,
        current=state.current,
        awaiting=[p for p in state.players if p in active_players(state)],
        step=step.kind if step is not None else "",
        deck_count=len(state.deck),
        play=[card_view(state, c) for c in state.play],
        alien=card_view(state, state.alien) if state.alien else None,
        alien_disasters=[card_view(state, d) for d in state.alien_disasters],
        beside=[card_view(state, d) for d in state.beside],
        disaster=card_view(state, state.disaster) if state.disaster else None,
        escaped=[card_view(state, a) for a in state.escaped],
        discard_count=len(state.discard),
        seats=[seat_view(state, p) for p in state.players],
        peeking=step.player if isinstance(step, PeekStep) else None,
        peek_count=len(state.peek),
        milk_chosen=(
            [p for p in state.players if p in step.chosen] if isinstance(step, MilkStep) else []
        ),
        extra_turns=state.extra_turns,
        log=list(state.log),
    )


def private_view(state: BvaState, viewer: PlayerId) -> PrivateView:
    step = state.pending
    mine = isinstance(step, PeekStep) and step.player == viewer
    milk = step.chosen.get(viewer) if isinstance(step, MilkStep) else None
    return PrivateView(
        table=public_view(state),
        peek=[card_view(state, c) for c in state.peek] if mine else [],
        milk_choice=milk,
    )
