"""The playground's web API without a browser: bad requests, what each user's stream holds."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp

from tests.playground.harness import WAIT, Playground, playground


async def post(pg: Playground, path: str, body: Any) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http:
        data = body if isinstance(body, str) else json.dumps(body)
        async with http.post(f"{pg.url}{path}", data=data) as answer:
            return answer.status, await answer.json()


async def stream(pg: Playground, user: int, until: Any, timeout: float = 5.0) -> list[Any]:
    """Read the user's live stream until ``until(events)`` holds; the events as (name, data)."""
    events: list[tuple[str, Any]] = []
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{pg.url}/api/events", params={"user": str(user)}) as answer,
    ):
        name = ""
        async with asyncio.timeout(timeout):
            async for raw in answer.content:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    events.append((name, json.loads(line[6:])))
                    if until(events):
                        return events
    raise AssertionError("the stream ended")


def message_ids(events: list[tuple[str, Any]]) -> set[str]:
    return {m["id"] for name, data in events if name == "messages" for m in data["messages"]}


async def test_bad_requests_are_refused_with_a_reason(tmp_path: Path) -> None:
    async with playground(tmp_path) as pg:
        alice, _ = pg.world.users
        channel = pg.world.channels[0]
        assert await post(pg, "/api/slash", "not json") == (
            400,
            {"error": "That request was not JSON."},
        )
        status, answer = await post(pg, "/api/slash", {"user": "42", "channel": channel})
        assert status == 400 and "no local user" in answer["error"]
        status, answer = await post(pg, "/api/slash", {"user": str(alice), "channel": channel})
        assert status == 400 and "missing" in answer["error"]
        status, answer = await post(
            pg,
            "/api/slash",
            {"user": str(alice), "channel": channel, "command": "game new", "options": {}},
        )
        assert status == 400
        assert "Discord would refuse this" in answer["error"] and "game" in answer["error"]
        status, answer = await post(
            pg, "/api/say", {"user": str(alice), "channel": channel, "content": ""}
        )
        assert status == 400 and "1 to 2000" in answer["error"]
        assert pg.world.emu.interactions == []  # nothing reached the bot


async def test_each_stream_holds_only_its_users_dms_and_private_replies(tmp_path: Path) -> None:
    async with playground(tmp_path) as pg:
        alice, bob = pg.world.users
        channel = pg.world.channels[0]
        emu = pg.world.emu
        status, _ = await post(
            pg,
            "/api/slash",
            {"user": str(alice), "channel": channel, "command": "game new",
             "options": {"game": "cafe-carnage"}},
        )  # fmt: skip
        assert status == 200
        status, _ = await post(
            pg, "/api/slash", {"user": str(bob), "channel": channel, "command": "game join"}
        )
        assert status == 200
        await emu.wait_until(lambda: emu.dm_messages(alice) and emu.dm_messages(bob), timeout=WAIT)
        await emu.wait_until(lambda: emu.ephemerals(bob), timeout=WAIT)
        bobs = {str(m.id) for m in [*emu.dm_messages(bob), *emu.ephemerals(bob)]}
        alices = {str(m.id) for m in emu.dm_messages(alice)}
        table = {str(m.id) for m in emu.channel_messages(channel)}
        seen = await stream(pg, alice, lambda ev: table | alices <= message_ids(ev))
        assert not message_ids(seen) & bobs
        world = next(data for name, data in seen if name == "world")
        assert world["me"] == {"id": str(alice), "dm": str(emu.dm_channel_id(alice))}
        seen = await stream(pg, bob, lambda ev: table | bobs <= message_ids(ev))
        assert not message_ids(seen) & alices
        # Nor can a user fetch a picture of a message they cannot see.
        async with aiohttp.ClientSession() as http:
            dm = next(iter(alices))
            async with http.get(f"{pg.url}/att/{bob}/{dm}/x.png") as answer:
                assert answer.status == 404
