"""A watch on everything the bot says, for secrets said to someone they are hidden from.

The secrets are each game's own declaration: ``Game.secrets`` (card ids and the like, whose
they are, or nobody's: a face-down deck), ``bot.core.seat_view.hidden_from`` (which of them a
seat may not see now) and ``Game.secret_words`` (how a text writes them: a card's name). So a new
game is watched without a line here.

A word may be hidden from a viewer and still known to them: another copy of the card is on the
table, in their own hand, or was announced. What the viewer may know is what the game itself
shows them in the same moment: the table, their own panel, the announcements so far. Not the
rules: a card kind the rules name ("Split the Bill Evenly") is still a secret as someone's
hidden ballot, so the watch looks at a lobby (whose options quote the rules) before its start.
A text is a leak when it holds a secret hidden from its reader at that moment (in any state the
game went through since the last look) that none of those shows them.

Who reads a text: a channel's or a thread's message, and the log, everyone (checked against the
secrets of every seat, and nobody's); a DM or an ephemeral answer, that user only (checked
against the secrets hidden from their seat).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from bot.app import CafeBot
from bot.core.seat_view import hidden_from
from bot.core.sessions import Change
from emulator import DiscordEmulator, Message
from games.engine import Game, GameState, new_game

# Keys of a message's JSON that no reader sees as text.
_NOT_TEXT = {"url", "proxy_url", "icon_url", "content_type", "id", "nonce", "files"}


def strings_of(value: Any) -> Iterator[str]:
    """Every string a reader (or their client) gets from a message version's JSON: content,
    embeds, components' labels and custom ids, attachments' names and descriptions (alt
    text)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _NOT_TEXT:
                yield from strings_of(item)


def new_versions(message: Message, start: int) -> list[dict[str, Any]]:
    """The versions of ``message`` from index ``start`` (its edits keep the older ones)."""
    older = message.history[start:]
    return [*older, message.snapshot()] if start <= len(message.history) else []


@dataclass
class Knowledge:
    """What one viewer may not read, and may read, over a stretch of a game."""

    hidden_ids: set[str] = field(default_factory=set)
    hidden_words: dict[str, str] = field(default_factory=dict)  # word → the secret it names
    known: list[str] = field(default_factory=list)  # texts the game itself shows the viewer
    # Worked out at the first leaks(), once everything is known: hidden and not shown.
    _ids: set[str] = field(default_factory=set)
    _words: dict[str, str] | None = None

    def leaks(self, text: str) -> list[str]:
        """The secrets ``text`` tells this viewer: ids as whole tokens, words anywhere."""
        if self._words is None:
            known = "\n".join(self.known)
            self._ids = self.hidden_ids - tokens(known)
            self._words = {w: s for w, s in self.hidden_words.items() if w not in known}
        found = sorted(self._ids & tokens(text))
        found += [f"{word!r} ({secret})" for word, secret in self._words.items() if word in text]
        return found


_TOKEN = re.compile(r"[\w:]+")


def tokens(text: str) -> set[str]:
    """The id-like words of ``text``: an id counts where it stands alone (not "cb:g:1:S07")."""
    return set(_TOKEN.findall(text))


def knowledge(game: Game[Any, Any], states: list[GameState], viewer: str | None) -> Knowledge:
    """What ``viewer`` (a seat; None: anyone) may not read, and what the game shows them, in
    any of ``states`` (a stretch of one game)."""
    k = Knowledge()
    for state in states:
        if viewer is not None and viewer in state.players:
            hidden = hidden_from(game, state, viewer)
            k.known.append(_text(game.panel(state, viewer)))
        else:
            hidden = set(game.secrets(state, None))
            for player in state.players:
                hidden |= game.secrets(state, player)
        k.hidden_ids |= hidden
        for secret in hidden:
            for word in game.secret_words(secret):
                k.hidden_words.setdefault(word, secret)
        k.known += [_text(panel) for panel in game.table(state)]
        k.known += [_text(a) for a in state.announcements]
        outcome = game.outcome(state)
        if outcome is not None:
            k.known.append(_text(outcome))
    return k


def _text(model: BaseModel) -> str:
    return "\n".join(strings_of(model.model_dump(mode="json")))


@dataclass
class Leak:
    where: str
    viewer: str
    secrets: list[str]
    text: str

    def __str__(self) -> str:
        snippet = self.text if len(self.text) < 300 else self.text[:300] + "…"
        return f"{self.where}, read by {self.viewer}: {', '.join(self.secrets)} in {snippet!r}"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class SecrecyWatch:
    """Looks at every new text (message versions, ephemerals, DMs, log records) at each
    ``look()``, against the states the watched games went through since the previous look."""

    def __init__(self, emu: DiscordEmulator) -> None:
        """Reads the log from now on; ``watch(bot)`` then follows that bot's games."""
        self.emu = emu
        self._bot: CafeBot | None = None
        self.leaks: list[Leak] = []
        self.texts = 0  # texts looked at
        self.log_records = 0  # of which log records
        self.secrets_seen: set[str] = set()  # every secret hidden from someone at some look
        self._versions: dict[int, int] = {}  # message id → versions looked at
        self._stretch: dict[int, list[GameState]] = {}  # session → states since the last look
        self._games: dict[int, Game[Any, Any]] = {}
        self._logs = _Records()
        self._logged = 0
        root = logging.getLogger()
        self._level = root.level
        root.addHandler(self._logs)
        root.setLevel(min(self._level or logging.WARNING, logging.INFO))

    def watch(self, bot: CafeBot) -> None:
        self._bot = bot
        bot.service.subscribe(self._heard)

    @property
    def bot(self) -> CafeBot:
        assert self._bot is not None, "watch(bot) first"
        return self._bot

    def close(self) -> None:
        root = logging.getLogger()
        root.removeHandler(self._logs)
        root.setLevel(self._level)

    def _heard(self, change: Change) -> None:
        # Every committed state, also those a bot player's move replaced before the next look.
        s = self.bot.service._cache.get(change.session_id)  # the state just committed
        if s is not None and s.state is not None:
            self._games[s.id] = s.game
            stretch = self._stretch.setdefault(s.id, [])
            if not stretch or stretch[-1] is not s.state:
                stretch.append(s.state)

    def _knowledge(self, viewer: str | None) -> Knowledge:
        total = Knowledge()
        for sid, states in self._stretch.items():
            k = knowledge(self._games[sid], states, viewer)
            total.hidden_ids |= k.hidden_ids
            total.hidden_words |= k.hidden_words
            total.known += k.known
        return total

    def reader_of(self, message: Message) -> str | None:
        """The seat (user id) a DM or an ephemeral answer is for; None: anyone."""
        if message.ephemeral_to is not None:
            return str(message.ephemeral_to)
        if message.guild_id is not None:
            return None
        for user in self.emu.users:
            if self.emu.dm_channel_id(user) == message.channel_id:
                return str(user)
        return None

    async def look(self) -> None:
        """Check every text since the last look; then start a new stretch of states."""
        ended = []
        for row in await self.bot.store.sessions_with_status("active"):
            if row.id not in self._stretch:  # started since (a start is not cached): from its deal
                s = await self.bot.service.load(row.id)
                self._stretch[row.id] = [new_game(s.game, s.player_ids, s.options, row.seed)]
        for sid in list(self._stretch):
            s = await self.bot.service.load(sid)
            self._games[sid] = s.game
            if s.state is None:
                continue
            if not self._stretch[sid] or s.state is not self._stretch[sid][-1]:
                self._stretch[sid].append(s.state)
            if not s.status.is_open:
                ended.append(sid)  # looked at once more, for what its end said
        cache: dict[str | None, Knowledge] = {}

        def check(where: str, reader: str | None, text: str) -> None:
            if reader not in cache:
                cache[reader] = self._knowledge(reader)
                self.secrets_seen |= cache[reader].hidden_ids
            self.texts += 1
            found = cache[reader].leaks(text)
            if found:
                self.leaks.append(Leak(where, reader or "everyone", found, text))

        for message in self.emu.all_messages():
            start = self._versions.get(message.id, 0)
            if start > len(message.history):
                continue
            versions = new_versions(message, start)
            self._versions[message.id] = start + len(versions)
            reader = self.reader_of(message)
            for n, version in enumerate(versions, start):
                text = "\n".join(strings_of(version))
                check(f"message {message.id} version {n}", reader, text)
        for record in self._logs.records[self._logged :]:
            check(f"log {record.name} {record.levelname}", None, record.getMessage())
        self.log_records += len(self._logs.records) - self._logged
        self._logged = len(self._logs.records)
        self._stretch = {
            sid: states[-1:] for sid, states in self._stretch.items() if sid not in ended
        }

    def would_flag(self, reader: str | None, text: str) -> list[str]:
        """What the watch would call a leak in ``text`` now (to show it can see one)."""
        return self._knowledge(reader).leaks(text)
