"""The Discord emulator, proven with a small real discord.py bot (not the project's bot)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from emulator import (
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    DiscordEmulator,
    EmulatorError,
    running_bot,
)

# ------------------------------------------------------------------------------------ test bot


class CounterButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"counter:(?P<n>\d+)"
):
    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {n}", custom_id=f"counter:{n}", style=discord.ButtonStyle.primary
            )
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> CounterButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.n + 1))
        await interaction.response.edit_message(content=f"count is {self.n + 1}", view=view)


class TableView(discord.ui.View):
    def __init__(self, label: str) -> None:
        super().__init__(timeout=None)
        self.poke.label = label

    @discord.ui.button(label="Poke", custom_id="table:poke", style=discord.ButtonStyle.success)
    async def poke(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        button.disabled = True
        embed = discord.Embed(title="Table", description=f"poked by {interaction.user.name}")
        await interaction.response.edit_message(embed=embed, view=self)


class MenuView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="menu:pick",
        placeholder="Pick a drink",
        options=[
            discord.SelectOption(label="Latte", value="latte"),
            discord.SelectOption(label="Mocha", value="mocha", description="chocolate"),
        ],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.edit_message(content=f"you picked {select.values[0]}", view=None)


class SecretView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Peek", custom_id="secret:peek")
    async def peek(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_message("the card is the Queen of Beans", ephemeral=True)


class LaterView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Later", custom_id="later:edit")
    async def later(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer()  # DEFERRED_UPDATE_MESSAGE for a component
        await asyncio.sleep(0.05)
        await interaction.edit_original_response(content="edited later", view=None)


class NoteModal(discord.ui.Modal, title="Leave a note"):
    note: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Note", custom_id="note:text")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"noted: {self.note.value}", ephemeral=True)


@dataclass
class Seen:
    errors: list[BaseException] = field(default_factory=list)
    permissions: list[discord.Permissions] = field(default_factory=list)


def make_bot(seen: Seen) -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), help_command=None)
    ping = app_commands.Group(name="ping", description="Ping things")

    @ping.command(name="table", description="Post a table")
    async def table(interaction: discord.Interaction, label: str = "Poke") -> None:
        seen.permissions.append(interaction.permissions)
        embed = discord.Embed(title="Table", description="nobody poked yet")
        embed.add_field(name="Players", value="alice")
        await interaction.response.send_message(embed=embed, view=TableView(label))

    @ping.command(name="counter", description="A restart-proof counter")
    async def counter(interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(0))
        await interaction.response.send_message("count is 0", view=view)

    @ping.command(name="secret", description="An ephemeral reply")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            "only you see this", ephemeral=True, view=SecretView()
        )

    @ping.command(name="slow", description="Defer, then follow up")
    async def slow(interaction: discord.Interaction, ephemeral: bool = False) -> None:
        await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        await asyncio.sleep(0.05)
        await interaction.followup.send("done thinking")
        await interaction.followup.send("and one more")

    @ping.command(name="silent", description="Never answers")
    async def silent(interaction: discord.Interaction) -> None:
        return None

    @ping.command(name="late", description="Answers too late")
    async def late(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.4)
        try:
            await interaction.response.send_message("sorry I'm late")
        except discord.HTTPException as exc:
            seen.errors.append(exc)

    @ping.command(name="pick", description="Autocomplete")
    async def pick(interaction: discord.Interaction, game: str) -> None:
        await interaction.response.send_message(f"picked {game}")

    @pick.autocomplete("game")
    async def pick_game(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        games = ["cafe-carnage", "alien-cafe", "bean-market"]
        return [app_commands.Choice(name=g, value=g) for g in games if current in g]

    @ping.command(name="mode", description="Choices")
    async def mode(
        interaction: discord.Interaction,
        mode: Literal["easy", "hard"],
        rounds: app_commands.Range[int, 1, 10] = 3,
        rival: discord.Member | None = None,
    ) -> None:
        rival_name = rival.display_name if rival is not None else "nobody"
        await interaction.response.send_message(f"{mode} x{rounds} vs {rival_name}")

    @ping.command(name="later", description="A button that defers its update")
    async def later(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("wait for it", view=LaterView())

    @ping.command(name="menu", description="A select")
    async def menu(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("choose", view=MenuView())

    @ping.command(name="form", description="A modal")
    async def form(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NoteModal())

    @ping.command(name="board", description="Components V2")
    async def board(interaction: discord.Interaction, rows: int = 1, width: int = 1) -> None:
        view = discord.ui.LayoutView(timeout=None)
        container = discord.ui.Container[discord.ui.LayoutView]()
        for i in range(rows):
            text = f"row {i} " + "#" * width
            container.add_item(discord.ui.TextDisplay[discord.ui.LayoutView](text))
        view.add_item(container)
        try:
            await interaction.response.send_message(view=view)
        except discord.HTTPException as exc:
            seen.errors.append(exc)
            await interaction.response.send_message("board too big", ephemeral=True)

    deep = app_commands.Group(name="deep", description="A subcommand group", parent=ping)

    @deep.command(name="down", description="Nested two levels")
    async def down(interaction: discord.Interaction, depth: int) -> None:
        await interaction.response.send_message(f"depth {depth}")

    admin = app_commands.Group(
        name="admin",
        description="Moderators only",
        default_permissions=discord.Permissions(manage_channels=True),
    )

    @admin.command(name="wipe", description="Wipe the table")
    async def wipe(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("wiped", ephemeral=True)

    @bot.tree.command(name="hello", description="Plain command")
    async def hello(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hello {interaction.user.name}")

    bot.tree.add_command(ping)
    bot.tree.add_command(admin)

    async def on_tree_error(
        interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        seen.errors.append(error)

    bot.tree.on_error = on_tree_error  # type: ignore[method-assign]

    async def setup_hook() -> None:
        bot.add_dynamic_items(CounterButton)
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


# ------------------------------------------------------------------------------------ fixtures


@dataclass
class World:
    emu: DiscordEmulator
    bot: commands.Bot
    seen: Seen
    guild: int
    chan: int
    alice: int
    bob: int
    carol: int
    mod: int


@contextlib.asynccontextmanager
async def open_world(ack_deadline: float | None = None) -> AsyncIterator[World]:
    """A server with a channel and four users (carol's DMs closed, mod a moderator), the test
    bot running; ``ack_deadline``: the emulator's (Discord's 3 s by default)."""
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        bob = emu.add_user("bob", guild=guild)
        carol = emu.add_user("carol", guild=guild, dms_open=False)
        mod = emu.add_user("mod", guild=guild, manage_channels=True)
        seen = Seen()
        bot = make_bot(seen)
        if ack_deadline is not None:
            emu.ack_deadline = ack_deadline
        async with running_bot(emu, bot):
            yield World(emu, bot, seen, guild, chan, alice, bob, carol, mod)


@pytest.fixture
async def world() -> AsyncIterator[World]:
    async with open_world() as opened:
        yield opened


async def respect_rate_limit(resp: aiohttp.ClientResponse) -> None:
    """What a well-behaved raw client does: wait out an exhausted bucket."""
    if resp.headers.get("X-RateLimit-Remaining") == "0":
        await asyncio.sleep(float(resp.headers["X-RateLimit-Reset-After"]))


def expect_violation(emu: DiscordEmulator, kind: str) -> None:
    kinds = [v.kind for v in emu.violations]
    assert kind in kinds, emu.violations
    emu.violations[:] = [v for v in emu.violations if v.kind != kind]


# ---------------------------------------------------------------------------------------- tests


async def test_login_ready_and_command_sync(world: World) -> None:
    emu, bot = world.emu, world.bot
    assert bot.user is not None and bot.user.id == emu.bot_user_id
    assert bot.application_id == emu.application_id
    assert [g.id for g in bot.guilds] == [world.guild]
    guild = bot.get_guild(world.guild)
    assert guild is not None and guild.me is not None
    assert guild.me.guild_permissions.send_messages
    assert bot.get_channel(world.chan) is not None
    names = {c["name"] for c in emu.synced_commands()}
    assert names == {"ping", "admin", "hello"}
    ping = next(c for c in emu.synced_commands() if c["name"] == "ping")
    assert "table" in {o["name"] for o in ping["options"]}
    calls = {(c.method, c.path) for c in emu.rest_calls}
    assert ("GET", "/users/@me") in calls
    assert ("GET", "/oauth2/applications/@me") in calls
    assert ("PUT", f"/applications/{emu.application_id}/commands") in calls
    await emu.wait_for_bot_ready(timeout=1)
    emu.assert_clean()


async def test_slash_embed_button_then_click_update(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping table", {"label": "Poke it"})
    assert res.type == 4 and not res.ephemeral
    # Answered (in time: a late answer would have raised), after it was dispatched.
    assert res.record.responded_at is not None and res.latency >= 0
    msg = res.message
    assert msg is not None and msg.embeds[0]["title"] == "Table"
    assert msg.buttons() == [("Poke it", "table:poke", False)]
    assert emu.channel_messages(world.chan) == [msg]
    perms = world.seen.permissions[-1]
    assert perms.send_messages and not perms.manage_channels

    click = await emu.click(world.bob, msg, "table:poke")
    assert click.type == 7
    assert click.message is msg
    assert "poked by bob" in msg.embeds[0]["description"]
    assert msg.buttons() == [("Poke it", "table:poke", True)]
    assert len(msg.history) == 1
    assert "nobody poked yet" in msg.text() and "poked by bob" in msg.text()
    with pytest.raises(EmulatorError, match="disabled"):
        await emu.click(world.bob, msg, "table:poke")
    emu.assert_clean()


async def test_dynamic_item_button(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping counter")
    msg = res.message
    assert msg is not None and msg.content == "count is 0"
    for n in range(3):
        assert msg.buttons() == [(f"Count {n}", f"counter:{n}", False)]
        click = await emu.click(world.bob, msg, f"counter:{n}")
        assert click.type == 7
    assert msg.content == "count is 3"
    with pytest.raises(EmulatorError, match="no button"):
        await emu.click(world.bob, msg, "counter:0")
    emu.assert_clean()


async def test_ephemeral_response_and_click_on_it(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping secret")
    assert res.type == 4 and res.ephemeral
    msg = res.message
    assert msg is not None and msg.ephemeral_to == world.alice and msg.flags & FLAG_EPHEMERAL
    assert emu.ephemerals(world.alice) == [msg]
    assert emu.channel_messages(world.chan) == []
    assert msg in emu.visible_to(world.alice) and msg not in emu.visible_to(world.bob)
    with pytest.raises(EmulatorError, match="ephemeral"):
        await emu.click(world.bob, msg, "secret:peek")
    peek = await emu.click(world.alice, msg, "secret:peek")
    assert peek.type == 4 and peek.ephemeral
    assert peek.message is not None and "Queen of Beans" in peek.message.content
    assert all("Queen" not in m.text() for m in emu.visible_to(world.bob))
    emu.assert_clean()


async def test_dms_open_and_closed(world: World) -> None:
    emu, bot = world.emu, world.bot
    alice = await bot.fetch_user(world.alice)
    await alice.send("your hand: 3 beans")
    assert [m.content for m in emu.dm_messages(world.alice)] == ["your hand: 3 beans"]
    assert "3 beans" in emu.visible_to(world.alice)[0].text()
    assert all("3 beans" not in m.text() for m in emu.visible_to(world.bob))

    carol = await bot.fetch_user(world.carol)
    with pytest.raises(discord.Forbidden) as info:
        await carol.send("your hand")
    assert info.value.code == 50007
    assert emu.dm_messages(world.carol) == []
    emu.set_dms_open(world.carol, True)
    await carol.send("now it works")
    assert len(emu.dm_messages(world.carol)) == 1
    emu.assert_clean()


async def test_oversize_payloads_rejected_and_recorded(world: World) -> None:
    emu, bot = world.emu, world.bot
    channel = bot.get_channel(world.chan)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as info:
        await channel.send(embed=discord.Embed(description="x" * 4097))
    assert info.value.status == 400 and info.value.code == 50035
    expect_violation(emu, "invalid_form_body")

    big = discord.Embed(title="t")
    for i in range(26):
        big.add_field(name=f"f{i}", value="v")
    with pytest.raises(discord.HTTPException):
        await channel.send(embed=big)
    expect_violation(emu, "invalid_form_body")

    with pytest.raises(discord.HTTPException):
        await channel.send("x" * 2001)
    expect_violation(emu, "invalid_form_body")

    view = discord.ui.View(timeout=None)
    for i in range(6):
        view.add_item(discord.ui.Button(label=f"b{i}", custom_id=f"same{i % 5}", row=i // 5))
    with pytest.raises(discord.HTTPException) as info:
        await channel.send("dupes", view=view)
    assert "duplicated" in str(info.value)
    expect_violation(emu, "invalid_form_body")

    ok = await channel.send(embed=discord.Embed(title="fine", description="y" * 4096))
    assert emu.get_message(ok.id).embeds[0]["title"] == "fine"
    assert emu.channel_messages(world.chan)[-1].id == ok.id
    emu.assert_clean()


async def test_components_v2_limits(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping board", {"rows": 3})
    msg = res.message
    assert msg is not None and msg.flags & FLAG_IS_COMPONENTS_V2 and msg.content == ""
    assert "row 2" in msg.text()

    # 5 text displays of ~900 characters: over the 4000 character budget of a V2 message
    res = await emu.slash(world.alice, world.chan, "ping board", {"rows": 5, "width": 900})
    assert res.ephemeral and res.message is not None
    assert res.message.content == "board too big"
    assert isinstance(world.seen.errors[-1], discord.HTTPException)
    expect_violation(emu, "invalid_form_body")

    # discord.py refuses > 40 children itself; the emulator checks raw payloads too
    url = f"{emu.rest_base}/channels/{world.chan}/messages"
    headers = {"Authorization": f"Bot {emu.token}"}
    texts = [{"type": 10, "content": f"t{i}"} for i in range(40)]
    bad_bodies: list[dict[str, Any]] = [
        {"flags": FLAG_IS_COMPONENTS_V2, "components": [{"type": 17, "components": texts}]},
        {
            "flags": FLAG_IS_COMPONENTS_V2,
            "content": "hi",
            "components": [{"type": 10, "content": "x"}],
        },
        {"components": [{"type": 10, "content": "needs the flag"}]},
        {
            "content": "six rows",
            "components": [
                {
                    "type": 1,
                    "components": [{"type": 2, "style": 1, "label": "b", "custom_id": f"c{i}"}],
                }
                for i in range(6)
            ],
        },
        {
            "content": "select not alone",
            "components": [
                {
                    "type": 1,
                    "components": [
                        {"type": 2, "style": 1, "label": "b", "custom_id": "b"},
                        {"type": 3, "custom_id": "s", "options": [{"label": "a", "value": "a"}]},
                    ],
                }
            ],
        },
    ]
    async with aiohttp.ClientSession() as session:
        for body in bad_bodies:
            async with session.post(url, json=body, headers=headers) as resp:
                assert resp.status == 400, body
                assert (await resp.json())["code"] == 50035
                await respect_rate_limit(resp)
            expect_violation(emu, "invalid_form_body")
        ok = {
            "flags": FLAG_IS_COMPONENTS_V2,
            "components": [{"type": 17, "components": texts[:39]}],
        }
        async with session.post(url, json=ok, headers=headers) as resp:
            assert resp.status == 200
            assert resp.headers["Content-Type"] == "application/json"
            assert "X-RateLimit-Bucket" in resp.headers
    emu.assert_clean()


async def test_unacknowledged_and_late_interactions(world: World) -> None:
    emu = world.emu
    emu.ack_deadline = 0.3  # Discord's is 3 s; shortened to keep the test fast
    with pytest.raises(EmulatorError, match="not acknowledged"):
        await emu.slash(world.alice, world.chan, "ping silent")
    expect_violation(emu, "unacknowledged")

    with pytest.raises(EmulatorError):
        await emu.slash(world.alice, world.chan, "ping late")
    await emu.wait_until(lambda: world.seen.errors)
    err = world.seen.errors[-1]
    assert isinstance(err, discord.NotFound) and err.code == 10062
    expect_violation(emu, "unacknowledged")
    expect_violation(emu, "late_ack")
    emu.assert_clean()


async def test_double_ack_rejected(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "hello")
    assert res.message is not None and res.message.content == "hello alice"
    url = f"{emu.rest_base}/interactions/{res.id}/{res.record.token}/callback"
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json={"type": 4, "data": {"content": "again"}}) as resp,
    ):
        assert resp.status == 400
        assert (await resp.json())["code"] == 40060
    expect_violation(emu, "double_ack")
    emu.assert_clean()


async def test_callback_object_only_when_asked(world: World) -> None:
    """Discord answers an interaction callback with 204 and no body unless ``with_response``
    asks for the callback object (discord.py always asks)."""
    emu = world.emu
    bodies = []
    async with aiohttp.ClientSession() as session:
        for params in ({}, {"with_response": "true"}):
            seen = len(emu.interactions)
            asked = asyncio.create_task(emu.slash(world.alice, world.chan, "ping silent"))
            await emu.wait_until(lambda seen=seen: len(emu.interactions) > seen)
            rec = emu.interactions[-1]  # the bot leaves it unanswered: this test answers
            url = f"{emu.rest_base}/interactions/{rec.id}/{rec.token}/callback"
            body = {"type": 4, "data": {"content": "hi"}}
            async with session.post(url, json=body, params=params) as resp:
                bodies.append((resp.status, await resp.read()))
            assert (await asked).message is not None
    assert bodies[0] == (204, b"")
    status, text = bodies[1]
    assert status == 200
    assert json.loads(text)["resource"]["message"]["content"] == "hi"
    emu.assert_clean()


async def test_deferred_then_followups(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping slow")
    assert res.type == 5
    final = await res.final(timeout=2)
    assert final.content == "done thinking" and not final.loading
    assert final.id == res.record.original_message_id  # the first followup fills the defer
    await emu.wait_until(lambda: len(res.followups()) == 1)
    assert [m.content for m in emu.channel_messages(world.chan)] == [
        "done thinking",
        "and one more",
    ]

    res = await emu.slash(world.alice, world.chan, "ping slow", {"ephemeral": True})
    final = await res.final(timeout=2)
    assert final.ephemeral_to == world.alice
    await emu.wait_until(lambda: len(res.followups()) == 1)
    assert len(emu.channel_messages(world.chan)) == 3  # the 2nd followup was not ephemeral
    emu.assert_clean()


async def test_options_autocomplete_choices_and_permissions(world: World) -> None:
    emu = world.emu
    choices = await emu.autocomplete(
        world.alice, world.chan, "ping pick", {"game": "cafe"}, focused="game"
    )
    assert [c["value"] for c in choices] == ["cafe-carnage", "alien-cafe"]
    res = await emu.slash(world.alice, world.chan, "ping pick", {"game": "bean-market"})
    assert res.message is not None and res.message.content == "picked bean-market"

    res = await emu.slash(
        world.alice, world.chan, "ping mode", {"mode": "hard", "rounds": 5, "rival": world.bob}
    )
    assert res.message is not None and res.message.content == "hard x5 vs Bob"
    res = await emu.slash(world.alice, world.chan, "ping deep down", {"depth": 2})
    assert res.message is not None and res.message.content == "depth 2"
    with pytest.raises(EmulatorError, match="integer"):
        await emu.slash(world.alice, world.chan, "ping deep down", {"depth": "2"})
    with pytest.raises(EmulatorError, match="not one of"):
        await emu.slash(world.alice, world.chan, "ping mode", {"mode": "medium"})
    with pytest.raises(EmulatorError, match="max"):
        await emu.slash(world.alice, world.chan, "ping mode", {"mode": "easy", "rounds": 11})
    with pytest.raises(EmulatorError, match="required"):
        await emu.slash(world.alice, world.chan, "ping mode", {})
    with pytest.raises(EmulatorError, match="no option"):
        await emu.slash(world.alice, world.chan, "ping mode", {"mood": "x"})
    with pytest.raises(EmulatorError, match="not synced"):
        await emu.slash(world.alice, world.chan, "nope")
    with pytest.raises(EmulatorError, match="needs a subcommand"):
        await emu.slash(world.alice, world.chan, "ping")
    with pytest.raises(EmulatorError, match="lacks the permissions"):
        await emu.slash(world.alice, world.chan, "admin wipe")
    res = await emu.slash(world.mod, world.chan, "admin wipe")
    assert res.ephemeral
    emu.assert_clean()


async def test_select_and_modal(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping menu")
    msg = res.message
    assert msg is not None
    assert msg.selects() == [("menu:pick", [("Latte", "latte"), ("Mocha", "mocha")])]
    assert "chocolate" in msg.text() and "Pick a drink" in msg.text()
    with pytest.raises(EmulatorError, match="not an option"):
        await emu.select(world.alice, msg, "menu:pick", ["tea"])
    upd = await emu.select(world.alice, msg, "menu:pick", ["mocha"])
    assert upd.type == 7 and msg.content == "you picked mocha" and msg.components == []

    opened = await emu.slash(world.alice, world.chan, "ping form")
    assert opened.type == 9 and opened.modal is not None
    submitted = await emu.submit_modal(world.alice, opened, {"note:text": "more milk"})
    assert submitted.message is not None and submitted.message.content == "noted: more milk"
    emu.assert_clean()


async def test_attachments_threads_rate_limits_and_resume(world: World) -> None:
    emu, bot = world.emu, world.bot
    thread_id = emu.add_thread(world.guild, parent=world.chan, name="table 2")
    await emu.wait_until(lambda: bot.get_channel(thread_id))
    thread = bot.get_channel(thread_id)
    assert isinstance(thread, discord.Thread)
    sent = await thread.send("board", file=discord.File(io.BytesIO(b"PNGDATA"), "board.png"))
    stored = emu.get_message(sent.id)
    assert stored.files == {"board.png": b"PNGDATA"}
    assert sent.attachments[0].filename == "board.png"

    res = await emu.slash(world.alice, thread_id, "hello")
    assert res.message is not None and res.message.channel_id == thread_id

    emu.force_rate_limit("POST", f"/channels/{thread_id}/messages", retry_after=0.05)
    await thread.send("after a 429")
    assert emu.channel_messages(thread_id)[-1].content == "after a 429"

    await emu.kick_gateway()
    await emu.wait_until(lambda: emu.bot_connected and len(emu._sessions) == 1, timeout=5)
    res = await emu.slash(world.bob, world.chan, "hello")
    assert res.message is not None and res.message.content == "hello bob"
    assert not emu.unknown_routes
    emu.assert_clean()


async def test_deferred_update_and_dm_commands_and_token_expiry(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping later")
    msg = res.message
    assert msg is not None
    click = await emu.click(world.alice, msg, "later:edit")
    assert click.type == 6 and click.message is None
    assert (await click.final(timeout=2)) is msg
    assert msg.content == "edited later" and msg.components == []

    dm = emu.open_dm(world.alice)
    res = await emu.slash(world.alice, dm, "hello")
    assert res.message is not None and res.message.channel_id == dm
    assert emu.dm_messages(world.alice) == [res.message]

    emu.advance_clock(15 * 60 + 1)  # interaction tokens live 15 minutes
    url = f"{emu.rest_base}/webhooks/{emu.application_id}/{res.record.token}?wait=1"
    async with aiohttp.ClientSession() as session, session.post(url, json={"content": "x"}) as r:
        assert r.status == 401 and (await r.json())["code"] == 50027
    expect_violation(emu, "expired_interaction_token")
    emu.assert_clean()


async def test_restarted_bot_keeps_dynamic_items_working() -> None:
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        async with running_bot(emu, make_bot(Seen())):
            res = await emu.slash(alice, chan, "ping counter")
        msg = res.message
        assert msg is not None and not emu.bot_connected
        with pytest.raises(EmulatorError, match="not connected"):
            await emu.click(alice, msg, "counter:0")
        async with running_bot(emu, make_bot(Seen())):  # a fresh process, in effect
            click = await emu.click(alice, msg, "counter:0")
        assert click.type == 7 and msg.content == "count is 1"
        emu.assert_clean()


SUBPROCESS_BOT = """
import os, discord, yarl
from discord import app_commands
discord.http.Route.BASE = os.environ["CAFEBOT_DISCORD_API_BASE"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["CAFEBOT_DISCORD_GATEWAY"])
client = discord.Client(intents=discord.Intents.default())
tree = app_commands.CommandTree(client)

@tree.command(name="hello", description="Say hello")
async def hello(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("hello from another process")

async def setup_hook() -> None:
    await tree.sync()

client.setup_hook = setup_hook
client.run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""


async def test_separate_process_bot_via_env_vars() -> None:
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            SUBPROCESS_BOT,
            env={**os.environ, **emu.env()},
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await emu.wait_for_bot_ready(timeout=20)
            res = await emu.slash(alice, chan, "hello")
            assert res.message is not None
            assert res.message.content == "hello from another process"
        finally:
            proc.terminate()
            _, stderr = await proc.communicate()
        assert not emu.unknown_routes and not emu.violations, stderr.decode()
