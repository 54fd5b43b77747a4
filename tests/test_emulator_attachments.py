"""Files: attachment:// references, UPDATE_MESSAGE (7) and deferred updates (6) with files,
message edits keeping/removing attachments, components V2 media."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from emulator import FLAG_IS_COMPONENTS_V2, DiscordEmulator, EmulatorError, running_bot
from tests.test_emulator import expect_violation


def png(tag: str) -> discord.File:
    return discord.File(io.BytesIO(f"PNG-{tag}".encode()), "board.png")


def board_embed(turn: int) -> discord.Embed:
    embed = discord.Embed(title=f"Turn {turn}")
    embed.set_image(url="attachment://board.png")
    return embed


class BoardView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Next", custom_id="board:next")
    async def next(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(
            embed=board_embed(2), attachments=[png("turn2")], view=self
        )


def layout(tag: str, *, missing: bool = False) -> discord.ui.LayoutView:
    view = discord.ui.LayoutView(timeout=None)
    name = "nothing.png" if missing else "board.png"
    gallery = discord.ui.MediaGallery[discord.ui.LayoutView](
        discord.MediaGalleryItem(f"attachment://{name}", description=f"board {tag}")
    )
    row = discord.ui.ActionRow[discord.ui.LayoutView]()
    row.add_item(discord.ui.Button(label="Next", custom_id="v2:next"))
    row.add_item(discord.ui.Button(label="Later", custom_id="v2:later"))
    container = discord.ui.Container[discord.ui.LayoutView](
        discord.ui.TextDisplay[discord.ui.LayoutView](f"board {tag}"), gallery, row
    )
    view.add_item(container)
    return view


@dataclass
class Seen:
    errors: list[BaseException] = field(default_factory=list)


def make_bot(seen: Seen) -> discord.Client:
    client = discord.Client(intents=discord.Intents.default())
    tree = app_commands.CommandTree(client)

    @tree.command(name="board", description="An embed with an attached image")
    async def board(interaction: discord.Interaction, broken: bool = False) -> None:
        embed = board_embed(1)
        if broken:
            embed.set_image(url="attachment://typo.png")
        await interaction.response.send_message(embed=embed, file=png("turn1"), view=BoardView())

    @tree.command(name="v2board", description="A components V2 board")
    async def v2board(interaction: discord.Interaction, missing: bool = False) -> None:
        try:
            await interaction.response.send_message(
                view=layout("1", missing=missing), file=png("v2-1")
            )
        except discord.HTTPException as exc:
            seen.errors.append(exc)
            await interaction.response.send_message("no board", ephemeral=True)

    async def on_interaction(interaction: discord.Interaction) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = data.get("custom_id")
        if custom_id == "v2:next":
            await interaction.response.edit_message(view=layout("2"), attachments=[png("v2-2")])
        elif custom_id == "v2:later":
            await interaction.response.defer()
            await interaction.edit_original_response(view=layout("3"), attachments=[png("v2-3")])

    client.event(on_interaction)

    async def setup_hook() -> None:
        client.add_view(BoardView())
        await tree.sync()

    client.setup_hook = setup_hook  # type: ignore[method-assign]
    return client


@dataclass
class Env:
    emu: DiscordEmulator
    bot: discord.Client
    seen: Seen
    chan: int
    alice: int


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        seen = Seen()
        async with running_bot(emu, make_bot(seen)) as bot:
            yield Env(emu, bot, seen, chan, alice)


async def fetch(url: str) -> bytes:
    async with aiohttp.ClientSession() as session, session.get(url) as resp:
        assert resp.status == 200
        return await resp.read()


async def test_embed_image_from_attachment_and_update_with_a_new_file(env: Env) -> None:
    emu = env.emu
    res = await emu.slash(env.alice, env.chan, "board")
    msg = res.message
    assert msg is not None and msg.file("board.png") == b"PNG-turn1"
    first_url = msg.attachments[0]["url"]
    assert msg.embed_images() == [first_url]  # attachment://board.png resolved
    assert await fetch(first_url) == b"PNG-turn1"

    click = await emu.click(env.alice, msg, "board:next")  # type 7 with a new file
    assert click.type == 7 and click.message is msg
    assert msg.files == {"board.png": b"PNG-turn2"} and len(msg.attachments) == 1
    assert msg.attachments[0]["url"] != first_url
    assert msg.embed_images() == [msg.attachments[0]["url"]]
    assert msg.embeds[0]["title"] == "Turn 2"
    assert msg.history[0]["attachments"][0]["url"] == first_url  # the old version is kept
    with pytest.raises(EmulatorError, match="no file"):
        msg.file("other.png")
    emu.assert_clean()


async def test_unresolved_embed_reference_is_dropped_silently(env: Env) -> None:
    emu = env.emu
    res = await emu.slash(env.alice, env.chan, "board", {"broken": True})
    msg = res.message
    assert msg is not None and msg.embed_images() == []  # Discord shows no image
    assert "image" not in msg.embeds[0] and msg.files == {"board.png": b"PNG-turn1"}
    assert emu.unresolved_attachments == [(msg.id, "attachment://typo.png")]
    emu.assert_clean()  # Discord accepts it: not a violation


async def test_components_v2_media_and_updates_with_files(env: Env) -> None:
    emu = env.emu
    res = await emu.slash(env.alice, env.chan, "v2board")
    msg = res.message
    assert msg is not None and msg.flags & FLAG_IS_COMPONENTS_V2
    assert msg.file("board.png") == b"PNG-v2-1" and "board 1" in msg.current_text()
    # Stored as Discord returns it: the media item unfurled to the attachment it names.
    gallery = next(c for c in emu.iter_components(msg) if c["type"] == 12)
    media = gallery["items"][0]["media"]
    assert media["url"] == msg.attachments[0]["url"]
    assert media["attachment_id"] == msg.attachments[0]["id"] and media["id"].isdigit()

    click = await emu.click(env.alice, msg, "v2:next")
    assert click.type == 7 and msg.files == {"board.png": b"PNG-v2-2"}
    gallery = next(c for c in emu.iter_components(msg) if c["type"] == 12)
    assert gallery["items"][0]["media"]["url"] == msg.attachments[0]["url"]  # the new file
    assert "board 2" in msg.current_text() and msg.flags & FLAG_IS_COMPONENTS_V2

    later = await emu.click(env.alice, msg, "v2:later")  # type 6, then PATCH @original
    assert later.type == 6
    assert await later.final(timeout=2) is msg
    assert msg.files == {"board.png": b"PNG-v2-3"} and "board 3" in msg.current_text()
    assert len(msg.history) == 2

    # A media item naming a file the message does not have: 400.
    res = await emu.slash(env.alice, env.chan, "v2board", {"missing": True})
    assert res.ephemeral and isinstance(env.seen.errors[-1], discord.HTTPException)
    assert "nothing.png" in str(env.seen.errors[-1])
    expect_violation(emu, "invalid_form_body")
    emu.assert_clean()


async def test_message_edit_keeps_adds_and_removes_attachments(env: Env) -> None:
    emu = env.emu
    channel = env.bot.get_channel(env.chan)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send(
        "two files",
        files=[
            discord.File(io.BytesIO(b"A"), "a.png"),
            discord.File(io.BytesIO(b"B"), "b.png"),
        ],
    )
    stored = emu.get_message(sent.id)
    assert stored.files == {"a.png": b"A", "b.png": b"B"}

    edited = await sent.edit(content="no attachments field")  # kept
    assert stored.files == {"a.png": b"A", "b.png": b"B"} and len(edited.attachments) == 2

    keep_a = [a for a in edited.attachments if a.filename == "a.png"]
    edited = await edited.edit(attachments=[*keep_a, discord.File(io.BytesIO(b"C"), "c.png")])
    assert stored.files == {"a.png": b"A", "c.png": b"C"}
    assert [a.filename for a in edited.attachments] == ["a.png", "c.png"]
    assert edited.attachments[0].id == keep_a[0].id

    embed = discord.Embed(title="with image").set_image(url="attachment://c.png")
    edited = await edited.edit(embed=embed)  # refers to a kept attachment
    assert stored.embed_images() == [stored.attachments[1]["url"]]

    edited = await edited.edit(attachments=[])
    assert stored.files == {} and stored.attachments == []
    assert stored.history[-1]["files"] == {"a.png": b"A", "c.png": b"C"}  # for leak checks
    old_url = stored.history[-1]["attachments"][0]["url"]
    async with aiohttp.ClientSession() as session, session.get(old_url) as resp:
        assert resp.status == 404  # removed from the CDN
    emu.assert_clean()
