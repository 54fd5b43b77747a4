"""Pictures of boards, drawn by the games (PNG), attached to the messages that show them.

A game draws a picture from its JSON spec (``Game.draw``). Drawing takes milliseconds of CPU, so
it runs in a thread, off the event loop, and each spec is drawn once (an LRU cache keyed by the
game and a digest of the spec). A message keeps the attachments whose picture did not change:
an edit uploads only what changed, and nothing when no picture changed.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import discord

from bot.adapter.chart import draw_chart
from bot.core.recent import RecentMap
from games.engine import Game
from games.presentation import Picture

MESSAGES_KEPT = 4_096  # a table and three DMs for each of the sessions the table sync keeps


@dataclass(frozen=True)
class PictureRef:
    """A picture a message shows: its file name, alt text and the digest of what it shows."""

    name: str
    alt: str
    key: str
    spec: dict[str, Any] = field(compare=False, hash=False)

    @classmethod
    def of(cls, picture: Picture) -> PictureRef:
        key = hashlib.sha1(json.dumps(picture.spec, sort_keys=True).encode()).hexdigest()[:16]
        return cls(picture.name, picture.alt, key, picture.spec)


class KeptAttachment:
    """An attachment a message already has, kept as it is by an edit."""

    def __init__(self, attachment_id: int) -> None:
        self.id = attachment_id

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id}


# What a message shows now: file name → (picture digest, attachment id).
Shown = dict[str, tuple[str, int]]


@dataclass
class PictureStats:
    renders: int = 0
    cache_hits: int = 0
    bytes_drawn: int = 0
    seconds_drawing: float = 0.0
    uploads: int = 0
    kept: int = 0


class Memo(Protocol):
    """Where what messages show is remembered across restarts (the session service)."""

    async def recall(self, key: str) -> str | None: ...

    async def remember(self, key: str, value: str) -> None: ...


class Pictures:
    def __init__(self, memo: Memo, capacity: int = 256) -> None:
        self.memo = memo
        self.capacity = capacity
        self._cache: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._drawing: dict[tuple[str, str], asyncio.Future[bytes]] = {}
        # The pictures each message shows, by message id ({}: none, or none the memo knows of:
        # an edit treats both alike, so a message without pictures asks the memo only once);
        # of the latest MESSAGES_KEPT written (a message left out asks the memo again).
        self._shown: RecentMap[int, Shown] = RecentMap(MESSAGES_KEPT)
        self.stats = PictureStats()

    async def shown(self, message_id: int) -> Shown:
        """What a message's attachments hold (remembered across restarts); {} if none are
        known (a message posted without pictures has no memo)."""
        found = self._shown.get(message_id)
        if found is None:
            stored = await self.memo.recall(f"pictures:{message_id}")
            found = {} if stored is None else _parse_shown(stored)
            self._shown[message_id] = found
        return found

    def forget(self, message_id: int) -> None:
        """Another process edited the message: read what it shows from the memo next time."""
        self._shown.pop(message_id, None)

    async def for_edit(
        self, game: Game[Any, Any] | None, refs: list[PictureRef], message_id: int, *, clear: bool
    ) -> list[discord.File | KeptAttachment] | None:
        """The ``attachments`` an edit of ``message_id`` sends: None leaves them alone (nothing
        changed, or the message never had pictures), [] removes them (``clear``: the message
        shows no picture any more), else kept attachments and new files."""
        shown = await self.shown(message_id)
        if not refs:
            return [] if clear or shown else None
        assert game is not None
        return await self.attachments(game, refs, shown)

    async def after_edit(
        self,
        message_id: int,
        refs: list[PictureRef],
        attachments: list[dict[str, Any]],
        *,
        new: bool = False,
    ) -> None:
        """Remember what the message shows now that Discord answered with its attachments
        (``new``: a message just sent)."""
        shown = shown_after(refs, attachments)
        before = self._shown.get(message_id)
        self._shown[message_id] = shown
        if before == shown:
            return
        # A message without pictures that had none (a new one, or one known to have none)
        # needs no memo: a message without one reads as having none, after a restart too.
        if not shown and (before == {} or (before is None and new)):
            return
        await self.memo.remember(f"pictures:{message_id}", json.dumps(shown))

    async def png(self, game: Game[Any, Any], ref: PictureRef) -> bytes:
        """A game's picture (``Game.draw``)."""
        return await self._drawn((game.id, ref.key), partial(game.draw, ref.spec))

    async def chart(self, ref: PictureRef) -> bytes:
        """The end-of-game chart (the adapter's own drawing, not a game's)."""
        return await self._drawn(("chart", ref.key), partial(draw_chart, ref.spec))

    async def chart_file(self, ref: PictureRef) -> discord.File:
        data = await self.chart(ref)
        self.stats.uploads += 1
        return discord.File(io.BytesIO(data), filename=ref.name, description=ref.alt)

    async def _drawn(self, cache_key: tuple[str, str], draw: Callable[[], bytes]) -> bytes:
        """``draw()`` in a thread, once per key (cached; concurrent askers share one drawing)."""
        cached = self._cache.get(cache_key)
        if cached is not None:
            self._cache.move_to_end(cache_key)
            self.stats.cache_hits += 1
            return cached
        pending = self._drawing.get(cache_key)
        if pending is not None:  # the same picture is being drawn for another message
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._drawing[cache_key] = future
        try:
            loop = asyncio.get_running_loop()
            started = loop.time()
            data = await asyncio.to_thread(draw)
            self.stats.seconds_drawing += loop.time() - started
            self.stats.renders += 1
            self.stats.bytes_drawn += len(data)
            self._cache[cache_key] = data
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
            future.set_result(data)
            return data
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: whoever waits gets it, nobody else must
            raise
        finally:
            del self._drawing[cache_key]

    async def files(self, game: Game[Any, Any], refs: list[PictureRef]) -> list[discord.File]:
        """Every picture as a new file (for a new message or a reply)."""
        files = []
        for ref in refs:
            data = await self.png(game, ref)
            files.append(discord.File(io.BytesIO(data), filename=ref.name, description=ref.alt))
            self.stats.uploads += 1
        return files

    async def attachments(
        self, game: Game[Any, Any], refs: list[PictureRef], shown: Shown | None
    ) -> list[discord.File | KeptAttachment] | None:
        """What an edit must send as the message's attachments: None when the message already
        shows exactly these pictures (the edit leaves attachments alone), else the kept ones
        and new files for the changed ones."""
        if (
            shown is not None
            and set(shown) == {r.name for r in refs}
            and all(shown[r.name][0] == r.key for r in refs)
        ):
            return None
        out: list[discord.File | KeptAttachment] = []
        for ref in refs:
            if shown is not None and ref.name in shown and shown[ref.name][0] == ref.key:
                out.append(KeptAttachment(shown[ref.name][1]))
                self.stats.kept += 1
            else:
                out.extend(await self.files(game, [ref]))
        return out


def _parse_shown(stored: str) -> Shown:
    return {k: (v[0], int(v[1])) for k, v in json.loads(stored).items()}


def shown_after(refs: list[PictureRef], attachments: list[dict[str, Any]]) -> Shown:
    """What a message shows after Discord answered with its ``attachments``."""
    ids = {str(a.get("filename")): int(a["id"]) for a in attachments if "id" in a}
    return {r.name: (r.key, ids[r.name]) for r in refs if r.name in ids}
