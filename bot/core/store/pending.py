"""What waits to happen: timers, the outbox's posts and undo requests, and the claims a shared
backend makes on them (and on the right to present a session) so that one process acts on
each.
"""

from __future__ import annotations

import time

from bot.core.errors import NotAllowed
from bot.core.store.core import StoreCore, Tx
from bot.core.store.rows import NewPost, PostRow, TimerRow, UndoRequestRow, row_of


class Pending(StoreCore):
    """Timers, posts and undo requests; the claims."""

    # -- claims (one owner: nothing to claim against; a shared backend overrides these) ----------
    async def claim_due_timers(self, now: float) -> tuple[list[TimerRow], float | None]:
        """The timers due at ``now``, taken by this process (no other fires them while the
        claim lasts), and when the next one falls due (None: no timer)."""
        # Two indexed reads (timers_due), not every timer: the scheduler asks after each step.
        rows = await self._fetch(
            "SELECT * FROM timers WHERE due_at <= ? ORDER BY due_at, session_id, kind", (now,)
        )
        upcoming = await self._one("SELECT MIN(due_at) AS due FROM timers WHERE due_at > ?", (now,))
        nxt = upcoming["due"] if upcoming else None
        return [row_of(TimerRow, r) for r in rows], float(nxt) if nxt is not None else None

    async def claim_posts(self, session_id: int, now: float) -> list[PostRow]:
        """The unsent posts of a session, oldest first, taken by this process: none while
        another process holds some of them (they go out in order, from one process)."""
        return await self.unsent_posts(session_id)

    async def acquire_presentation(self, session_id: int) -> tuple[bool, bool]:
        """Take the right to edit and post a session's messages (one process at a time):
        (held, taken over: another process presented it last, so what this one remembers of
        its messages is out of date)."""
        return True, False

    async def release_presentation(self, session_id: int) -> None:
        return None

    # -- timers ----------------------------------------------------------------------------------
    async def post_and_delete_timer(
        self, session_id: int, kind: str, key: str, posts: list[NewPost]
    ) -> bool:
        """Replace a fired timer by what it must post, in one transaction (a reminder is
        either still due or in the outbox, never lost between the two). Deleting the row is
        the claim: when it is already gone (fired by another process), nothing is posted and
        this returns False."""

        async def work(tx: Tx) -> bool:
            deleted = await tx.execute(
                "DELETE FROM timers WHERE session_id = ? AND kind = ? AND key = ?",
                (session_id, kind, key),
            )
            if deleted:
                await self._insert_posts(tx, session_id, posts)
            return deleted > 0

        return await self._write(work)

    async def delete_timer(self, session_id: int, kind: str, key: str) -> None:
        shown = self.shared and kind == "deadline"

        async def work(tx: Tx) -> None:
            deleted = await tx.execute(
                "DELETE FROM timers WHERE session_id = ? AND kind = ? AND key = ?",
                (session_id, kind, key),
            )
            if deleted and shown:  # the table shows the deadline: see shift_timers
                await tx.execute(
                    "UPDATE sessions SET shown = shown + 1 WHERE id = ?", (session_id,)
                )

        await self._write(work)

    async def shift_timers(self, session_ids: list[int], after: float, by: float) -> None:
        """Push back timers of these sessions that were still pending at ``after`` by ``by``."""
        if not session_ids or by <= 0:
            return
        marks = ",".join("?" for _ in session_ids)
        async with self._transaction() as tx:
            await tx.execute(
                f"UPDATE timers SET due_at = due_at + ? WHERE due_at > ? "
                f"AND session_id IN ({marks})",
                (by, after, *session_ids),
            )
            if self.shared:
                # The deadlines a table shows changed without a new version: `shown` tells the
                # processes that cached them (the session service's deadline cache).
                await tx.execute(
                    f"UPDATE sessions SET shown = shown + 1 WHERE id IN ({marks})", session_ids
                )

    # -- the outbox ------------------------------------------------------------------------------
    async def unsent_posts(self, session_id: int) -> list[PostRow]:
        if session_id in self._outbox_empty:
            return []
        rows = await self._fetch(
            "SELECT * FROM outbox WHERE session_id = ? AND sent_at IS NULL ORDER BY id",
            (session_id,),
        )
        if not rows and not self.shared:
            self._outbox_empty.add(session_id)
        return [row_of(PostRow, r) for r in rows]

    async def sessions_with_posts_due(self, now: float) -> list[int]:
        rows = await self._fetch(
            "SELECT DISTINCT session_id FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ? "
            "AND (claimed_until IS NULL OR claimed_until < ? OR claimed_by = ?) ORDER BY session_id",
            (now, now, self.process_id),
        )
        return [int(r["session_id"]) for r in rows]

    async def next_post_due(self) -> float | None:
        """When the next unsent post may be tried (by this process or, its claim over, any)."""
        row = await self._one(
            "SELECT MIN(CASE WHEN claimed_until > next_attempt_at AND claimed_by <> ? "
            "THEN claimed_until ELSE next_attempt_at END) AS due FROM outbox WHERE sent_at IS NULL",
            (self.process_id,),
        )
        return float(row["due"]) if row and row["due"] is not None else None

    async def mark_posted(
        self, post_ids: list[int], message_id: int | None, *, failure: str | None = None
    ) -> None:
        """Done with posts sent as one message (with its id), or given up (``failure`` says
        why): in one transaction, so a crash never leaves part of a message's posts unsent (they
        would go again as another message)."""
        now = time.time()

        async def work(tx: Tx) -> None:
            for post_id in post_ids:
                await tx.execute(
                    "UPDATE outbox SET sent_at = ?, message_id = ?, failure = ? WHERE id = ?",
                    (now, message_id, failure, post_id),
                )

        await self._write(work)

    async def retry_post_later(self, post_id: int, at: float, failure: str) -> None:
        await self._run(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, failure = ? "
            "WHERE id = ?",
            (at, failure, post_id),
        )

    async def posts(self, session_id: int) -> list[PostRow]:
        """Every post of a session, sent or not (for tests and inspection)."""
        rows = await self._fetch(
            "SELECT * FROM outbox WHERE session_id = ? ORDER BY id", (session_id,)
        )
        return [row_of(PostRow, r) for r in rows]

    # -- undo requests ---------------------------------------------------------------------------
    async def undo_request(self, session_id: int) -> UndoRequestRow | None:
        row = await self._one("SELECT * FROM undo_requests WHERE session_id = ?", (session_id,))
        return row_of(UndoRequestRow, row) if row else None

    async def undo_requests_due(self, now: float) -> list[UndoRequestRow]:
        rows = await self._fetch(
            "SELECT * FROM undo_requests WHERE due_at <= ? ORDER BY due_at", (now,)
        )
        return [row_of(UndoRequestRow, r) for r in rows]

    async def next_undo_due(self) -> float | None:
        row = await self._one("SELECT MIN(due_at) AS due FROM undo_requests")
        return float(row["due"]) if row and row["due"] is not None else None

    async def ask_undo(self, request: UndoRequestRow, posts: list[NewPost]) -> None:
        """Store a request (refused if the session has one already) and what it posts."""
        try:
            async with self._transaction() as tx:
                await tx.execute(
                    "INSERT INTO undo_requests (session_id, seq, player, agreed, asked_at, "
                    "due_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        request.session_id,
                        request.seq,
                        request.player,
                        request.agreed,
                        request.asked_at,
                        request.due_at,
                    ),
                )
                await self._insert_posts(tx, request.session_id, posts)
        except self._conflicts:
            raise NotAllowed(
                "Someone's undo is already being asked at this table: wait until it is settled."
            ) from None

    async def agree_undo(self, session_id: int, seq: int, user_id: str) -> list[str] | None:
        """Add ``user_id`` to those who agreed to the undo of move ``seq``, in one statement
        (two players agreeing at once, through two processes, are both counted). Returns who
        agreed so far; None when that request is over."""

        async def work(tx: Tx) -> list[str] | None:
            rows = await tx.fetch(
                "UPDATE undo_requests SET agreed = CASE WHEN agreed = '' THEN CAST(? AS TEXT) "
                "WHEN (',' || agreed || ',') LIKE ('%,' || CAST(? AS TEXT) || ',%') THEN agreed "
                "ELSE agreed || ',' || CAST(? AS TEXT) END WHERE session_id = ? AND seq = ? "
                "RETURNING agreed",
                (user_id, user_id, user_id, session_id, seq),
            )
            return [p for p in str(rows[0]["agreed"]).split(",") if p] if rows else None

        return await self._write(work)

    async def drop_undo(self, session_id: int, posts: list[NewPost]) -> bool:
        """The request is settled without an undo (refused, or no longer possible). Deleting
        the row is the claim: when it is already gone (settled by another process), nothing is
        posted and this returns False."""

        async def work(tx: Tx) -> bool:
            deleted = await tx.execute(
                "DELETE FROM undo_requests WHERE session_id = ?", (session_id,)
            )
            if deleted:
                await self._insert_posts(tx, session_id, posts)
            return deleted > 0

        return await self._write(work)
