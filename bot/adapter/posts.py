"""A session's posts, from its outbox: each sent once, with a nonce, retried with backoff when
Discord or the network fails; a move's announcements and notices share one message.

A game's posts (announcements, turn notices, time's-up) go to a thread opened on the table
message, so the channel itself keeps just the table; where the bot may not open threads they
go to the channel.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

import discord

from bot.adapter.messenger import ChannelGone, Failure, failure_of
from bot.adapter.render import embed_of, mention_line, names_in
from bot.adapter.stats import season_embed
from bot.adapter.sync_state import SyncState, Where
from bot.adapter.turns import AS_OF_THIS_MOVE, LiveNotice
from bot.core.seats import is_robot
from bot.core.store import CHANNEL, PostRow, joins_others
from games.presentation import Announcement

log = logging.getLogger(__name__)

MAX_BACKOFF = 300.0  # seconds between two tries of a post, at most
THREAD_EXISTS = 160004  # "A thread has already been created for this message"
MAX_EMBEDS = 10
MAX_EMBED_CHARS = 5500  # of Discord's 6,000 across a message's embeds, names not yet filled in
HOLD_SETTLE = 0.5  # seconds a held message waits past its hold for a move still committing


@dataclass
class Batch:
    """Unsent posts that go out as one message, and when they may go."""

    posts: list[PostRow]
    payloads: list[dict[str, Any]]  # each post's payload, decoded
    ready_at: float = 0.0  # wall time: a held batch waits for later moves' posts to join it


def batches(posts: list[PostRow]) -> list[Batch]:
    """Unsent posts in the order they go out. Channel announcements and notices share a message
    with those of the same change, and with those of later changes made before the first one's
    hold ran out (a quick game); the rest go alone; chunks fit a message. The same stored posts
    always make the same batches, so a retry after a crash carries the same nonce."""
    out: list[Batch] = []
    size, until = 0, None
    for post in posts:
        payload = json.loads(post.payload)
        last = out[-1] if out else None
        joins = joins_others(post.target, payload)
        if (
            joins
            and last is not None
            and until is not None
            and post.created_at <= until
            and len(last.posts) < MAX_EMBEDS
            and size + len(post.payload) <= MAX_EMBED_CHARS
        ):
            last.posts.append(post)
            last.payloads.append(payload)
            size += len(post.payload)
            continue
        hold = float(payload.get("hold", 0.0)) if joins else 0.0
        until = post.created_at + hold if joins else None
        # A move committing as the hold runs out is let in: wait a moment more before sending.
        ready = post.created_at + hold + min(hold, HOLD_SETTLE) if hold else 0.0
        out.append(Batch([post], [payload], ready))
        size = len(post.payload)
    return out


def turns_superseded(announcements: list[Announcement]) -> list[Announcement]:
    """Of a message's "whose turn" notices only the last still says something."""
    turns = [i for i, a in enumerate(announcements) if a.kind == "turn"]
    return [a for i, a in enumerate(announcements) if a.kind != "turn" or i == turns[-1]]


class Posts(SyncState):
    """The sync worker's posts (see TableSync)."""

    async def _flush_outbox(self, where: Where) -> float | None:
        """Post what the session's outbox holds, oldest first. A post that fails for a while
        holds back the later ones (order matters: results before the next step). The
        announcements and notices of one move go out as one message (up to 10 embeds), with
        those of the moves made while a quick game's post waits. Returns when a waiting
        post may go (None: nothing waits)."""
        now = self.service.now()
        for batch in batches(await self.service.unsent_posts(where.id)):
            post, posts = batch.posts[0], batch.posts
            if post.target == CHANNEL and where.channel_id in self._gone_channels:
                # They can never go: drop them now, so that nothing (a hold for later moves'
                # posts, the next step's DMs behind them) waits for them.
                gone = f"channel {where.channel_id} is gone"
                await self.service.mark_posted([each.id for each in posts], None, failure=gone)
                continue
            wait = batch.ready_at - time.time()
            if wait > 0 and not self._flushing:  # held for later moves' posts (not a retry)
                self._sync_later(where.id, wait, set(), posts=True)
                return batch.ready_at
            if post.next_attempt_at > now and not self._flushing:
                return None  # a hold, or a retry's backoff: the retry loop brings it
            try:
                message_id: int | None
                if len(posts) > 1:
                    message_id = await self._post_joined(where, batch)
                else:
                    message_id = await self._post(where, post, batch.payloads[0])
            except Exception as exc:
                failure = failure_of(exc)
                if failure is Failure.RETRY:
                    delay = min(MAX_BACKOFF, 2.0**post.attempts)
                    await self.service.retry_post_later(post.id, now + delay, str(exc)[:200])
                    log.warning(
                        "post %s of session %s failed, retry in %.0f s: %s",
                        post.id,
                        where.id,
                        delay,
                        exc,
                    )
                    return None
                if (
                    failure is Failure.GONE
                    and post.target == CHANNEL
                    and self._threads.get(where.id)
                ):
                    # The game's thread was deleted, not (as far as we know) its channel: the
                    # posts go on in the channel (where the table still is).
                    await self._thread_gone(where, exc)
                    return await self._flush_outbox(where)
                if failure is Failure.GONE and post.target == CHANNEL:
                    self._channel_gone(where.channel_id, exc)
                else:
                    log.exception("post %s of session %s was refused; dropped", post.id, where.id)
                ids = [each.id for each in posts]
                await self.service.mark_posted(ids, None, failure=str(exc)[:200])
                continue
            await self.service.mark_posted([each.id for each in posts], message_id)
        await self._close_decided_undo(where.id)
        return None

    def undo_answered(self, session_id: int, seq: int) -> None:
        """A click decided the undo request: its answer closes the request's message."""
        if self._undo_asked.get(session_id, (0, 0, None))[2] == seq:
            del self._undo_asked[session_id]

    async def _close_decided_undo(self, session_id: int) -> None:
        """An undo request decided without a click on it (nobody objected in time, the game
        moved on or ended): its buttons go, so nobody is asked about it any more."""
        asked = self._undo_asked.get(session_id)
        if asked is None:
            return
        channel_id, message_id, seq, asks = asked
        if await self.service.open_undo_seq(session_id) == seq:
            return  # still open
        del self._undo_asked[session_id]
        try:
            await self.messenger.close_controls(channel_id, message_id, f"{asks} (Decided.)")
        except discord.HTTPException as exc:  # a click's answer may have closed it already
            log.info("session %s: undo request %s stays as it is (%s)", session_id, seq, exc)

    async def _post_joined(self, where: Where, batch: Batch) -> int:
        """Announcements (as embeds) and notices (as lines) of one or more moves in one
        message, with one ping line for all."""
        payloads = batch.payloads
        notices = [p for p in payloads if "notice" in p]
        announced = [
            Announcement.model_validate(p["announcement"]) for p in payloads if "announcement" in p
        ]
        announcements = turns_superseded(announced) if announced else []
        pings = [u for p in notices for u in p.get("ping", [])]
        pings += [u for a in announcements for u in a.ping]
        mentions = mention_line(list(dict.fromkeys(pings)))
        lines = [names_in(p["notice"], where.names) for p in notices]
        content = "\n".join(filter(None, [mentions, *lines]))
        target = await self._posts_go_to(where)
        rest = [embed_of(a, where.names) for a in announcements if a.kind != "turn"]
        told = "\n".join(lines)[:2000]
        # A turn notice told with the move is that move's log line too: it is left as posted
        # (see LiveTurns), so it says it is as of that move.
        footer = AS_OF_THIS_MOVE if rest or told else ""
        message = await self.messenger.send(
            target,
            f"posts:{batch.posts[0].id}:{batch.posts[-1].id}",
            content=content[:2000] or None,
            embeds=[
                embed_of(a, where.names, footer=footer if a.kind == "turn" else "")
                for a in announcements
            ],
            allowed_mentions=discord.AllowedMentions(users=True),
        )
        if any(a.kind == "turn" for a in announcements):
            await self.turns.posted(where.id, LiveNotice(target, message.id, told, rest))
        return message.id

    async def _posts_go_to(self, where: Where) -> int:
        """The game's thread, opened on the table message when the game has started and the bot
        may open threads; else the channel itself."""
        if where.channel_id in self._gone_channels:
            raise ChannelGone(where.channel_id)
        if not where.started or where.table_message_id is None:
            return where.channel_id
        if where.id in self._threads:
            return self._threads[where.id] or where.channel_id
        # After a restart: the thread opened before (trying to open it again is refused, 400
        # 160004, one more invalid request); "0": the game posts in its channel.
        memo = f"thread:{where.id}:{where.table_message_id}"
        known = await self.service.recall(memo)
        if known is not None:
            self._threads[where.id] = int(known) or None
            return int(known) or where.channel_id
        thread: int | None = None
        try:
            data = await self.messenger.start_thread(
                where.channel_id, where.table_message_id, f"🍽️ Game #{where.id} — play by play"
            )
            thread = int(data["id"])
        except discord.HTTPException as exc:
            if exc.code == THREAD_EXISTS:  # opened before a restart: it shares the message's id
                thread = where.table_message_id
            elif failure_of(exc) is Failure.RETRY:
                raise
            else:
                log.warning("session %s posts in its channel (no thread: %s)", where.id, exc)
        self._threads[where.id] = thread
        await self.service.remember(memo, str(thread or 0))
        return thread or where.channel_id

    async def _thread_gone(self, where: Where, exc: BaseException) -> None:
        log.warning("session %s's thread is gone (%s): it posts in its channel", where.id, exc)
        self._threads[where.id] = None
        await self.service.remember(f"thread:{where.id}:{where.table_message_id}", "0")

    async def _post(self, where: Where, post: PostRow, payload: dict[str, Any]) -> int | None:
        names = where.names
        key = f"post:{post.id}"
        mentions = discord.AllowedMentions(users=True)
        if "season" in payload:  # an ended season's final table, in the channel it ended in
            channel_id = int(post.target.removeprefix("channel:"))
            return (await self.messenger.send(channel_id, key, embed=season_embed(payload))).id
        if post.target != CHANNEL:
            user_id = post.target.removeprefix("user:")
            if is_robot(user_id):
                return None  # never DM a bot seat
            if not await self.closed_dms.closed(where.id, user_id):
                sent = await self.messenger.send_dm(user_id, key, content=payload["dm"][:2000])
                if sent is not None:
                    return sent.id
                await self.closed_dms.refused(where.id, user_id)
            text = payload.get("fallback")  # DMs closed: say it where the game talks, with a ping
            if not text or where.channel_id in self._gone_channels:
                return None
            message = await self.messenger.post_notice(
                await self._posts_go_to(where),
                names_in(text, names),
                f"{key}:fallback",
                ping=[user_id],
            )
            return message.id
        target = await self._posts_go_to(where)
        if "result" in payload:
            await self.turns.retire(where.id)  # nobody's turn any more
            return await self._post_result(target, key, where, payload["result"])
        if "undo_request" in payload:
            request = payload["undo_request"]
            asks = (
                f"↩️ {names.get(request['player'], 'Someone')} asks to take back "
                f"**{names_in(request['label'], names)}**."
            )
            text = (
                f"{asks} Agree, or object: without an objection it is taken back "
                f"<t:{int(request['due'])}:R>."
            )
            message = await self.messenger.send(
                target,
                key,
                content=" ".join(filter(None, [mention_line(payload.get("ping", [])), text])),
                view=self.screens.undo_view(where.id, int(request["seq"])),
                allowed_mentions=mentions,
            )
            self._undo_asked[where.id] = (target, message.id, int(request["seq"]), asks)
            return message.id
        if "announcement" in payload:
            announcement = Announcement.model_validate(payload["announcement"])
            message = await self.messenger.send(
                target,
                key,
                content=mention_line(announcement.ping),
                embed=embed_of(announcement, names),
                allowed_mentions=mentions,
            )
            if announcement.kind == "turn":
                await self.turns.posted(where.id, LiveNotice(target, message.id, "", []))
            return message.id
        message = await self.messenger.post_notice(
            target, names_in(payload["notice"], names), key, ping=payload.get("ping")
        )
        return message.id

    async def _post_result(
        self, target: int, key: str, where: Where, result: dict[str, Any]
    ) -> int:
        final = self.screens.result(result, where.names, where.id)
        files: list[discord.File] = []
        if final.chart is not None:
            try:
                files.append(await self.pictures.chart_file(final.chart))
            except Exception:  # the standings matter more than the picture
                log.exception("session %s: drawing the chart failed", where.id)
                final.embed.set_image(url=None)
        message = await self.messenger.send(
            target, key, embed=final.embed, view=final.view, files=files
        )
        return message.id
