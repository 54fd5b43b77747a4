"""What each viewer may see: the public view (progress, trays by face, requests and offers by
type) and a player's private view (their own tiles, with ids)."""

from __future__ import annotations

from pydantic import BaseModel

from games.alien_cafe.catalogue import TILES
from games.alien_cafe.scoring import Evaluation, score
from games.alien_cafe.state import MAX_ROUNDS, AlienCafeState, RoundResult, Seat


class TileView(BaseModel):
    id: str | None = None  # only in its owner's view
    label: str
    text: str


class PlayerPublic(BaseModel):
    player: str
    ready: bool
    level: int | None  # None while still choosing
    done: bool
    placed: int
    in_hand: int
    score_now: int | None
    tray: list[str | None]  # tile faces, row-major (no ids)
    request: str | None = None  # the tile type asked for
    offer: str | None = None  # the type of the tile offered (never which tile)


class PublicView(BaseModel):
    round: int
    max_rounds: int
    phase: str
    successes: int
    failures: int
    red_bag: int
    blue_bag: int
    players: list[PlayerPublic]
    results: list[RoundResult]


class PrivateView(PublicView):
    me: str
    my_level: int
    hand: list[TileView]
    my_tray: list[TileView | None]
    house: list[TileView]
    held: str | None
    declared: dict[str, str]
    best_declarations: dict[str, str]
    marks: list[int | None]
    my_score: int | None
    my_offer: str | None = None  # the id of my offered tile


def tile_view(tile_id: str, with_id: bool) -> TileView:
    t = TILES[tile_id]
    return TileView(id=tile_id if with_id else None, label=t.label, text=t.text)


def evaluation(seat: Seat) -> Evaluation:
    return score(seat.tray, seat.house, len(seat.hand), seat.declared)


def offered_type(tile_id: str) -> str:
    t = TILES[tile_id]
    return t.type or ("alien joker" if t.kind == "alien" else "order joker")


def public_view(state: AlienCafeState) -> PublicView:
    players = []
    service = state.phase == "service"
    for pid in state.players:
        seat = state.seats[pid]
        players.append(
            PlayerPublic(
                player=pid,
                ready=seat.ready,
                level=seat.level if (seat.ready or service) else None,
                done=seat.done,
                placed=sum(1 for t in seat.tray if t is not None),
                in_hand=len(seat.hand),
                score_now=evaluation(seat).total if service else None,
                tray=[None if t is None else TILES[t].label for t in seat.tray],
                request=seat.request,
                offer=None if seat.offer is None else offered_type(seat.offer),
            )
        )
    return PublicView(
        round=state.round,
        max_rounds=MAX_ROUNDS,
        phase=state.phase,
        successes=state.successes,
        failures=state.failures,
        red_bag=len(state.red),
        blue_bag=len(state.blue),
        players=players,
        results=state.results,
    )


def private_view(state: AlienCafeState, pid: str) -> PrivateView:
    seat = state.seats[pid]
    ev = evaluation(seat)
    base = public_view(state)
    return PrivateView(
        **base.model_dump(),
        me=pid,
        my_level=seat.level,
        hand=[tile_view(t, True) for t in seat.hand],
        my_tray=[None if t is None else tile_view(t, True) for t in seat.tray],
        house=[tile_view(t, True) for t in seat.house],
        held=seat.held,
        declared=dict(seat.declared),
        best_declarations=dict(ev.declarations),
        marks=ev.marks,
        my_score=ev.total if state.phase == "service" else None,
        my_offer=seat.offer,
    )
