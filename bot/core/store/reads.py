"""Reads of sessions, seats, the action log, timers and the memo (``meta``): what the session
service, the front ends and the tools look up.
"""

from __future__ import annotations

from bot.core.store.core import StoreCore
from bot.core.store.rows import ActionRow, PlayerRow, SessionRow, TimerRow, row_of, session_row


class Reads(StoreCore):
    """Sessions and what belongs to them, read."""

    async def get_session(self, session_id: int) -> SessionRow | None:
        row = await self._one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return session_row(row) if row else None

    async def session_stamp(self, session_id: int) -> tuple[int, int] | None:
        """(version, shown) of a session as stored: whether a cached copy is still current."""
        row = await self._one("SELECT version, shown FROM sessions WHERE id = ?", (session_id,))
        return (int(row["version"]), int(row["shown"])) if row else None

    async def open_session_in_channel(self, channel_id: int) -> SessionRow | None:
        """The open session of a channel, or of the table whose thread the channel is (a game's
        thread is opened on its table message and has the message's id)."""
        row = await self._one(
            "SELECT * FROM sessions WHERE (channel_id = ? OR table_message_id = ?) "
            "AND status IN ('lobby', 'active') ORDER BY (channel_id = ?) DESC LIMIT 1",
            (channel_id, channel_id, channel_id),
        )
        return session_row(row) if row else None

    async def latest_session_in_channel(self, channel_id: int) -> SessionRow | None:
        row = await self._one(
            "SELECT * FROM sessions WHERE channel_id = ? OR table_message_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (channel_id, channel_id),
        )
        return session_row(row) if row else None

    async def sessions_with_status(self, *statuses: str) -> list[SessionRow]:
        marks = ",".join("?" for _ in statuses)
        rows = await self._fetch(
            f"SELECT * FROM sessions WHERE status IN ({marks}) ORDER BY id", statuses
        )
        return [session_row(r) for r in rows]

    async def backlog(self, *open_statuses: str) -> tuple[int, int]:
        """(sessions of these statuses, posts not yet sent): the operator's gauges."""
        marks = ",".join("?" for _ in open_statuses)
        row = await self._one(
            f"SELECT (SELECT COUNT(*) FROM sessions WHERE status IN ({marks})) AS open_count, "
            "(SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL) AS unsent_count",
            open_statuses,
        )
        assert row is not None
        return int(row["open_count"]), int(row["unsent_count"])

    async def session_heads(self, *statuses: str) -> list[tuple[int, str, int]]:
        """(id, game, version) of the sessions with these statuses, oldest first: what a
        start-up looks at before it loads any (not their states)."""
        marks = ",".join("?" for _ in statuses)
        rows = await self._fetch(
            f"SELECT id, game_id, version FROM sessions WHERE status IN ({marks}) ORDER BY id",
            statuses,
        )
        return [(int(r["id"]), str(r["game_id"]), int(r["version"])) for r in rows]

    async def sessions_seating(self, prefix: str, *statuses: str) -> list[int]:
        """The sessions with these statuses that seat a player whose id starts with
        ``prefix`` (e.g. bot players'), oldest first."""
        marks = ",".join("?" for _ in statuses)
        rows = await self._fetch(
            "SELECT DISTINCT s.id FROM sessions s JOIN players p ON p.session_id = s.id "
            f"WHERE s.status IN ({marks}) AND p.user_id LIKE ? ORDER BY s.id",
            (*statuses, prefix.replace("%", "").replace("_", "") + "%"),
        )
        return [int(r["id"]) for r in rows]

    async def ended_in_guild(
        self, guild_id: int, *, offset: int = 0, limit: int = 10
    ) -> tuple[list[SessionRow], int]:
        """A page of the server's games that were played and ended (finished or abandoned;
        not lobbies closed before the start), newest first, and how many there are."""
        where = "WHERE guild_id = ? AND status IN ('finished', 'abandoned') AND state IS NOT NULL"
        rows = await self._read(
            f"SELECT * FROM sessions {where} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
            (guild_id, limit, offset),
        )
        counted = await self._read(f"SELECT COUNT(*) AS n FROM sessions {where}", (guild_id,))
        return [session_row(r) for r in rows], int(counted[0]["n"])

    async def rematch_of(self, session_id: int) -> SessionRow | None:
        """The lobby (or game) a finished game's Rematch button opened, if any."""
        row = await self._one("SELECT * FROM sessions WHERE rematch_of = ?", (session_id,))
        return session_row(row) if row else None

    async def players(self, session_id: int) -> list[PlayerRow]:
        rows = await self._fetch(
            "SELECT * FROM players WHERE session_id = ? ORDER BY seat", (session_id,)
        )
        return [row_of(PlayerRow, r) for r in rows]

    async def sessions_of_user(self, user_id: str) -> list[SessionRow]:
        rows = await self._fetch(
            "SELECT s.* FROM sessions s JOIN players p ON p.session_id = s.id "
            "WHERE p.user_id = ? AND s.status IN ('lobby', 'active') ORDER BY s.id",
            (user_id,),
        )
        return [session_row(r) for r in rows]

    async def active_versions_of_each(
        self, user_ids: list[str]
    ) -> dict[str, list[tuple[int, int]]]:
        """(id, version) of the active sessions each user is seated in (any server), in one
        read, no state read (each user listed, if in none)."""
        out: dict[str, list[tuple[int, int]]] = {user_id: [] for user_id in user_ids}
        if not user_ids:
            return out
        marks = ", ".join("?" for _ in user_ids)
        rows = await self._fetch(
            "SELECT p.user_id, s.id, s.version FROM players p JOIN sessions s "
            f"ON s.id = p.session_id WHERE p.user_id IN ({marks}) AND s.status = 'active' "
            "ORDER BY s.id",
            tuple(user_ids),
        )
        for r in rows:
            out[str(r["user_id"])].append((int(r["id"]), int(r["version"])))
        return out

    async def open_sessions_with_deadlines(
        self, user_id: str
    ) -> list[tuple[SessionRow, float | None]]:
        """The user's open sessions (any server), each with its step's deadline if any."""
        rows = await self._fetch(
            "SELECT s.*, t.due_at AS deadline FROM players p "
            "JOIN sessions s ON s.id = p.session_id "
            "LEFT JOIN timers t ON t.session_id = s.id AND t.kind = 'deadline' "
            "WHERE p.user_id = ? AND s.status IN ('lobby', 'active') ORDER BY s.id",
            (user_id,),
        )
        out: list[tuple[SessionRow, float | None]] = []
        for r in rows:
            deadline = r.pop("deadline")
            out.append((session_row(r), float(deadline) if deadline is not None else None))
        return out

    async def actions(self, session_id: int) -> list[ActionRow]:
        rows = await self._fetch(
            "SELECT * FROM actions WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [row_of(ActionRow, r) for r in rows]

    async def timers(self, session_id: int | None = None) -> list[TimerRow]:
        if session_id is None:
            rows = await self._fetch("SELECT * FROM timers ORDER BY due_at, session_id, kind")
        else:
            rows = await self._fetch(
                "SELECT * FROM timers WHERE session_id = ? ORDER BY due_at, kind", (session_id,)
            )
        return [row_of(TimerRow, r) for r in rows]

    async def get_meta(self, key: str) -> str | None:
        row = await self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None

    async def metas(self, prefix: str) -> dict[str, str]:
        """Every meta entry whose key starts with ``prefix`` (a range of the key's index)."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        rows = await self._fetch(
            "SELECT key, value FROM meta WHERE key >= ? AND key < ?", (prefix, end)
        )
        return {str(r["key"]): str(r["value"]) for r in rows}
