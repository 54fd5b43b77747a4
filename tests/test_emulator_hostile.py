"""Hostile or buggy clients: forged slash commands and component interactions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from discord import app_commands

from emulator import EmulatorError
from tests.test_emulator import World, expect_violation, open_world


@pytest.fixture
async def world() -> AsyncIterator[World]:
    async with open_world(ack_deadline=0.5) as opened:  # Discord's is 3 s: quicker tests
        yield opened


async def test_forged_slash_data_is_exactly_what_was_asked(world: World) -> None:
    emu = world.emu
    # Unknown option, huge string: discord.py ignores what it does not know.
    res = await emu.forge_slash(world.alice, world.chan, "hello", {"extra": "x" * 100_000})
    assert res.message is not None and res.message.content == "hello alice"
    assert res.record.data["options"] == [{"name": "extra", "type": 3, "value": "x" * 100_000}]

    # Outside min/max and not one of the choices: discord.py passes them through, so the bot
    # must check them itself.
    options = [
        {"name": "mode", "type": 3, "value": "medium"},
        {"name": "rounds", "type": 4, "value": 99},
    ]
    res = await emu.forge_slash(world.alice, world.chan, "ping mode", options)
    sent = res.record.data
    assert sent["name"] == "ping" and sent["options"] == [
        {"name": "mode", "type": 1, "options": options}
    ]
    assert res.message is not None and res.message.content == "medium x99 vs nobody"

    # A subcommand group path with a value of the wrong type.
    res = await emu.forge_slash(world.alice, world.chan, "ping deep down", {"depth": "two"})
    down = res.record.data["options"][0]
    assert down["type"] == 2 and down["options"][0]["type"] == 1
    assert down["options"][0]["options"] == [{"name": "depth", "type": 4, "value": "two"}]
    assert res.message is not None and res.message.content == "depth two"

    # A guild member without the permission, a user from outside the guild, a DM.
    res = await emu.forge_slash(world.alice, world.chan, "admin wipe")
    assert res.ephemeral  # discord.py does not check default_member_permissions itself
    mallory = emu.add_user("mallory")
    res = await emu.forge_slash(mallory, world.chan, "hello")
    assert res.message is not None and res.message.content == "hello mallory"
    assert res.record.user_id == mallory and res.record.guild_id == world.guild
    dm = emu.open_dm(world.alice)
    res = await emu.forge_slash(world.alice, dm, "admin wipe")
    assert res.record.guild_id is None and "guild_id" not in res.record.data

    # validate=True makes the checks slash() makes.
    with pytest.raises(EmulatorError, match="lacks the permissions"):
        await emu.forge_slash(world.alice, world.chan, "admin wipe", validate=True)
    choices = await emu.forge_slash(
        world.alice, world.chan, "ping pick", {"game": "cafe" * 500}, focused="game"
    )
    assert choices.type == 8 and choices.choices == []
    assert choices.record.data["options"][0]["options"][0]["focused"] is True
    emu.assert_clean()


async def test_unknown_commands_must_still_be_answered(world: World) -> None:
    emu = world.emu
    with pytest.raises(EmulatorError, match="not acknowledged"):
        await emu.forge_slash(world.alice, world.chan, "nope")
    assert isinstance(world.seen.errors[-1], app_commands.CommandNotFound)
    expect_violation(emu, "unacknowledged")
    with pytest.raises(EmulatorError, match="not acknowledged"):
        await emu.forge_slash(world.alice, world.chan, "ping nothing")
    expect_violation(emu, "unacknowledged")
    emu.assert_clean()


async def test_forged_components(world: World) -> None:
    emu = world.emu
    menu = await emu.slash(world.alice, world.chan, "ping menu")
    table = await emu.slash(world.alice, world.chan, "ping table")
    assert menu.message is not None and table.message is not None

    # A select's custom_id sent as a button, a button's as a select, an id not on the message:
    # discord.py finds no matching item, nothing answers in time.
    for message, custom_id, ctype, values in (
        (menu.message, "menu:pick", 2, None),
        (table.message, "table:poke", 3, ["x"]),
        (table.message, "menu:pick", 3, ["latte"]),
    ):
        with pytest.raises(EmulatorError, match="not acknowledged"):
            await emu.forge_component(
                world.bob, message, custom_id, component_type=ctype, values=values
            )
        expect_violation(emu, "unacknowledged")
        sent = emu.interactions[-1].data
        assert sent["custom_id"] == custom_id and sent["component_type"] == ctype

    # A value the select never offered reaches the bot's callback.
    res = await emu.forge_component(
        world.bob, menu.message, "menu:pick", component_type=3, values=["espresso"]
    )
    assert menu.message.content == "you picked espresso" and res.type == 7

    # Exact data, and from someone who cannot even see the message.
    secret = await emu.slash(world.alice, world.chan, "ping secret")
    assert secret.message is not None
    with pytest.raises(EmulatorError, match="ephemeral"):
        await emu.forge_component(world.bob, secret.message, "secret:peek")
    mallory = emu.add_user("mallory")
    peek = await emu.forge_component(mallory, secret.message, "secret:peek", skip_checks=True)
    assert peek.ephemeral and peek.record.user_id == mallory
    assert peek.message is not None and "Queen of Beans" in peek.message.content
    raw = await emu.forge_component(
        world.bob,
        table.message,
        "ignored",
        data={"custom_id": "table:poke", "component_type": 2, "values": ["odd"]},
    )
    assert raw.record.data == {"custom_id": "table:poke", "component_type": 2, "values": ["odd"]}
    assert raw.type == 7
    emu.assert_clean()


async def test_forge_interaction_raw(world: World) -> None:
    emu = world.emu
    # No command id, no options at all: discord.py finds the command by name.
    res = await emu.forge_interaction(world.alice, world.chan, 2, {"name": "hello", "type": 1})
    assert res.record.data == {"name": "hello", "type": 1}
    assert res.message is not None and res.message.content == "hello alice"
    # A modal submit nobody opened: no modal is waiting for it.
    with pytest.raises(EmulatorError, match="not acknowledged"):
        await emu.forge_interaction(
            world.alice, world.chan, 5, {"custom_id": "note:text", "components": []}
        )
    expect_violation(emu, "unacknowledged")
    with pytest.raises(EmulatorError, match="its message"):
        await emu.forge_interaction(world.alice, world.chan, 3, {"custom_id": "x"})
    with pytest.raises(EmulatorError, match="not 2, 3, 4 or 5"):
        await emu.forge_interaction(world.alice, world.chan, 7, {})
    emu.assert_clean()


async def test_a_client_gone_mid_request_is_no_error_and_posts_nothing(world: World) -> None:
    """A bot killed while it sends (kill -9 under load): its request arrives cut short. As on
    Discord, nothing is posted, and the emulator logs no ERROR (the suite fails on any)."""
    emu = world.emu
    before = len(emu.channel_messages(world.chan))
    body = b'{"content": "never whole"}'
    _, writer = await asyncio.open_connection("127.0.0.1", emu.port)
    writer.write(
        (
            f"POST /api/v10/channels/{world.chan}/messages HTTP/1.1\r\n"
            f"Host: 127.0.0.1\r\nAuthorization: Bot {emu.token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body) + 100}\r\n\r\n"
        ).encode()
        + body
    )
    await writer.drain()
    writer.close()
    await writer.wait_closed()
    for _ in range(50):  # let the server notice the cut
        await asyncio.sleep(0.01)
    assert len(emu.channel_messages(world.chan)) == before
