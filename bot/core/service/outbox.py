"""The outbox: posts written in a change's transaction, claimed and sent after by a front end;
the reminders a timer posts."""

from __future__ import annotations

from bot.core.errors import NotFound, UserError
from bot.core.seats import is_robot
from bot.core.service.loading import Loading
from bot.core.store import NewPost, PostRow, SessionStatus
from games.engine import clock_key

# Meta key: every announcement stored before the outbox existed has been put in it.
ALL_ANNOUNCED = "outbox:all_announced"


class Outbox(Loading):
    """The posts waiting to go out, and the reminders that add to them."""

    # -- the outbox -------------------------------------------------------------------------------
    async def post_context(self, session_id: int) -> tuple[int, dict[str, str]]:
        """The channel and the players' names of a session, read without loading its game
        (so the posts of a session whose data is damaged still go out)."""
        row = await self.store.get_session(session_id)
        if row is None:
            raise NotFound(f"There is no game #{session_id}.")
        return row.channel_id, await self.names(session_id)

    async def unsent_posts(self, session_id: int) -> list[PostRow]:
        """The session's unsent posts, claimed for this process (another process sharing the
        database gets none of them while the claim lasts)."""
        return await self.store.claim_posts(session_id, self.now())

    async def mark_posted(
        self, post_ids: list[int], message_id: int | None, *, failure: str | None = None
    ) -> None:
        await self.store.mark_posted(post_ids, message_id, failure=failure)

    async def retry_post_later(self, post_id: int, at: float, failure: str) -> None:
        await self.store.retry_post_later(post_id, at, failure)

    async def sessions_with_posts_due(self) -> list[int]:
        return await self.store.sessions_with_posts_due(self.now())

    async def next_post_due(self) -> float | None:
        return await self.store.next_post_due()

    async def enqueue_unposted_announcements(self) -> int:
        """Announcements a database from before the outbox holds but never posted go to the
        outbox now (once: ``announced`` moves past them). Returns how many. Done once per
        database: since, every change puts its announcements in the outbox as it is written,
        and a start-up need not load every game ever played to find none."""
        if await self.store.get_meta(ALL_ANNOUNCED) is not None:
            return 0
        count = 0
        for row in await self.store.sessions_with_status(
            SessionStatus.ACTIVE, SessionStatus.FINISHED
        ):
            try:
                s = await self.load(row.id)
            except UserError:
                continue
            if s.state is None or s.row.announced >= len(s.state.announcements):
                continue
            async with self.lock(s.id):
                pending = [
                    a.model_dump(mode="json") for a in s.state.announcements[s.row.announced :]
                ]
                with self._rewrite(s.id):
                    await self.store.enqueue_announcements(
                        s.id, s.version, s.row.announced, pending
                    )
            count += len(pending)
            self._changed(s.id)
        await self.store.set_meta(ALL_ANNOUNCED, "1")
        return count

    async def remind(self, session_id: int, key: str, deadline: float) -> bool:
        """The reminder of step ``key`` is due: DM everyone the step still waits for (a channel
        ping for those whose DMs are closed), in the same transaction that deletes the timer.
        A step that is over (or a game) is reminded of nothing. The text stays as it was sent,
        so it says when it was true (clock times, no "in 2 minutes" that keeps counting)."""
        s = await self.load(session_id)
        posts: list[NewPost] = []
        live = s.state is not None and s.status is SessionStatus.ACTIVE
        if s.state is not None and live and clock_key(s.game, s.state) == key:
            game = s.game
            now, due = int(self.now()), int(deadline)
            awaited = [p for p in s.state.players if p in game.active_players(s.state)]
            for user_id in [p for p in awaited if not is_robot(p)]:  # bot players need no nudge
                text = (
                    f"⏰ **{game.title}** in <#{s.row.channel_id}> was waiting for your move at "
                    f"<t:{now}:t>: if you haven't moved by <t:{due}:t>, I decide for you as the "
                    f"rules say (`/game rules {game.id}`)."
                )
                fallback = (
                    f"⏰ Reminder (<t:{now}:t>): your move in {game.title} — if you haven't moved "
                    f"by <t:{due}:t>, I decide for you."
                )
                posts.append(NewPost({"dm": text, "fallback": fallback}, target=f"user:{user_id}"))
        await self.store.post_and_delete_timer(session_id, "reminder", key, posts)
        if posts:
            self._changed(session_id)
        return bool(posts)
