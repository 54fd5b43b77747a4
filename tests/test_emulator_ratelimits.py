"""Rate-limit buckets (per route and major parameter, global) and message nonces."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from emulator import RULES, DiscordEmulator, EmulatorError, RateLimiter, running_bot
from tests.test_emulator import Seen, make_bot


class Raw:
    """A raw REST client that ignores rate-limit headers (as a buggy client would)."""

    def __init__(self, emu: DiscordEmulator, session: aiohttp.ClientSession) -> None:
        self.emu = emu
        self.session = session
        self.headers = {"Authorization": f"Bot {emu.token}"}

    async def call(
        self, method: str, path: str, body: Any = None
    ) -> tuple[int, Any, dict[str, str]]:
        url = f"{self.emu.rest_base}{path}"
        async with self.session.request(method, url, json=body, headers=self.headers) as r:
            data = await r.json() if r.content_type == "application/json" else await r.text()
            return r.status, data, dict(r.headers)


class StoppedClock:
    """The emulator's clock held still (moved only by ``advance``): the windows of these tests
    cannot run out however slowly the machine answers."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
async def raw_emu() -> AsyncIterator[tuple[DiscordEmulator, Raw, int, int, int]]:
    clock = StoppedClock()
    async with (
        DiscordEmulator(rate_limit_scale=1.0, clock=clock) as emu,
        aiohttp.ClientSession() as session,
    ):
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        other = emu.add_text_channel(guild, "bar")
        yield emu, Raw(emu, session), guild, chan, other


async def test_message_create_bucket_per_channel(
    raw_emu: tuple[DiscordEmulator, Raw, int, int, int],
) -> None:
    emu, raw, _, chan, other = raw_emu
    before = emu.now()
    answers = [
        await raw.call("POST", f"/channels/{chan}/messages", {"content": "x"}) for _ in range(7)
    ]
    after = emu.now()
    assert [a[0] for a in answers] == [200] * 5 + [429] * 2
    first = answers[0][2]
    assert first["X-RateLimit-Limit"] == "5" and first["X-RateLimit-Remaining"] == "4"
    assert first["X-RateLimit-Reset-After"] == "5.000"  # the window's clock stood still
    # Reset: the epoch second the window ends, on the emulator's wall clock.
    assert before + 5 - 0.001 <= float(first["X-RateLimit-Reset"]) <= after + 5 + 0.001
    assert [a[2]["X-RateLimit-Remaining"] for a in answers[:5]] == ["4", "3", "2", "1", "0"]
    assert len({a[2]["X-RateLimit-Bucket"] for a in answers}) == 1
    _, body, headers = answers[5]
    assert body["global"] is False and 0 < body["retry_after"] <= 5.0
    assert headers["Via"] and headers["X-RateLimit-Scope"] == "user"
    assert "X-RateLimit-Global" not in headers and int(headers["Retry-After"]) >= 1
    assert len(emu.channel_messages(chan)) == 5  # refused requests are not processed
    # Another channel has its own bucket.
    for _ in range(5):
        assert (await raw.call("POST", f"/channels/{other}/messages", {"content": "y"}))[0] == 200
    assert [(r.method, r.bucket, r.scope) for r in emu.rate_limited] == [
        ("POST", f"message-create:{chan}", "user")
    ] * 2
    with pytest.raises(EmulatorError, match="429"):
        emu.assert_clean()
    emu.assert_clean(allow_rate_limited=True)


async def test_edit_and_delete_share_a_bucket_and_dm_creation(
    raw_emu: tuple[DiscordEmulator, Raw, int, int, int],
) -> None:
    emu, raw, guild, chan, _ = raw_emu
    ids = []
    for i in range(4):
        _, body, _ = await raw.call("POST", f"/channels/{chan}/messages", {"content": f"m{i}"})
        ids.append(body["id"])
    statuses = [
        (await raw.call("PATCH", f"/channels/{chan}/messages/{ids[0]}", {"content": "e"}))[0]
        for _ in range(3)
    ]
    for mid in ids[1:]:
        statuses.append((await raw.call("DELETE", f"/channels/{chan}/messages/{mid}"))[0])
    assert statuses == [200, 200, 200, 204, 204, 429]
    assert emu.rate_limited[-1].bucket == f"message-edit:{chan}"

    users = [emu.add_user(f"u{i}", guild=guild) for i in range(6)]
    dm_statuses = [
        (await raw.call("POST", "/users/@me/channels", {"recipient_id": str(u)}))[0] for u in users
    ]
    assert dm_statuses == [200] * 5 + [429]
    assert emu.rate_limited[-1].bucket == "dm-create:"


async def test_global_limit(raw_emu: tuple[DiscordEmulator, Raw, int, int, int]) -> None:
    emu, raw, _, chan, other = raw_emu
    statuses = []
    for i in range(51):  # two channels: no route bucket runs dry, the global one does
        statuses.append((await raw.call("GET", f"/channels/{(chan, other)[i % 2]}"))[0])
    assert statuses == [200] * 50 + [429]
    record = emu.rate_limited[-1]
    assert record.scope == "global" and record.bucket == "global"
    status, body, headers = await raw.call("GET", "/users/@me")
    assert status == 429 and body["global"] is True
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"


async def test_well_behaved_discord_py_is_throttled_never_refused() -> None:
    async with DiscordEmulator(rate_limit_scale=0.1) as emu:  # 5 per 0.5 s
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        async with running_bot(emu, make_bot(Seen())) as bot:
            channel = bot.get_channel(chan)
            assert isinstance(channel, discord.TextChannel)
            sent = await asyncio.gather(*(channel.send(f"m{i}") for i in range(12)))
            await asyncio.gather(*(m.edit(content=f"edited {m.content}") for m in sent[:7]))
            await asyncio.gather(*(m.delete() for m in sent[7:]))
        assert [m.content for m in emu.channel_messages(chan)] == [f"edited m{i}" for i in range(7)]
        # 12 sends need three windows of 5 (0.5 s each), on the emulator's clock.
        posts = [
            c.time for c in emu.rest_calls if c.method == "POST" and c.path.endswith("/messages")
        ]
        assert posts[10] - posts[0] >= 2 * 0.5 - 1e-6, posts
        assert emu.rate_limiter.exhausted["message-create"] >= 2
        assert emu.rate_limiter.exhausted["message-edit"] >= 2
        assert not emu.rate_limited
        emu.assert_clean()


async def test_concurrent_first_edit_and_delete_overrun_the_shared_bucket() -> None:
    """discord.py learns bucket hashes per route: the first PATCH and the first DELETE of a
    channel, sent together, each think they have the bucket to themselves. The emulator
    answers the excess with 429 (discord.py waits and retries, nothing is lost)."""
    async with DiscordEmulator(rate_limit_scale=0.1) as emu:
        chan = emu.add_text_channel(emu.add_guild("Game Night"), "cafe")
        async with running_bot(emu, make_bot(Seen())) as bot:
            channel = bot.get_channel(chan)
            assert isinstance(channel, discord.TextChannel)
            sent = [await channel.send(f"m{i}") for i in range(8)]
            await asyncio.sleep(0.5)
            await asyncio.gather(
                *(m.edit(content="edited") for m in sent[:4]), *(m.delete() for m in sent[4:])
            )
        assert [m.content for m in emu.channel_messages(chan)] == ["edited"] * 4
        assert emu.rate_limited and {r.bucket for r in emu.rate_limited} == {f"message-edit:{chan}"}
        with pytest.raises(EmulatorError, match="429"):
            emu.assert_clean()


async def test_interaction_routes_have_their_own_buckets_outside_the_global_one() -> None:
    async with DiscordEmulator(rate_limit_scale=1.0) as emu, aiohttp.ClientSession() as session:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        raw = Raw(emu, session)
        async with running_bot(emu, make_bot(Seen())):
            for _ in range(5):  # the channel's message bucket runs dry...
                await raw.call("POST", f"/channels/{chan}/messages", {"content": "x"})
            for _ in range(60):  # ... and so does the global one
                await raw.call("GET", "/users/@me")
            assert (await raw.call("GET", "/gateway/bot"))[0] == 429
            before = len(emu.rate_limited)
            res = await emu.slash(alice, chan, "ping slow")  # callback + 2 followups
            await emu.wait_until(lambda: len(res.followups()) == 1)
            assert [m.content for m in res.messages()] == ["done thinking", "and one more"]
            assert len(emu.rate_limited) == before  # none of those was refused
            hello = await emu.slash(alice, chan, "hello")
            assert hello.message is not None


async def test_rate_limits_off_and_rules_table(monkeypatch: pytest.MonkeyPatch) -> None:
    async with DiscordEmulator(rate_limits=False) as emu, aiohttp.ClientSession() as session:
        chan = emu.add_text_channel(emu.add_guild("g"), "c")
        raw = Raw(emu, session)
        for _ in range(20):
            status, _, headers = await raw.call(
                "POST", f"/channels/{chan}/messages", {"content": "x"}
            )
            assert status == 200 and headers["X-RateLimit-Remaining"] == "9999"
        assert not emu.rate_limited
    monkeypatch.delenv("EMULATOR_RATE_LIMIT_SCALE", raising=False)
    assert DiscordEmulator().rate_limiter.scale == 0.01
    monkeypatch.setenv("EMULATOR_RATE_LIMIT_SCALE", "1")
    assert DiscordEmulator().rate_limiter.scale == 1.0
    assert DiscordEmulator(rate_limit_scale=0.5).rate_limiter.scale == 0.5
    assert RULES["message-create"].limit == 5 and RULES["message-create"].window == 5.0
    assert RULES["interaction-callback"].global_exempt
    with pytest.raises(ValueError):
        DiscordEmulator(rate_limit_scale=0)


# ---------------------------------------------------------------------------------- nonces


async def test_enforced_nonce_returns_the_existing_message() -> None:
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        side = emu.add_text_channel(guild, "side")
        bot = make_bot(Seen())
        created: list[int] = []

        async def on_message(message: discord.Message) -> None:
            created.append(message.id)

        bot.add_listener(on_message)
        async with running_bot(emu, bot):
            channel, other = bot.get_channel(chan), bot.get_channel(side)
            assert isinstance(channel, discord.TextChannel)
            assert isinstance(other, discord.TextChannel)
            first = await channel.send("once", nonce=12345)
            again = await channel.send("once again?", nonce=12345)  # discord.py enforces it
            assert again.id == first.id and again.content == "once"
            assert first.nonce == "12345"
            elsewhere = await other.send("other channel", nonce=12345)
            assert elsewhere.id != first.id
            emu.advance_clock(5 * 60 + 1)  # "the past few minutes" are over
            later = await channel.send("later", nonce=12345)
            assert later.id != first.id
            await emu.wait_until(lambda: len(created) == 3)
            await asyncio.sleep(0.05)
        assert sorted(created) == sorted([first.id, elsewhere.id, later.id])
        assert [m.content for m in emu.channel_messages(chan)] == ["once", "later"]
        assert emu.get_message(first.id).nonce == "12345"
        assert len(emu.nonce_duplicates) == 1
        emu.assert_clean()


async def test_nonce_without_enforcement_and_invalid_nonces() -> None:
    async with DiscordEmulator(rate_limits=False) as emu, aiohttp.ClientSession() as session:
        chan = emu.add_text_channel(emu.add_guild("g"), "c")
        raw = Raw(emu, session)
        path = f"/channels/{chan}/messages"
        a = await raw.call("POST", path, {"content": "a", "nonce": 77})
        b = await raw.call("POST", path, {"content": "b", "nonce": 77})
        assert a[0] == b[0] == 200 and a[1]["id"] != b[1]["id"] and a[1]["nonce"] == 77
        c = await raw.call("POST", path, {"content": "c", "nonce": 77, "enforce_nonce": True})
        assert c[1]["id"] == b[1]["id"]  # the latest message with that nonce
        for body in (
            {"content": "x", "nonce": "n" * 26},
            {"content": "x", "nonce": True},
            {"content": "x", "nonce": 1.5},
            {"content": "x", "nonce": "ok", "enforce_nonce": "yes"},
        ):
            status, data, _ = await raw.call("POST", path, body)
            assert status == 400 and data["code"] == 50035, body
        assert [v.kind for v in emu.violations] == ["invalid_form_body"] * 4
        body = {"content": "x", "nonce": "n" * 25, "enforce_nonce": True}
        assert (await raw.call("POST", path, body))[0] == 200
        assert [m.content for m in emu.channel_messages(chan)] == ["a", "b", "x"]


def test_limiter_fixed_windows_scale_and_exemptions() -> None:
    limiter = RateLimiter(scale=0.5)  # 5 per 2.5 s, global 50 per 0.5 s
    create = ("POST", "/channels/{cid}/messages")
    got = [limiter.acquire(*create, "1", now=100.0 + i * 0.1) for i in range(6)]
    assert [d.allowed for d in got] == [True] * 5 + [False]
    assert got[0].reset_after == 2.5 and got[4].remaining == 0
    assert got[5].scope == "user" and got[5].reset_after == pytest.approx(2.0)
    assert limiter.acquire(*create, "2", now=100.6).allowed  # another channel
    again = limiter.acquire(*create, "1", now=102.5)  # the window has passed
    assert again.allowed and again.remaining == 4
    edit = limiter.rule_for("PATCH", "/channels/{cid}/messages/{mid}")
    delete = limiter.rule_for("DELETE", "/channels/{cid}/messages/{mid}")
    assert edit == delete and edit[1] != limiter.rule_for(*create)[1]
    assert limiter.rule_for("GET", "/a")[1] != limiter.rule_for("GET", "/b")[1]

    for i in range(50):
        assert limiter.acquire("GET", "/users/{uid}", str(i % 3), now=200.0).allowed
    refused = limiter.acquire("GET", "/gateway/bot", "", now=200.1)
    assert not refused.allowed and refused.scope == "global"
    headers = refused.headers()
    assert headers["X-RateLimit-Global"] == "true" and headers["Retry-After"] == "1"
    callback = ("POST", "/interactions/{iid}/{token}/callback")
    assert limiter.acquire(*callback, "9:tok", now=200.2).allowed  # exempt from the global one
    assert limiter.acquire("GET", "/gateway/bot", "", now=200.5).allowed  # next global window
