"""What the front ends read (a player's games, a server's history and leaderboard, a game's
record) and what they note about the messages that show a session."""

from __future__ import annotations

import json

from pydantic import ValidationError

from bot.core.errors import NotAllowed, NotFound, UserError
from bot.core.record import GameRecord, RecordedAction, commitment
from bot.core.seats import ROBOT_PREFIX
from bot.core.service.loading import Loading
from bot.core.service.model import HistoryPage, Leaderboard, SeatedGame, Session, changed
from bot.core.store import SessionRow, SessionStatus, StatRow
from games import REGISTRY

SHOWN = "shown:"  # memo key of the version a session's messages show in full
LATE = "late:"  # memo key of the deadline a table shows, earlier than the true one


class Reads(Loading):
    """Reads for the front ends, and their presentation bookkeeping."""

    async def open_sessions_of(self, user_id: str) -> list[SessionRow]:
        return await self.store.sessions_of_user(user_id)

    async def seated_games(self, user_id: str, *, steps: bool = True) -> list[SeatedGame]:
        """Every open game ``user_id`` is seated in, across servers: those waiting for them
        first, then by deadline. A game whose data cannot be loaded is listed as such.
        ``steps`` False: without the table's headline (cheaper)."""
        found: list[SeatedGame] = []
        for row, deadline in await self.store.open_sessions_with_deadlines(user_id):
            try:
                s = await self.load(row.id)
            except UserError:
                found.append(SeatedGame(row, "a damaged game", "cannot be shown", [], None, False))
                continue
            if s.state is None:
                step = f"lobby — {len(s.players)}/{s.game.max_players} seated"
                found.append(SeatedGame(s.row, s.game.title, step, [], None, False, s.names()))
                continue
            active = s.game.active_players(s.state)
            awaited = [p for p in s.state.players if p in active]
            step = s.game.table(s.state)[0].title if steps else ""
            yours = user_id in active
            found.append(SeatedGame(s.row, s.game.title, step, awaited, deadline, yours, s.names()))
        found.sort(key=lambda g: (not g.yours, g.deadline is None, g.deadline or 0.0, g.row.id))
        return found

    async def waiting_elsewhere(self, user_id: str, session_id: int) -> int:
        """How many other games wait for ``user_id``'s move. A player of hundreds of games
        is asked this at each new step: the games are not loaded (each would go through the
        session cache, dropping the games being played), only whom each awaits is kept."""
        return (await self.waiting_elsewhere_each([user_id], session_id))[user_id]

    async def waiting_elsewhere_each(self, user_ids: list[str], session_id: int) -> dict[str, int]:
        """``waiting_elsewhere`` for several players at once (a new step's DMs): one read."""
        versions = await self.store.active_versions_of_each(user_ids)
        counts: dict[str, int] = {}
        for user_id in user_ids:
            counts[user_id] = 0
            for sid, version in versions[user_id]:
                if sid != session_id and user_id in await self._awaited_at(sid, version):
                    counts[user_id] += 1
        return counts

    async def _awaited_at(self, session_id: int, version: int) -> frozenset[str]:
        """Whom the session awaits at ``version`` (as stored): remembered, else from the
        cached copy, else from its stored state, parsed and dropped (a damaged one: nobody)."""
        known = self._awaited.get(session_id)
        if known is not None and known[0] == version:
            return known[1]
        cached = self._cache.get(session_id)
        if cached is not None and cached.version == version and cached.state is not None:
            awaited = frozenset(cached.game.active_players(cached.state))
        else:
            row = await self.store.get_session(session_id)
            game = REGISTRY.get(row.game_id) if row is not None else None
            if row is None or game is None or row.state is None:
                return frozenset()
            try:
                awaited = frozenset(game.active_players(game.load_state(row.state)))
            except (ValidationError, ValueError):
                return frozenset()
            version = row.version
        self._awaited[session_id] = (version, awaited)
        return awaited

    async def history(self, guild_id: int, page: int, per_page: int = 5) -> HistoryPage:
        """A page of the server's finished and abandoned games (a page past the end: the
        last one)."""
        rows, total = await self.store.ended_in_guild(
            guild_id, offset=max(0, page) * per_page, limit=per_page
        )
        pages = max(1, -(-total // per_page))
        if page >= pages and total:
            return await self.history(guild_id, pages - 1, per_page)
        games = [(row, await self.names(row.id)) for row in rows]
        return HistoryPage(games, max(0, page), pages, total)

    async def leaderboard(
        self, guild_id: int, game_id: str | None = None, limit: int = 10
    ) -> Leaderboard:
        if game_id is not None and game_id not in REGISTRY:
            raise NotFound(f"There is no game called {game_id!r}.")
        lines = await self.store.leaderboard(guild_id, game_id, limit)
        names = await self.store.latest_names([line.key for line in lines])
        return Leaderboard(game_id, lines, names, await self.store.games_finished(guild_id))

    async def known_name(self, user_id: str) -> str | None:
        """The user's name as of their latest game (None: they never played)."""
        return (await self.store.latest_names([user_id])).get(user_id)

    async def player_record(
        self, guild_id: int, user_id: str, game_id: str | None = None
    ) -> list[StatRow]:
        """``user_id``'s results in the server, per game (key: the game id)."""
        return await self.store.player_record(guild_id, user_id, game_id)

    async def record(self, session_id: int, guild_id: int | None) -> GameRecord:
        """The full record of an ended game of this server: options, seed, every action."""
        row = await self.store.get_session(session_id)
        if row is None or row.guild_id != guild_id:
            raise NotFound(f"There is no game #{session_id} in this server.")
        if row.status.is_open:
            raise NotAllowed(
                "A game's record (with its seed) is given once the game has ended, so it "
                "cannot reveal the deal while you play."
            )
        if row.state is None:
            raise NotAllowed("That lobby closed before the game started: there is no record.")
        players = await self.store.players(session_id)
        log = await self.store.actions(session_id)
        options = json.loads(row.options)
        return GameRecord(
            game=row.game_id,
            session=row.id,
            status=row.status.value,
            players=[p.user_id for p in players],
            names={p.user_id: p.name for p in players},
            options=options,
            seed=row.seed,
            commitment=commitment(row.game_id, options, row.seed),
            created_at=row.created_at,
            ended_at=row.updated_at,
            actions=[
                RecordedAction(
                    seq=a.seq,
                    player=a.player,
                    action=json.loads(a.action),
                    source=a.source,
                    at=a.created_at,
                    undoes=a.undoes,
                )
                for a in log
            ],
            outcome=json.loads(row.outcome) if row.outcome else None,
        )

    async def open_sessions(self) -> list[SessionRow]:
        return await self.store.sessions_with_status(SessionStatus.LOBBY, SessionStatus.ACTIVE)

    async def backlog(self) -> tuple[int, int]:
        """(open sessions, posts not yet sent) as stored: the operator's gauges."""
        return await self.store.backlog(SessionStatus.LOBBY, SessionStatus.ACTIVE)

    async def reachable(self) -> None:
        """Raises unless the database answers a query (the health check)."""
        await self.store.schema_version()

    async def open_session_heads(self) -> list[tuple[int, SessionStatus, int]]:
        """(id, status, version) of every open session, none loaded (a start-up's look)."""
        lobbies = await self.store.session_heads(SessionStatus.LOBBY)
        games = await self.store.session_heads(SessionStatus.ACTIVE)
        return sorted(
            [(sid, SessionStatus.LOBBY, version) for sid, _, version in lobbies]
            + [(sid, SessionStatus.ACTIVE, version) for sid, _, version in games]
        )

    async def open_sessions_with_robots(self) -> list[int]:
        """The open sessions that seat a bot player (none loaded)."""
        return await self.store.sessions_seating(
            ROBOT_PREFIX, SessionStatus.LOBBY, SessionStatus.ACTIVE
        )

    async def open_in_channel(self, channel_id: int) -> Session | None:
        """The game going on in a channel (or in the thread of its table)."""
        row = await self.store.open_session_in_channel(channel_id)
        return await self.load(row.id) if row else None

    async def latest_in_channel(self, channel_id: int) -> Session | None:
        """The channel's latest game, open or not (to show how the last one ended)."""
        row = await self.store.latest_session_in_channel(channel_id)
        return await self.load(row.id) if row else None

    async def open_row_in_channel(self, channel_id: int) -> SessionRow | None:
        """The open session of a channel as stored, even when its data cannot be loaded."""
        return await self.store.open_session_in_channel(channel_id)

    # Presentation bookkeeping: stored, and patched into the cached session.
    async def record_table_message(self, session_id: int, message_id: int | None) -> None:
        self._count_shown(session_id, await self.store.set_table_message(session_id, message_id))
        self._patch(session_id, table_message_id=message_id)

    # -- presentation memo -----------------------------------------------------------------------
    # Small facts a front end must remember across restarts about what its messages show (e.g.
    # which attachment holds which picture), so it need not send them again.
    async def open_undo_seq(self, session_id: int) -> int | None:
        """The move the session's open undo request asks to take back (None: none is open)."""
        request = await self.store.undo_request(session_id)
        return request.seq if request is not None else None

    async def recall(self, key: str) -> str | None:
        return await self.store.get_meta(f"memo:{key}")

    async def remember(self, key: str, value: str) -> None:
        await self.store.set_meta(f"memo:{key}", value)

    async def shown_versions(self) -> dict[int, int]:
        """The version of each session that its messages were last found to show in full
        (table, DMs, posts), as a front end recorded it (see ``record_shown``)."""
        prefix = f"memo:{SHOWN}"
        entries = await self.store.metas(prefix)
        return {int(k[len(prefix) :]): int(v) for k, v in entries.items()}

    async def record_shown(self, versions: dict[int, int | None]) -> None:
        """Record at once that these sessions' messages show these versions in full (None:
        forget it; e.g. the session ended)."""
        await self.store.set_metas(
            {
                f"memo:{SHOWN}{sid}": None if version is None else str(version)
                for sid, version in versions.items()
            }
        )

    async def late_tables(self) -> dict[int, float]:
        """The tables a front end recorded as showing an earlier deadline than the true one (a
        start gave the step the downtime back), and the deadline each shows."""
        prefix = f"memo:{LATE}"
        entries = await self.store.metas(prefix)
        return {int(k[len(prefix) :]): float(v) for k, v in entries.items()}

    async def record_late_tables(self, shown: dict[int, float | None]) -> None:
        """Record at once the deadline these tables show (None: the true one; forget it)."""
        await self.store.set_metas(
            {f"memo:{LATE}{sid}": None if due is None else repr(due) for sid, due in shown.items()}
        )

    async def record_dm(
        self,
        session_id: int,
        user_id: str,
        *,
        channel_id: int | None,
        message_id: int | None,
        stamp: str | None,
        digest: str | None,
    ) -> None:
        shown = await self.store.set_dm(
            session_id,
            user_id,
            channel_id=channel_id,
            message_id=message_id,
            stamp=stamp,
            digest=digest,
        )
        cached = self._count_shown(session_id, shown)
        if cached is not None:
            players = [
                changed(
                    p,
                    dm_channel_id=channel_id,
                    dm_message_id=message_id,
                    dm_stamp=stamp,
                    dm_digest=digest,
                )
                if p.user_id == user_id
                else p
                for p in cached.players
            ]
            self._cache[session_id] = changed(cached, players=players)
