"""How a session's state is written: one transaction with its log entries, its timers and
what it posts (the outbox), the cached copy updated after."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bot.core.ratings import rated_as
from bot.core.seats import is_robot, robot_level
from bot.core.service.loading import Loading
from bot.core.service.model import Session, changed, notice
from bot.core.state_json import state_text
from bot.core.store import CHANNEL, NewAction, NewPost, NewResult, SessionStatus, TimerRow
from games.engine import Clock, Game, GameState, Outcome, clock_key


@dataclass(frozen=True)
class Written:
    """A change as committed: the session as now stored, and whether the change put anything
    in the outbox (its listeners must then send it: a move's log line alone is a post too)."""

    session: Session
    posted: bool
    timers_stand: bool = False  # the timers are as they were (the same timed step, or none)


class Writing(Loading):
    """Commits a game's new state (the moves, the undos, the deadlines)."""

    async def _commit(
        self,
        s: Session,
        old: GameState,
        new: GameState,
        log: list[NewAction],
        posts: list[NewPost] | None = None,
        *,
        settle_undo: bool = False,
    ) -> Written:
        """Write ``new``, its log entries and what it must post; return the session as now
        stored, and whether anything was posted."""
        try:
            written = await self._write_state(s, old, new, log, posts or [], settle_undo)
        except BaseException:
            self.forget(s.id)  # e.g. a stale version: read the truth next time
            raise
        latest = self._cache.get(s.id)
        if latest is not None and latest is not s and latest.version == s.version:
            # What shows the session was recorded while this wrote (a DM, by the sync worker):
            # keep it, or the cache would go back to the messages shown before.
            committed = written.session
            row = changed(
                committed.row,
                shown=latest.row.shown,
                table_message_id=latest.row.table_message_id,
            )
            committed = changed(committed, row=row, players=latest.players)
            written = Written(committed, written.posted, written.timers_stand)
        self._cached(written.session)
        return written

    async def _write_state(
        self,
        s: Session,
        old: GameState,
        new: GameState,
        log: list[NewAction],
        posts: list[NewPost],
        settle_undo: bool = False,
    ) -> Written:
        outcome = s.game.outcome(new)
        clock = s.game.clock(new)  # asked once a move: each game's clock is a few rules' work
        old_key, new_key = clock_key(s.game, old), clock.key if clock is not None else None
        same_step = outcome is None and old_key is not None and old_key == new_key
        state_json = self._state_json.dump(s.id, new) if s.game.copy_on_write else state_text(new)
        status = SessionStatus.FINISHED if outcome is not None else SessionStatus.ACTIVE
        outcome_json = outcome.model_dump_json() if outcome is not None else None
        timers = [] if same_step or outcome is not None else self._clock_timers(clock)
        already = s.row.announced
        moved_at = self._note_moves(s.id, log)
        # Most moves post nothing: no list built and joined for each kind of post.
        outbox = _news_posts(s.game, old, new, already)
        if len(new.announcements) > already:
            # Who is at the table matters only to new announcements (most moves make none).
            at_the_table = frozenset() if moved_at is None else self._at_the_table(s.id, moved_at)
            outbox += _announcement_posts(new, already, at_the_table)
        outbox += posts
        if outcome is not None:
            outbox += _result_posts(s, outcome)
        if outbox:
            outbox = self._held(s.id, outbox)
        await self.store.commit_state(
            s.id,
            s.version,
            state=state_json,
            status=status,
            new_actions=log,
            outcome=outcome_json,
            timers=timers,
            keep_timers=same_step,
            posts=outbox,
            announced=len(new.announcements),
            results=_results_of(s, outcome),
            settle_undo=settle_undo or outcome is not None,  # no undo once it is over
            status_was=s.status,
        )
        if not same_step:
            self._deadlines[s.id] = next((t for t in timers if t.kind == "deadline"), None)
        row = changed(
            s.row,
            state=state_json,
            status=status,
            outcome=outcome_json,
            version=s.version + 1,
            announced=len(new.announcements),
        )
        stand = outcome is None and old_key == new_key
        return Written(changed(s, row=row, state=new), posted=bool(outbox), timers_stand=stand)

    def _held(self, session_id: int, posts: list[NewPost]) -> list[NewPost]:
        """A change's posts, marked to wait for later ones when the session posted a moment
        ago (in a quick game several moves then share one message in its thread)."""
        if not any(p.joins_others for p in posts):
            return posts
        now = time.time()  # the outbox's clock: Discord's rate limits run on wall time
        last = self._last_posted.get(session_id)
        self._last_posted[session_id] = now
        if self.post_coalesce <= 0 or last is None or now - last >= self.post_coalesce:
            return posts
        hold = {"hold": self.post_coalesce}
        return [NewPost({**p.payload, **hold}, p.target) if p.joins_others else p for p in posts]

    def _note_moves(self, session_id: int, log: list[NewAction]) -> float | None:
        """Note when the players of the moves being written moved (a deadline's move is
        nobody's presence), and return that moment; None when nobody is pinged for being
        away (``ping_after_idle`` off: nothing is noted)."""
        if self.ping_after_idle <= 0:
            return None
        now = self.now()
        moved = self._last_moved.get(session_id)
        if moved is None:
            moved = self._last_moved[session_id] = {}
        else:  # the newest written now, as writing it again would make it (without the copy)
            self._last_moved.move_to_end(session_id)
        for entry in log:
            if entry.source == "player" and entry.undoes is None:
                moved[entry.player] = now
        return now

    def _at_the_table(self, session_id: int, now: float) -> frozenset[str]:
        """The players of the session who moved less than ``ping_after_idle`` seconds before
        ``now`` (the moves being written noted already: ``_note_moves``)."""
        moved = self._last_moved.get(session_id) or {}
        return frozenset(p for p, at in moved.items() if now - at < self.ping_after_idle)

    def _timers(self, game: Game[Any, Any], state: GameState) -> list[TimerRow]:
        return [] if game.outcome(state) is not None else self._clock_timers(game.clock(state))

    def _clock_timers(self, clock: Clock | None) -> list[TimerRow]:
        if clock is None:
            return []
        now = self.now()
        timers = [TimerRow(0, "deadline", clock.key, now + clock.seconds)]
        if clock.remind:
            timers.append(TimerRow(0, "reminder", clock.key, now + clock.seconds / 2))
        return timers


def _announcement_posts(
    state: GameState, already: int, at_the_table: frozenset[str] = frozenset()
) -> list[NewPost]:
    """The new announcements. A "whose turn" notice is for the people awaited: it pings the
    human players it names, and a bot seat's turn is not announced (nobody needs it). No
    announcement pings a player at the table (see ``ping_after_idle``): they see it come."""
    posts = []
    for a in state.announcements[already:]:
        humans = [p for p in a.ping if not is_robot(p)]
        if a.kind == "turn" and a.ping and not humans:
            continue
        if a.ping:
            a = a.model_copy(update={"ping": [p for p in humans if p not in at_the_table]})
        posts.append(NewPost({"announcement": a.model_dump(mode="json")}, target=CHANNEL))
    return posts


def _news_posts(
    game: Game[Any, Any], old: GameState, new: GameState, already: int
) -> list[NewPost]:
    """The move's lines for the game's log (its thread), in one notice; a line that one of the
    move's announcements already tells is left out."""
    lines = game.news(old, new)
    if not lines:  # most moves of most games (Café Carnage's announcements tell everything)
        return []
    told = "\n".join(
        "\n".join([a.description, *(f.value for f in a.fields)])
        for a in new.announcements[already:]
    )
    lines = [line for line in lines if line not in told]
    return [notice("\n".join(lines))] if lines else []


def _results_of(s: Session, outcome: Outcome | None) -> list[NewResult] | None:
    if outcome is None:
        return None
    return [
        NewResult(
            p,
            score,
            p in outcome.winners,
            outcome.cooperative,
            rated_as=rated_as(p, seat_level(s, p)),
            level=outcome.cleared.get(p) if outcome.cooperative else None,
        )
        for p, score in outcome.scores.items()
    ]


def seat_level(s: Session, player: str) -> str | None:
    """A bot seat's level, which its rating is kept under (None for a person's seat)."""
    if not is_robot(player):
        return None
    seat = s.player(player)
    return robot_level(seat.name) if seat is not None else None


def _result_posts(s: Session, outcome: Outcome | None) -> list[NewPost]:
    """The end of a game: one last post with the standings, the chart and the rematch."""
    if outcome is None:
        return []
    result = {
        "game": s.game.id,
        "outcome": outcome.model_dump(mode="json"),
        "seed": s.row.seed,  # revealed now that the game is over
        "commitment": s.commitment,
    }
    return [NewPost({"result": result})]
