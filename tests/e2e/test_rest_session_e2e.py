"""discord.py's own REST requests on the bot's kept-alive connections (bot/adapter/rest_session.py),
end to end: a whole game played twice from the same seed, once through them and once through
aiohttp alone, with the same faults on the way (a route's 429, a global 429, a 5xx, a lost
answer), shows every player and the table the same messages, pictures included; a closed DM is
still seen as closed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.adapter import rest_session
from bot.core.metrics import route_of
from emulator import DiscordEmulator
from games import REGISTRY
from tests.e2e.harness import World, game_messages, invalid_mark, invalid_requests, open_game, world
from tests.e2e.players import play_to_the_end

GAME = "alien-cafe"  # its table shows a picture: an attachment, sent by aiohttp as before
DM_SEND = re.compile(r"^/channels/\d+/messages$")
EDIT = re.compile(r"^/channels/\d+/messages/\d+$")
Seen = list[tuple[str, str, int]]  # what the kept-alive connections carried: method, route, status


def recorder(seen: Seen) -> Any:
    """A FastHttp observer noting each answer's method, route and status."""

    def observe(method: str, path: str, status: int, headers: Any) -> None:
        seen.append((method, route_of(re.sub(r"^/api/v\d+", "", path)), status))

    return observe


def shown(version: dict[str, Any]) -> dict[str, Any]:
    """A message's version as a person sees it (an attachment's id and URL are the emulator's;
    a file by its bytes' digest)."""
    attachments = [
        {k: v for k, v in a.items() if k not in ("id", "url", "proxy_url")}
        for a in version["attachments"]
    ]
    files = {name: hashlib.sha256(data).hexdigest() for name, data in version["files"].items()}
    return {**version, "attachments": attachments, "files": files}


def everything_shown(emu: DiscordEmulator, channel: int, users: list[int]) -> str:
    """Every version of every message in the game's channel (and its threads) and each
    player's DMs, in order, as JSON; a deadline's time and the emulator's port left out, each snowflake (a channel's, a message's: each emulator
    makes its own) by the order it first appears in."""
    every = {
        "table": [[shown(v) for v in m.versions()] for m in game_messages(emu, channel)],
        "dms": [[[shown(v) for v in m.versions()] for m in emu.dm_messages(u)] for u in users],
    }
    ids: dict[str, str] = {}
    text = json.dumps(every, ensure_ascii=False, sort_keys=True)
    text = re.sub(r"<t:\d+", "<t:T", text)  # a deadline, by the wall clock
    text = re.sub(r"//127\.0\.0\.1:\d+/", "//emulator/", text)  # a picture's URL
    return re.sub(r"\d{17,20}", lambda found: ids.setdefault(found.group(), f"#{len(ids)}"), text)


class SetUpIds:
    """The ids of what a world sets up (the bot, the guild, the channel, the players) the same
    in every run: a control's key hashes who it names. What comes later (threads, messages,
    interactions) takes the emulator's own ids, by its clock."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.base = DiscordEmulator().snowflake()
        self.counted: int | None = None  # setting up: ids counted from ``base``
        own = DiscordEmulator.snowflake

        def snowflake(emu: DiscordEmulator) -> int:
            if self.counted is None:
                return own(emu)
            self.counted += 1
            emu._last_snowflake = self.base + self.counted
            return emu._last_snowflake

        monkeypatch.setattr(DiscordEmulator, "snowflake", snowflake)

    @contextlib.asynccontextmanager
    async def world(self, tmp_path: Path, players: int) -> AsyncIterator[World]:
        self.counted = 0
        async with world(tmp_path, players) as w:
            self.counted = None
            yield w


async def play_with_faults(
    tmp_path: Path, ids: SetUpIds, *, fast: bool
) -> tuple[str, list[Any], Seen]:
    seen: Seen = []
    tmp_path.mkdir()
    async with ids.world(tmp_path, 3) as w:
        async with w.bot_running() as bot:
            if fast:
                assert bot.fast_http is not None
                bot.fast_http.observe = recorder(seen)
            emu = w.emu
            emu.inject_fault("POST", DM_SEND, status=429, retry_after=0.05)  # the route's
            emu.inject_fault("PATCH", EDIT, status=429, retry_after=0.05, is_global=True)
            emu.inject_fault("PATCH", EDIT, status=500)  # discord.py tries again a second later
            emu.inject_fault("POST", DM_SEND, status=502, processed=True)  # the answer lost
            await play_to_the_end(
                emu, bot, w.clock, REGISTRY[GAME], w.channel, w.users, seed=7, clicks_per_player=2
            )
            await w.settle()
        faults = [(f.method, route_of(f.path), f.status, f.kind) for f in emu.faults_injected]
        return everything_shown(emu, w.channel, w.users), faults, seen


@pytest.mark.heavy
async def test_a_game_shows_the_same_through_either_transport_faults_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = SetUpIds(monkeypatch)
    through_fast, faults_fast, seen = await play_with_faults(tmp_path / "fast", ids, fast=True)
    monkeypatch.setattr(rest_session, "install", lambda http, fast: None)
    through_aiohttp, faults_aiohttp, unseen = await play_with_faults(
        tmp_path / "aiohttp", ids, fast=False
    )
    assert unseen == []
    assert through_fast == through_aiohttp
    assert faults_fast == faults_aiohttp and len(faults_fast) == 4
    assert '"attachments": [{' in through_fast, "the table's picture was sent"
    sent = {(m, r, s) for m, r, s in seen if not r.startswith("/interactions")}
    assert {
        ("POST", "/channels/{id}/messages", 429),
        ("PATCH", "/channels/{id}/messages/{id}", 429),
        ("PATCH", "/channels/{id}/messages/{id}", 500),
        ("POST", "/channels/{id}/messages", 502),
        ("POST", "/channels/{id}/messages", 200),
        ("PATCH", "/channels/{id}/messages/{id}", 200),
    } <= sent, "the DMs and edits went on the kept-alive connections, faults and retries too"


async def test_a_closed_dm_is_still_seen_as_closed(tmp_path: Path) -> None:
    async with world(tmp_path, 3) as w:
        bob = w.users[1]
        w.emu.set_dms_open(bob, False)
        start = invalid_mark(w.emu)
        async with w.bot_running() as bot:
            seen: Seen = []
            assert bot.fast_http is not None
            bot.fast_http.observe = recorder(seen)
            await open_game(w, "cafe-carnage")
            assert invalid_requests(w.emu, start) == {"403/50007": 1}
            told = [m for m in w.game_messages() if "DMs are closed" in m.current_text()]
            assert len(told) == 1 and f"<@{bob}>" in told[0].content
            assert ("POST", "/channels/{id}/messages", 403) in seen
            assert w.emu.dm_messages(bob) == []
