"""Fault injection, dropped connections, deleted channels, gateway drops and outages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
import discord
import pytest
from discord.ext import commands

from emulator import DiscordEmulator, EmulatorError, running_bot
from tests.test_emulator import Seen, expect_violation, make_bot


@dataclass
class Env:
    emu: DiscordEmulator
    bot: commands.Bot
    seen: Seen
    guild: int
    chan: int
    alice: int


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        seen = Seen()
        bot = make_bot(seen)
        async with running_bot(emu, bot, identify_delay=0):
            yield Env(emu, bot, seen, guild, chan, alice)


def text_channel(e: Env, cid: int | None = None) -> discord.TextChannel:
    channel = e.bot.get_channel(cid or e.chan)
    assert isinstance(channel, discord.TextChannel)
    return channel


def calls(emu: DiscordEmulator, method: str, path: str) -> int:
    return sum(1 for c in emu.rest_calls if c.method == method and c.path == path)


def arrivals(emu: DiscordEmulator, method: str, path: str) -> list[float]:
    """When each matching call reached the emulator, on its clock."""
    return [c.time for c in emu.rest_calls if c.method == method and c.path == path]


async def test_server_errors_retried_or_raised_as_discord_py_does(env: Env) -> None:
    emu = env.emu
    channel = text_channel(env)
    path = f"/channels/{env.chan}/messages"

    # 503: discord.py does not retry it (only 500/502/504/524) -> DiscordServerError at once.
    emu.inject_fault("POST", path, status=503)
    with pytest.raises(discord.DiscordServerError) as info:
        await channel.send("during an outage")
    assert info.value.status == 503 and "Service Unavailable" in info.value.text
    assert emu.channel_messages(env.chan) == []

    # 500 once: discord.py sleeps 1 s and retries; the second call goes through.
    emu.inject_fault("POST", path, status=500, times=1)
    sent = await channel.send("after a 500")
    refused, retried = arrivals(emu, "POST", path)[-2:]
    assert retried - refused >= 1.0  # discord.py's first back-off, on the emulator's clock
    assert [m.id for m in emu.channel_messages(env.chan)] == [sent.id]
    assert calls(emu, "POST", path) == 3

    statuses = [(f.status, f.code, f.kind, f.processed) for f in emu.faults_injected]
    assert statuses == [(503, None, "http", False), (500, 0, "http", False)]
    assert not emu.rate_limited
    emu.assert_clean()


async def test_lost_answer_after_processing_is_deduplicated_by_the_nonce(env: Env) -> None:
    """A 502 after Discord created the message: discord.py retries the same payload (same
    nonce, enforce_nonce) and gets the message that already exists, not a second one."""
    emu = env.emu
    channel = text_channel(env)
    path = f"/channels/{env.chan}/messages"
    emu.inject_fault("POST", path, status=502, processed=True)
    sent = await channel.send("exactly once")
    assert [m.content for m in emu.channel_messages(env.chan)] == ["exactly once"]
    assert emu.channel_messages(env.chan)[0].id == sent.id
    assert calls(emu, "POST", path) == 2
    assert len(emu.nonce_duplicates) == 1 and emu.nonce_duplicates[0][2] == sent.id
    record = emu.faults_injected[-1]
    assert record.status == 502 and record.processed and record.code is None
    emu.assert_clean()


async def test_forbidden_not_found_and_injected_429(env: Env) -> None:
    emu = env.emu
    channel = text_channel(env)
    path = f"/channels/{env.chan}/messages"
    emu.inject_fault("POST", path, status=403, code=50001)
    with pytest.raises(discord.Forbidden) as forbidden:
        await channel.send("no access")
    assert forbidden.value.code == 50001 and forbidden.value.text == "Missing Access"
    emu.inject_fault("POST", path, status=403)
    with pytest.raises(discord.Forbidden) as missing:
        await channel.send("no permission")
    assert missing.value.code == 50013
    emu.inject_fault("*", f"/channels/{env.chan}", status=404)
    with pytest.raises(discord.NotFound) as gone:
        await channel.send("gone")
    assert gone.value.code == 10003

    emu.inject_fault("POST", path, status=429, retry_after=0.1, times=2)
    await channel.send("after two 429s")
    first, second, third = arrivals(emu, "POST", path)[-3:]
    assert second - first >= 0.1 and third - second >= 0.1  # each retry_after waited out
    assert [m.content for m in emu.channel_messages(env.chan)] == ["after two 429s"]
    assert [f.status for f in emu.faults_injected] == [403, 403, 404, 429, 429]
    assert not emu.rate_limited  # injected 429s are faults, not the buckets' answers
    emu.assert_clean()


async def test_forever_probability_seed_remove_and_clear() -> None:
    async def pattern(seed: int) -> list[int]:
        async with DiscordEmulator() as emu:
            fault = emu.inject_fault(
                "GET", "/users/@me", status=500, times=None, probability=0.5, seed=seed
            )
            headers = {"Authorization": f"Bot {emu.token}"}
            out = []
            async with aiohttp.ClientSession() as session:
                for _ in range(30):
                    async with session.get(f"{emu.rest_base}/users/@me", headers=headers) as r:
                        out.append(r.status)
                fault.remove()
                async with session.get(f"{emu.rest_base}/users/@me", headers=headers) as r:
                    assert r.status == 200
            assert len(emu.faults_injected) == out.count(500) == fault.hits
            return out

    first, second = await pattern(7), await pattern(7)
    assert first == second and 5 < first.count(500) < 25 and 200 in first

    async with DiscordEmulator() as emu, aiohttp.ClientSession() as session:
        emu.inject_fault("*", "/gateway", status=502, times=None, seed=1)
        emu.inject_fault("GET", "/users/@me", status=500, html=True)
        for _ in range(3):
            async with session.get(f"{emu.rest_base}/gateway") as r:
                assert r.status == 502 and r.content_type == "text/html"
                assert "cloudflare" in await r.text()
        emu.clear_faults()
        async with session.get(f"{emu.rest_base}/gateway") as r:
            assert r.status == 200
        with pytest.raises(ValueError):
            emu.inject_fault("GET", "/x", status=200)
        with pytest.raises(ValueError):
            emu.inject_fault("GET", "/x")


async def test_dropped_connections(env: Env) -> None:
    emu = env.emu
    channel = text_channel(env)
    path = f"/channels/{env.chan}/messages"
    emu.drop_connection("POST", path)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await channel.send("never arrives")
    assert emu.channel_messages(env.chan) == []

    # Processed, then dropped: the message exists but the bot never learns its id...
    emu.drop_connection("POST", path, processed=True)
    with pytest.raises(aiohttp.ClientConnectionError):
        await channel.send("arrives unseen", nonce=4242)
    assert [m.content for m in emu.channel_messages(env.chan)] == ["arrives unseen"]
    # ... and a retry with the same nonce gets that message instead of a duplicate.
    again = await channel.send("arrives unseen", nonce=4242)
    assert [m.id for m in emu.channel_messages(env.chan)] == [again.id]
    assert [(f.kind, f.status, f.processed) for f in emu.faults_injected] == [
        ("drop", None, False),
        ("drop", None, True),
    ]

    # aiohttp itself retries an idempotent request once on a reused connection.
    user_path = f"/users/{env.alice}"
    await env.bot.fetch_user(env.alice)  # the connection is now kept alive
    emu.drop_connection("GET", user_path)
    user = await env.bot.fetch_user(env.alice)
    assert user.id == env.alice and calls(emu, "GET", user_path) == 3
    emu.drop_connection("GET", user_path, times=2)
    with pytest.raises(aiohttp.ClientConnectionError):
        await env.bot.fetch_user(env.alice)
    emu.assert_clean()


async def test_deleted_channels_and_threads(env: Env) -> None:
    emu, bot = env.emu, env.bot
    deleted: list[int] = []

    async def on_guild_channel_delete(channel: discord.abc.GuildChannel) -> None:
        deleted.append(channel.id)

    async def on_raw_thread_delete(payload: discord.RawThreadDeleteEvent) -> None:
        deleted.append(payload.thread_id)

    bot.add_listener(on_guild_channel_delete)
    bot.add_listener(on_raw_thread_delete)

    side = emu.add_text_channel(env.guild, "side")
    thread = emu.add_thread(env.guild, parent=side, name="side thread")
    table_thread = emu.add_thread(env.guild, parent=env.chan, name="table thread")
    await emu.wait_until(lambda: bot.get_channel(table_thread) and bot.get_channel(thread))
    res = await emu.slash(env.alice, side, "ping table")
    table = res.message
    assert table is not None
    channel = text_channel(env, side)

    emu.delete_channel(table_thread)
    await emu.wait_until(lambda: table_thread in deleted)
    assert bot.get_channel(table_thread) is None and bot.get_channel(env.chan) is not None

    emu.delete_channel(side)  # its thread goes with it
    await emu.wait_until(lambda: side in deleted and thread in deleted)
    assert bot.get_channel(side) is None
    assert side in emu.deleted_channels and side not in emu.channels

    with pytest.raises(discord.NotFound) as info:
        await channel.send("anyone here?")
    assert info.value.code == 10003
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(table.id)
    with pytest.raises(EmulatorError, match="unknown channel"):
        await emu.slash(env.alice, side, "hello")
    with pytest.raises(EmulatorError, match="unknown channel"):
        await emu.click(env.alice, table, "table:poke")
    assert table in emu.visible_to(env.alice)  # what was seen stays seen
    with pytest.raises(EmulatorError):
        emu.delete_channel(side)
    res = await emu.slash(env.alice, env.chan, "hello")  # the rest still works
    assert res.message is not None
    emu.assert_clean()


async def test_interaction_answered_after_its_channel_was_deleted(env: Env) -> None:
    emu = env.emu
    emu.ack_deadline = 0.6
    side = emu.add_text_channel(env.guild, "side")
    await emu.wait_until(lambda: env.bot.get_channel(side))
    task = asyncio.create_task(emu.slash(env.alice, side, "ping late"))  # answers after 0.4 s
    await asyncio.sleep(0.1)
    emu.delete_channel(side)
    with pytest.raises(EmulatorError, match="not acknowledged"):
        await task
    await emu.wait_until(lambda: env.seen.errors)
    error = env.seen.errors[-1]
    assert isinstance(error, discord.NotFound) and error.code == 10003
    expect_violation(emu, "unacknowledged")
    emu.assert_clean()


# discord.py logs each reconnect attempt during the outage as an ERROR.
@pytest.mark.expect_errors(r"discord\.client ERROR: Attempting a reconnect")
async def test_gateway_drops_reidentify_resume_and_outage(env: Env) -> None:
    emu, bot = env.emu, env.bot

    def identifies() -> int:
        return sum(1 for d, p in emu.gateway_log if d == "recv" and p.get("op") == 2)

    def resumes() -> int:
        return sum(1 for d, p in emu.gateway_log if d == "recv" and p.get("op") == 6)

    first_session = bot.ws.session_id
    await emu.kick_gateway(resumable=False)  # op 9: the client must IDENTIFY again
    await emu.wait_until(lambda: identifies() == 2 and emu.bot_connected, timeout=5)
    await emu.wait_for_bot_ready(timeout=5)
    await emu.wait_until(lambda: bot.ws.session_id != first_session)
    res = await emu.slash(env.alice, env.chan, "hello")
    assert res.message is not None and res.message.content == "hello alice"

    await emu.kick_gateway(close_code=4000)  # an unknown error: the client resumes
    await emu.wait_until(lambda: resumes() == 1 and emu.bot_connected, timeout=5)

    # An outage: connections closed, reconnects refused for 0.5 s; events meanwhile are
    # replayed on RESUME.
    await emu.stop_gateway_for(0.5)
    created = emu.add_text_channel(env.guild, "made during the outage")
    await emu.wait_until(lambda: emu.gateway_refusals >= 1, timeout=5)
    await emu.wait_until(lambda: resumes() == 2 and emu.bot_connected, timeout=10)
    await emu.wait_until(lambda: bot.get_channel(created), timeout=5)
    assert identifies() == 2
    res = await emu.slash(env.alice, created, "hello")
    assert res.message is not None
    emu.assert_clean()


async def test_slow_answers(env: Env) -> None:
    emu = env.emu
    emu.inject_fault("GET", f"/users/{env.alice}", delay=0.3)
    user = await env.bot.fetch_user(env.alice)
    (arrived,) = arrivals(emu, "GET", f"/users/{env.alice}")
    slowed = emu.faults_injected[-1]
    assert user.id == env.alice and slowed.kind == "delay" and slowed.time - arrived >= 0.3
    # A callback slowed past the deadline arrives late: 10062, late_ack and unacknowledged.
    emu.ack_deadline = 0.3
    emu.inject_fault("POST", "/callback", delay=0.4)
    with pytest.raises(EmulatorError, match="not acknowledged"):
        await emu.slash(env.alice, env.chan, "hello")
    await emu.wait_until(lambda: any(v.kind == "late_ack" for v in emu.violations))
    expect_violation(emu, "late_ack")
    expect_violation(emu, "unacknowledged")
    assert [(f.kind, f.status) for f in emu.faults_injected] == [("delay", None)] * 2
    with pytest.raises(ValueError):
        emu.inject_fault("GET", "/x", status=500, drop=True)
    emu.assert_clean()
