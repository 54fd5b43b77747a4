"""Scoring a tray, and finding the best Joker declarations.

"Next to" = orthogonally adjacent on the same 4×4 tray. A placed tile scores +1 when its condition
holds, −1 when it fails; Jokers score 0; each tile left in hand −1; each House Rule ±1. A Joker
counts as its declared type (and so as an alien or an order) for its neighbours and House Rules.

The best declarations are found exactly: Jokers only affect their conditioned neighbours and the
House Rules, so each group of Jokers sharing a neighbour is searched on its own (branch and bound
over the types that make a difference), once per choice of which House Rules to keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from games.alien_cafe.catalogue import (
    CATEGORIES,
    COLOURS,
    TILES,
    TYPES,
    Cond,
    TileType,
    kind_of,
)
from games.alien_cafe.state import (
    CELLS,
    MAX_ROUNDS,
    SIDE,
    WINS_NEEDED,
    AlienCafeState,
)
from games.engine import Outcome
from games.presentation import player


def _neighbours(cell: int) -> tuple[int, ...]:
    row, col = divmod(cell, SIDE)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < SIDE and 0 <= c < SIDE:
            out.append(r * SIDE + c)
    return tuple(out)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(c) for c in range(CELLS))

Eff = tuple[str, str | None]  # (kind, type) a placed tile counts as


def effective(tile_id: str, decls: Mapping[str, str]) -> Eff:
    t = TILES[tile_id]
    if t.joker:
        declared = decls.get(tile_id)
        if declared is None:
            return (t.kind, None)
        return (kind_of(declared), declared)
    return (t.kind, t.type)


def cond_points(cond: Cond, nbrs: Sequence[Eff]) -> int:
    """+1 if ``cond`` holds given the neighbours' (kind, type), −1 if not, 0 for no condition."""
    if cond.kind == "next_to":
        ok = any(e[1] == cond.target for e in nbrs)
    elif cond.kind == "not_next_to":
        ok = all(e[0] != cond.target for e in nbrs)
    elif cond.kind == "at_least":
        ok = sum(1 for e in nbrs if e[0] == cond.target) >= cond.n
    else:
        return 0
    return 1 if ok else -1


@dataclass
class Evaluation:
    marks: list[int | None]  # per cell: None empty, +1 / −1, 0 for a Joker
    declarations: dict[str, TileType]  # every placed Joker's type (explicit or best)
    house: list[tuple[str, int]]  # (House Rule id, ±1)
    in_hand: int
    total: int = 0
    good: int = 0
    bad: int = 0
    explicit: dict[str, TileType] = field(default_factory=dict)


def evaluate(
    tray: Sequence[str | None],
    decls: Mapping[str, TileType],
    house: Sequence[str],
    in_hand: int,
) -> Evaluation:
    effs: list[Eff | None] = [None if t is None else effective(t, decls) for t in tray]
    marks: list[int | None] = [None] * CELLS
    good = bad = 0
    for cell, tid in enumerate(tray):
        if tid is None:
            continue
        nbrs = [e for n in NEIGHBOURS[cell] if (e := effs[n]) is not None]
        points = cond_points(TILES[tid].cond, nbrs)
        marks[cell] = points
        if points > 0:
            good += 1
        elif points < 0:
            bad += 1
    present = {e[1] for e in effs if e is not None}
    house_marks = [(h, -1 if TILES[h].cond.target in present else 1) for h in house]
    total = good - bad - in_hand + sum(p for _, p in house_marks)
    placed_jokers = {t: d for t, d in decls.items() if t in tray}
    return Evaluation(marks, placed_jokers, house_marks, in_hand, total, good, bad)


def score(
    tray: Sequence[str | None],
    house: Sequence[str],
    in_hand: int,
    explicit: Mapping[str, TileType] | None = None,
) -> Evaluation:
    """The tray's score with the explicit declarations and the best ones for the other Jokers."""
    explicit = dict(explicit or {})
    decls = best_declarations(tray, house, explicit)
    result = evaluate(tray, decls, house, in_hand)
    result.explicit = {t: d for t, d in explicit.items() if t in tray}
    return result


def best_declarations(
    tray: Sequence[str | None],
    house: Sequence[str],
    explicit: Mapping[str, TileType],
) -> dict[str, TileType]:
    """Declarations for every placed Joker: ``explicit`` where given, the best otherwise."""
    decls: dict[str, TileType] = {}
    free: list[int] = []
    for cell, tid in enumerate(tray):
        if tid is not None and TILES[tid].joker:
            if tid in explicit:
                decls[tid] = explicit[tid]
            else:
                free.append(cell)
    if not free:
        return decls
    fixed_types = {TILES[t].type for t in tray if t is not None and not TILES[t].joker}
    fixed_types |= set(decls.values())
    banned = [TILES[h].cond.target for h in house]
    at_stake = sorted({b for b in banned if b not in fixed_types})
    best_total: int | None = None
    best: dict[str, TileType] = {}
    for mask in range(1 << len(at_stake)):
        keep = {b for i, b in enumerate(at_stake) if mask >> i & 1}
        allowed = [t for t in TYPES if t not in keep]
        found, local = _solve(tray, free, decls, allowed)
        total = local + sum((1 if b in keep else -1) for b in banned if b in at_stake)
        if best_total is None or total > best_total:
            best_total, best = total, found
    decls.update(best)
    return decls


def _solve(
    tray: Sequence[str | None],
    free: list[int],
    fixed: Mapping[str, TileType],
    allowed: list[TileType],
) -> tuple[dict[str, TileType], int]:
    """Best types (from ``allowed``) for the Jokers in cells ``free``, and the points of the tiles
    next to them."""
    fixed_effs: list[Eff | None] = [
        None if t is None or (TILES[t].joker and t not in fixed) else effective(t, fixed)
        for t in tray
    ]
    # Conditioned tiles next to a free Joker.
    affected: dict[int, list[int]] = {}
    for cell in free:
        for n in NEIGHBOURS[cell]:
            tid = tray[n]
            if tid is not None and TILES[tid].cond.kind != "none":
                affected.setdefault(n, []).append(cell)
    # Group Jokers sharing an affected tile (union-find).
    parent = {c: c for c in free}

    def root(c: int) -> int:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for jokers in affected.values():
        for other in jokers[1:]:
            parent[root(other)] = root(jokers[0])
    groups: dict[int, list[int]] = {}
    for c in free:
        groups.setdefault(root(c), []).append(c)
    result: dict[str, TileType] = {}
    points = 0
    for members in groups.values():
        tiles = [n for n, js in affected.items() if root(js[0]) == root(members[0])]
        found, got = _solve_group(tray, members, tiles, fixed_effs, allowed)
        points += got
        for cell, t in zip(members, found, strict=True):
            tid = tray[cell]
            assert tid is not None
            result[tid] = t
    return result, points


def _candidates(
    tray: Sequence[str | None], cell: int, allowed: list[TileType], affected: set[int]
) -> list[TileType]:
    """The allowed types that make a difference to this Joker's neighbours (one per outcome),
    its own kind's types first."""
    tid = tray[cell]
    assert tid is not None
    own = COLOURS if TILES[tid].kind == "alien" else CATEGORIES
    ordered = [t for t in allowed if t in own] + [t for t in allowed if t not in own]
    conds = [TILES[t].cond for n in NEIGHBOURS[cell] if n in affected and (t := tray[n])]
    seen: set[tuple[bool, ...]] = set()
    out: list[TileType] = []
    for t in ordered:
        sig = tuple(
            (t == c.target) if c.kind == "next_to" else (kind_of(t) == c.target) for c in conds
        )
        if sig not in seen:
            seen.add(sig)
            out.append(t)
    return out


def _solve_group(
    tray: Sequence[str | None],
    jokers: list[int],
    tiles: list[int],
    fixed_effs: list[Eff | None],
    allowed: list[TileType],
) -> tuple[list[TileType], int]:
    affected = set(tiles)
    cands = [_candidates(tray, c, allowed, affected) for c in jokers]
    index = {c: i for i, c in enumerate(jokers)}
    # For each affected tile: its condition, fixed neighbours, and Joker neighbours (by index).
    specs: list[tuple[Cond, list[Eff], list[int]]] = []
    for n in tiles:
        tid = tray[n]
        assert tid is not None
        fixed = [e for m in NEIGHBOURS[n] if m not in index and (e := fixed_effs[m]) is not None]
        js = [index[m] for m in NEIGHBOURS[n] if m in index]
        specs.append((TILES[tid].cond, fixed, js))
    last = [max(js) for _, _, js in specs]  # the depth after which a tile is decided
    ceiling = len(specs)
    best_points = -len(specs) - 1
    best: list[TileType] = [c[0] for c in cands]
    chosen: list[TileType] = list(best)

    def points_of(k: int) -> int:
        cond, fixed, js = specs[k]
        nbrs = fixed + [(kind_of(chosen[j]), chosen[j]) for j in js]
        return cond_points(cond, nbrs)

    def search(depth: int, decided: int, undecided: int) -> None:
        nonlocal best_points, best
        if best_points == ceiling or decided + undecided <= best_points:
            return
        if depth == len(jokers):
            best_points, best = decided, list(chosen)
            return
        closing = [k for k in range(len(specs)) if last[k] == depth]
        for t in cands[depth]:
            chosen[depth] = t
            got = sum(points_of(k) for k in closing)
            search(depth + 1, decided + got, undecided - len(closing))

    search(0, 0, len(specs))
    return best, best_points


# -- the outcome -----------------------------------------------------------------------------------
def final_summary(state: AlienCafeState) -> list[str]:
    won = state.successes >= WINS_NEEDED
    rounds = len(state.results)
    lines = [
        (
            f"The table won with {state.successes} successful services in {rounds} rounds."
            if won
            else f"The table lost: {state.failures} failed services in {rounds} rounds "
            f"(only {state.successes} succeeded; {WINS_NEEDED} were needed, at most {MAX_ROUNDS} "
            "rounds)."
        )
    ]
    for r in state.results:
        scores = ", ".join(f"{player(p)} {s}" for p, s in r.scores.items())
        lines.append(f"Round {r.round}: {'✅' if r.success else '❌'} {scores}")
    return lines


def progress(state: AlienCafeState) -> list[dict[str, int]]:
    """The table's running points (everyone's together) after each service, oldest first."""
    out: list[dict[str, int]] = []
    running = 0
    for r in state.results:
        running += sum(r.scores.values())
        out.append({"table": running})
    return out


def outcome(state: AlienCafeState) -> Outcome | None:
    if state.phase != "over":
        return None
    won = state.successes >= WINS_NEEDED
    scores = {p: sum(r.scores.get(p, 0) for r in state.results) for p in state.players}
    return Outcome(
        scores=scores,
        winners=list(state.players) if won else [],
        cooperative=True,
        summary=final_summary(state),
        progress=progress(state),
        cleared=cleared(state),
    )


def cleared(state: AlienCafeState) -> dict[str, int]:
    """The highest level each player played in a successful service (0: none)."""
    return {
        p: max((r.levels.get(p, 0) for r in state.results if r.success), default=0)
        for p in state.players
    }
