"""Writes of sessions: the memo, lobbies, a game's states (a move with its log entries, posts,
timers and, at the end, its results), its status, and what shows it (its table message, its
players' DMs). A change of state is one transaction guarded by ``version``.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from bot.core.errors import NotAllowed
from bot.core.store import rating_sql
from bot.core.store.core import Statement, StoreCore, Tx, bump_statement, bumped
from bot.core.store.rows import MoveWrite, NewAction, NewPost, NewResult, TimerRow
from bot.core.store.standings import add_to_totals, insert_result, with_ratings


class Writes(StoreCore):
    """Sessions written."""

    async def set_meta(self, key: str, value: str) -> None:
        await self._run(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    async def set_metas(self, entries: dict[str, str | None]) -> None:
        """Set (or, with None, delete) several meta entries in one transaction."""
        if not entries:
            return
        async with self._transaction() as tx:
            for key, value in entries.items():
                if value is None:
                    await tx.execute("DELETE FROM meta WHERE key = ?", (key,))
                else:
                    await tx.execute(
                        "INSERT INTO meta (key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (key, value),
                    )

    async def swap_meta(self, key: str, value: str) -> str | None:
        """Set ``key`` and return its previous value, atomically (of processes starting at
        once, one sees the old value, the others the new one)."""
        async with self._transaction() as tx:
            rows = await tx.fetch(f"SELECT value FROM meta WHERE key = ?{self._for_update}", (key,))
            await tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        return str(rows[0]["value"]) if rows else None

    async def create_session(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        game_id: str,
        host_id: str,
        host_name: str,
        options: dict[str, Any],
        seed: int,
        guests: Iterable[tuple[str, str]] = (),
        rematch_of: int | None = None,
    ) -> int:
        """A new lobby with its host in seat 0 and ``guests`` (user id, name) seated after."""
        now = time.time()
        values = (guild_id, channel_id, game_id, host_id, json.dumps(options), seed, now, now)
        try:
            async with self._transaction() as tx:
                rows = await tx.fetch(
                    "INSERT INTO sessions (guild_id, channel_id, game_id, status, host_id, "
                    "options, seed, created_at, updated_at, rematch_of) "
                    "VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?) RETURNING id",
                    (*values, rematch_of),
                )
                session_id = int(rows[0]["id"])
                for seat, (user_id, name) in enumerate([(host_id, host_name), *guests]):
                    await tx.execute(
                        "INSERT INTO players (session_id, user_id, seat, name) VALUES (?, ?, ?, ?)",
                        (session_id, user_id, seat, name),
                    )
        except self._conflicts:
            # Another lobby was opened in the channel (or this rematch) at the same moment.
            raise NotAllowed(
                "Another game was just opened there — `/game status` shows it."
            ) from None
        return session_id

    async def update_lobby(
        self,
        session_id: int,
        version: int,
        *,
        add: tuple[str, str] | None = None,
        remove: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        async with self._transaction() as tx:
            cols: dict[str, Any] = {}
            if options is not None:
                cols["options"] = json.dumps(options)
            await self._bump(tx, session_id, version, **cols)
            if add is not None:
                rows = await tx.fetch(
                    "SELECT COALESCE(MAX(seat), -1) + 1 AS seat FROM players WHERE session_id = ?",
                    (session_id,),
                )
                await tx.execute(
                    "INSERT INTO players (session_id, user_id, seat, name) VALUES (?, ?, ?, ?)",
                    (session_id, add[0], int(rows[0]["seat"]), add[1]),
                )
            if remove is not None:
                await tx.execute(
                    "DELETE FROM players WHERE session_id = ? AND user_id = ?", (session_id, remove)
                )

    async def commit_state(
        self,
        session_id: int,
        version: int,
        *,
        state: str,
        status: str,
        new_actions: list[NewAction],
        outcome: str | None = None,
        timers: list[TimerRow] | None = None,
        keep_timers: bool = False,
        posts: list[NewPost] | None = None,
        announced: int | None = None,
        results: list[NewResult] | None = None,
        settle_undo: bool = False,
        status_was: str | None = None,
    ) -> None:
        """Write a new state, append its actions and posts and replace the timers, atomically;
        returns once committed (durable). Concurrent calls for different sessions may share a
        commit. ``results``: the game ended with these (for /game stats); ``settle_undo``: the
        session's undo request is settled by this change; ``status_was``: the status stored at
        ``version`` (then a status that stays is not written again)."""
        await self._commit_move(
            MoveWrite(
                session_id=session_id,
                version=version,
                state=state,
                status=status,
                outcome=outcome,
                announced=announced,
                actions=new_actions,
                posts=posts or [],
                timers=None if keep_timers else (timers or []),
                settle_undo=settle_undo,
                results=results or [],
                status_was=status_was,
            )
        )

    async def _commit_move(self, move: MoveWrite) -> None:
        """A backend may write many moves at once (PostgreSQL: one statement for them all)."""
        await self._write(functools.partial(self._write_move, move))

    async def _write_move(self, move: MoveWrite, tx: Tx) -> None:
        # The guarded UPDATE comes first: a stale version fails before anything is written.
        bumped(await tx.execute(*_bump_of(move)))
        now = time.time()
        rated: rating_sql.Changes = {}
        for r in move.results:
            await insert_result(tx, move.session_id, r, now)
        if move.results:
            await add_to_totals(tx, move.session_id)
            rated = await rating_sql.rate_session(tx, move.session_id, self._for_update)
        for sql, args in self._after_bump(move, now, rated):
            await tx.execute(sql, args)

    def _write_move_now(self, move: MoveWrite, run: Callable[[str, tuple[Any, ...]], int]) -> None:
        """``_write_move`` for a move without results, on a backend whose statements never
        wait (``run``: SQLite's group commit runs them in the event loop's thread): the same
        statements, with no coroutine made for each."""
        assert not move.results, "a game's last move is written by _write_move"
        bumped(run(*_bump_of(move)))
        for sql, args in self._after_bump(move, time.time(), {}):
            run(sql, args)

    def _after_bump(
        self, move: MoveWrite, now: float, rated: rating_sql.Changes
    ) -> list[Statement]:
        """A move's statements after its bump (and its results): its posts, its log entries,
        its undo request settled, its timers replaced."""
        session_id = move.session_id
        statements = self._post_statements(session_id, with_ratings(move.posts, rated))
        # The next seq is computed in the INSERT (one trip each), by a scalar subquery: an
        # INSERT … SELECT from the table it writes made SQLite fill a temporary table first
        # (~15 µs of a move's CPU; the subquery reads the index alone).
        for a in move.actions:
            statements.append(
                (
                    "INSERT INTO actions (session_id, seq, player, action, source, created_at, "
                    "undoes) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions "
                    "WHERE session_id = ?), ?, ?, ?, ?, ?)",
                    (session_id, session_id, a.player, a.action, a.source, now, a.undoes),
                )
            )
        if move.settle_undo:
            statements.append(("DELETE FROM undo_requests WHERE session_id = ?", (session_id,)))
        if move.timers is not None:
            statements.append(("DELETE FROM timers WHERE session_id = ?", (session_id,)))
            statements.extend(
                (
                    "INSERT INTO timers (session_id, kind, key, due_at) VALUES (?, ?, ?, ?)",
                    (session_id, t.kind, t.key, t.due_at),
                )
                for t in move.timers
            )
        return statements

    async def set_status(
        self,
        session_id: int,
        version: int,
        status: str,
        *,
        note: str | None = None,
        posts: list[NewPost] | None = None,
    ) -> None:
        async with self._transaction() as tx:
            cols: dict[str, Any] = {"status": status}
            if note is not None:
                cols["note"] = note
            await self._bump(tx, session_id, version, **cols)
            if status in ("finished", "abandoned"):
                await tx.execute("DELETE FROM timers WHERE session_id = ?", (session_id,))
                await tx.execute("DELETE FROM undo_requests WHERE session_id = ?", (session_id,))
            await self._insert_posts(tx, session_id, posts or [])

    async def enqueue_announcements(
        self, session_id: int, version: int, first: int, announcements: list[dict[str, Any]]
    ) -> None:
        """Put announcements ``first``… of a stored state in the outbox (a database written
        before the outbox existed may hold some not yet posted)."""
        async with self._transaction() as tx:
            await self._bump(tx, session_id, version, announced=first + len(announcements))
            await self._insert_posts(
                tx, session_id, [NewPost({"announcement": a}) for a in announcements]
            )

    # Presentation bookkeeping: these do not change game state, so they do not bump the version
    # (they bump `shown`, so a process sharing the database reads them again).
    async def set_table_message(self, session_id: int, message_id: int | None) -> int | None:
        """Returns the new ``shown`` when the store is shared (else None)."""

        async def work(tx: Tx) -> int | None:
            rows = await tx.fetch(
                "UPDATE sessions SET table_message_id = ?, shown = shown + 1 WHERE id = ? "
                "RETURNING shown",
                (message_id, session_id),
            )
            return int(rows[0]["shown"]) if rows and self.shared else None

        return await self._write(work)

    async def set_dm(
        self,
        session_id: int,
        user_id: str,
        *,
        channel_id: int | None,
        message_id: int | None,
        stamp: str | None,
        digest: str | None,
    ) -> int | None:
        """Returns the new ``shown`` when the store is shared (else None)."""
        sql = (
            "UPDATE players SET dm_channel_id = ?, dm_message_id = ?, dm_stamp = ?, "
            "dm_digest = ? WHERE session_id = ? AND user_id = ?"
        )
        args = (channel_id, message_id, stamp, digest, session_id, user_id)
        if not self.shared:  # one owner: nobody else caches this session
            await self._run(sql, args)  # (one statement: a backend may run it the cheapest way)
            return None

        async def work(tx: Tx) -> int | None:
            await tx.execute(sql, args)
            rows = await tx.fetch(
                "UPDATE sessions SET shown = shown + 1 WHERE id = ? RETURNING shown", (session_id,)
            )
            return int(rows[0]["shown"]) if rows else None

        return await self._write(work)


def _bump_of(move: MoveWrite) -> Statement:
    """A move's guarded UPDATE of its session: the state, and what else changed."""
    cols: dict[str, Any] = {"state": move.state}
    if move.status != move.status_was:  # the version guards it: the status stored is that
        cols["status"] = move.status
        cols["outcome"] = move.outcome
    if move.announced is not None:
        cols["announced"] = move.announced
    return bump_statement(move.session_id, move.version, cols)
