"""Sharding: GET /gateway/bot, IDENTIFY with shard [id, count], per-shard event routing."""

from __future__ import annotations

import aiohttp
import discord
import pytest
from discord import app_commands

from emulator import DiscordEmulator, EmulatorError, running_bot


def make_sharded(
    name: str, seen: list[tuple[str, int | None, int]], **kwargs: object
) -> discord.AutoShardedClient:
    client = discord.AutoShardedClient(intents=discord.Intents.default(), **kwargs)  # type: ignore[arg-type]
    tree = app_commands.CommandTree(client)

    @tree.command(name="where", description="Which client answers")
    async def where(interaction: discord.Interaction) -> None:
        seen.append((name, interaction.guild_id, interaction.user.id))
        await interaction.response.send_message(f"{name} answers")

    async def setup_hook() -> None:
        await tree.sync()

    client.setup_hook = setup_hook  # type: ignore[method-assign]
    return client


async def test_gateway_bot_and_guild_ids_per_shard() -> None:
    async with DiscordEmulator(shard_count=3) as emu, aiohttp.ClientSession() as session:
        headers = {"Authorization": f"Bot {emu.token}"}
        async with session.get(f"{emu.rest_base}/gateway/bot", headers=headers) as resp:
            assert (await resp.json())["shards"] == 3
        guilds = [emu.add_guild(f"g{i}", shard=i % 3) for i in range(9)]
        assert [emu.shard_for(g) for g in guilds] == [0, 1, 2] * 3
        assert [(g >> 22) % 3 for g in guilds] == [0, 1, 2] * 3
        assert guilds == sorted(guilds) and emu.snowflake() > guilds[-1]
        assert emu.shard_for(None) == 0
        with pytest.raises(EmulatorError):
            emu.add_guild("nowhere", shard=3)


async def test_auto_sharded_client_gets_each_guild_on_its_shard() -> None:
    async with DiscordEmulator(shard_count=2) as emu:
        guild_a = emu.add_guild("A", shard=0)
        guild_b = emu.add_guild("B", shard=1)
        chan_a = emu.add_text_channel(guild_a, "a")
        chan_b = emu.add_text_channel(guild_b, "b")
        alice = emu.add_user("alice", guild=guild_a)
        emu.add_member(guild_b, alice)
        seen: list[tuple[str, int | None, int]] = []
        client = make_sharded("auto", seen, shard_count=2)
        async with running_bot(emu, client, identify_delay=0):
            await emu.wait_for_bot_ready(timeout=5)
            assert emu.connected_shards == [0, 1]
            assert sorted(client.shards) == [0, 1]
            assert {g.id for g in client.guilds} == {guild_a, guild_b}
            a = await emu.slash(alice, chan_a, "where")
            b = await emu.slash(alice, chan_b, "where")
            dm = await emu.slash(alice, emu.open_dm(alice), "where")
            assert (a.record.shard_id, b.record.shard_id, dm.record.shard_id) == (0, 1, 0)
            assert [s[1] for s in seen] == [guild_a, guild_b, None]
            readies = [p for d, p in emu.gateway_log if d == "recv" and p.get("op") == 2]
            assert len(readies) == 2
        emu.assert_clean()


async def test_one_client_per_shard_and_refused_identifies() -> None:
    async with DiscordEmulator(shard_count=2) as emu:
        guild_a = emu.add_guild("A", shard=0)
        guild_b = emu.add_guild("B", shard=1)
        chan_a = emu.add_text_channel(guild_a, "a")
        chan_b = emu.add_text_channel(guild_b, "b")
        alice = emu.add_user("alice", guild=guild_a)
        emu.add_member(guild_b, alice)
        seen: list[tuple[str, int | None, int]] = []
        zero = make_sharded("zero", seen, shard_ids=[0], shard_count=2)
        one = make_sharded("one", seen, shard_ids=[1], shard_count=2)
        async with running_bot(emu, zero):
            with pytest.raises(EmulatorError, match="did not connect"):
                await emu.wait_for_bot_ready(timeout=0.3)  # shard 1 is missing
            with pytest.raises(EmulatorError, match="shard 1"):
                await emu.slash(alice, chan_b, "where")
            async with running_bot(emu, one):
                await emu.wait_for_bot_ready(timeout=5)
                assert [g.id for g in zero.guilds] == [guild_a]  # READY lists its guilds only
                assert [g.id for g in one.guilds] == [guild_b]
                await emu.slash(alice, chan_a, "where")
                await emu.slash(alice, chan_b, "where")
                await emu.slash(alice, emu.open_dm(alice), "where")
                assert [s[0] for s in seen] == ["zero", "one", "zero"]
                channel = emu.add_text_channel(guild_b, "new on b")
                await emu.wait_until(lambda: one.get_channel(channel))
                assert zero.get_channel(channel) is None

                # A second client for shard 1, a wrong shard count, no sharding at all.
                for bad, code, kind in (
                    (make_sharded("dup", seen, shard_ids=[1], shard_count=2), 4010, "duplicate"),
                    (make_sharded("three", seen, shard_ids=[2], shard_count=3), 4010, "invalid"),
                    (discord.Client(intents=discord.Intents.default()), 4011, "sharding"),
                ):
                    with pytest.raises(discord.ConnectionClosed) as info:
                        async with running_bot(emu, bad, timeout=5):
                            pass
                    assert info.value.code == code
                    assert emu.violations[-1].kind.startswith(kind)
                assert emu.connected_shards == [0, 1]
        kinds = [v.kind for v in emu.violations]
        assert kinds == ["duplicate_shard", "invalid_shard", "sharding_required"]


async def test_kick_one_shard() -> None:
    async with DiscordEmulator(shard_count=2) as emu:
        guild_b = emu.add_guild("B", shard=1)
        chan_b = emu.add_text_channel(guild_b, "b")
        alice = emu.add_user("alice", guild=guild_b)
        seen: list[tuple[str, int | None, int]] = []
        client = make_sharded("auto", seen, shard_count=2)
        async with running_bot(emu, client, identify_delay=0):
            await emu.wait_for_bot_ready(timeout=5)
            await emu.kick_gateway(resumable=False, shard=1)
            await emu.wait_until(
                lambda: sum(1 for d, p in emu.gateway_log if p.get("op") == 2) == 3, timeout=5
            )
            await emu.wait_for_bot_ready(timeout=5)
            res = await emu.slash(alice, chan_b, "where")
            assert res.record.shard_id == 1 and res.message is not None
        emu.assert_clean()
