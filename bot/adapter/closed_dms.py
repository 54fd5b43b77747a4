"""Players whose DMs refused the bot, per game.

Every refused DM (403 50007) counts against Discord's invalid-request budget (10,000 in 10
minutes bans the bot's IP for a while: every server down). A player whose DMs refused one of a
game's messages is not sent another in that game: their hand stays on **Show my hand** and
`/game hand`, and the table is told once. Remembered in the database, so a restart does not
ask again; the next game tries again (they may have opened their DMs since).
"""

from __future__ import annotations

from bot.core.sessions import SessionService

REFUSED = "refused"  # a DM of the game was refused
TOLD = "told"  # ... and the table was told so
KEPT = 10_000  # (game, player) pairs remembered in memory; the others are read again


class ClosedDms:
    def __init__(self, service: SessionService) -> None:
        self.service = service
        self._known: dict[tuple[int, str], str] = {}  # "" : not refused (as far as we know)

    @staticmethod
    def _key(session_id: int, user_id: str) -> str:
        return f"dms-closed:{session_id}:{user_id}"

    async def state(self, session_id: int, user_id: str) -> str:
        """REFUSED, TOLD, or "" (not refused in this game)."""
        known = self._known.get((session_id, user_id))
        if known is None:
            known = await self.service.recall(self._key(session_id, user_id)) or ""
            self._keep(session_id, user_id, known)
        return known

    async def closed(self, session_id: int, user_id: str) -> bool:
        return bool(await self.state(session_id, user_id))

    async def refused(self, session_id: int, user_id: str) -> None:
        """A DM of this game was refused: send the player none of its others."""
        if not await self.closed(session_id, user_id):
            await self._set(session_id, user_id, REFUSED)

    async def told(self, session_id: int, user_id: str) -> None:
        """The table was told that the player's DMs are closed."""
        await self._set(session_id, user_id, TOLD)

    async def _set(self, session_id: int, user_id: str, state: str) -> None:
        await self.service.remember(self._key(session_id, user_id), state)
        self._keep(session_id, user_id, state)

    def _keep(self, session_id: int, user_id: str, state: str) -> None:
        self._known[(session_id, user_id)] = state
        if len(self._known) > KEPT:
            del self._known[next(iter(self._known))]
