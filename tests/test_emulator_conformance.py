"""The emulator answers as Discord's published API description and documentation say: component
ids and emoji as Discord stores them, the callback object's resource, the user and application
objects' required fields, and Discord's refusals (400 50035 naming the field)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from emulator import DiscordEmulator
from tests.test_emulator import World, expect_violation, open_world


class Raw:
    """REST calls as the bot would make them, answers unparsed."""

    def __init__(self, emu: DiscordEmulator, session: aiohttp.ClientSession) -> None:
        self.emu = emu
        self.session = session
        self.headers = {"Authorization": f"Bot {emu.token}"}

    async def call(
        self, method: str, path: str, body: Any = None, params: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        url = f"{self.emu.rest_base}{path}"
        async with self.session.request(
            method, url, json=body, headers=self.headers, params=params
        ) as resp:
            if resp.status == 204:
                return resp.status, None
            return resp.status, await resp.json()


@pytest.fixture
async def world() -> AsyncIterator[World]:
    async with open_world() as opened:
        yield opened


@pytest.fixture
async def raw() -> AsyncIterator[tuple[DiscordEmulator, Raw, int, int]]:
    async with DiscordEmulator() as emu, aiohttp.ClientSession() as session:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        emu.add_user("alice", guild=guild)
        yield emu, Raw(emu, session), guild, chan


def field_errors(body: Any, *path: str) -> list[str]:
    """The error codes Discord's nested ``errors`` object gives for one field."""
    assert body["code"] == 50035 and body["message"] == "Invalid Form Body", body
    node = body["errors"]
    for part in path:
        node = node[part]
    return [e["code"] for e in node["_errors"]]


def button(label: str, custom_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id, **extra}


async def test_components_get_ids_as_discord_assigns_them_and_emoji_lose_a_null_id(
    raw: tuple[DiscordEmulator, Raw, int, int],
) -> None:
    emu, client, _, chan = raw
    sent = {
        "content": "pick",
        "components": [
            {
                "type": 1,
                "components": [
                    button("Roll", "roll", emoji={"name": "🎲", "id": None}),
                    button("Keep", "keep", id=2),  # chosen by the sender: kept, never reused
                    button("Pass", "pass", id=0),  # 0 counts as none
                ],
            },
            {
                "type": 1,
                "components": [
                    {
                        "type": 3,
                        "custom_id": "menu",
                        "options": [
                            {"label": "Tea", "value": "tea", "emoji": {"name": "🍵"}},
                            {"label": "Cat", "value": "cat", "emoji": {"id": 42, "name": "cat"}},
                        ],
                    }
                ],
            },
        ],
    }
    status, created = await client.call("POST", f"/channels/{chan}/messages", sent)
    assert status == 200, created
    rows = created["components"]
    # Depth first, in the order they were sent, skipping the id the sender chose.
    assert [rows[0]["id"], *(b["id"] for b in rows[0]["components"])] == [1, 3, 2, 4]
    assert [rows[1]["id"], rows[1]["components"][0]["id"]] == [5, 6]
    assert rows[0]["components"][0]["emoji"] == {"name": "🎲"}
    options = rows[1]["components"][0]["options"]
    assert options[0]["emoji"] == {"name": "🍵"}
    assert options[1]["emoji"] == {"id": "42", "name": "cat", "animated": False}
    status, fetched = await client.call("GET", f"/channels/{chan}/messages/{created['id']}")
    assert fetched["components"] == rows

    # An edit sends new components: their ids are assigned afresh.
    edit = {"components": [{"type": 1, "components": [button("Again", "again")]}]}
    status, edited = await client.call("PATCH", f"/channels/{chan}/messages/{created['id']}", edit)
    assert status == 200
    assert edited["components"][0]["id"] == 1
    assert edited["components"][0]["components"][0]["id"] == 2
    emu.assert_clean()


async def test_a_click_carries_the_component_id(world: World) -> None:
    emu = world.emu
    res = await emu.slash(world.alice, world.chan, "ping table", {"label": "Poke it"})
    assert res.message is not None
    poke = res.message.find_component("table:poke")
    assert poke is not None and isinstance(poke["id"], int) and poke["id"] > 0
    click = await emu.click(world.bob, res.message, "table:poke")
    assert click.record.data["id"] == poke["id"]
    emu.assert_clean()


async def answer_raw(
    world: World, start: Callable[[], Awaitable[Any]], callback: dict[str, Any]
) -> tuple[int, Any]:
    """Answer, as the test (the bot leaves it alone), the interaction ``start`` dispatches."""
    emu = world.emu
    seen = len(emu.interactions)
    started = asyncio.create_task(start())
    rec = await emu.wait_until(lambda: len(emu.interactions) > seen and emu.interactions[-1])
    url = f"{emu.rest_base}/interactions/{rec.id}/{rec.token}/callback"
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json=callback, params={"with_response": "true"}) as resp,
    ):
        answer = (resp.status, await resp.json())
    await started
    return answer


async def test_callback_resource_is_only_what_discords_description_allows(world: World) -> None:
    """``resource`` is a type 4 or 7 with its message (or a 12, an activity); a deferral, an
    autocomplete answer or a modal creates no resource, and Discord returns none."""
    emu = world.emu

    def silent() -> Awaitable[Any]:
        return emu.slash(world.alice, world.chan, "ping silent")

    status, deferred = await answer_raw(world, silent, {"type": 5})
    assert status == 200 and "resource" not in deferred
    inter = deferred["interaction"]
    assert inter["response_message_loading"] is True and inter["response_message_id"]

    status, created = await answer_raw(world, silent, {"type": 4, "data": {"content": "hi"}})
    assert created["resource"]["type"] == 4 and created["resource"]["message"]["content"] == "hi"
    message = emu.get_message(int(created["resource"]["message"]["id"]))

    # A component the bot has no handler for: discord.py leaves it unanswered.
    for rtype, data in ((6, None), (7, {"content": "updated"})):

        def forged() -> Awaitable[Any]:
            return emu.forge_component(world.alice, message, "nobody:home")

        callback: dict[str, Any] = {"type": rtype} | ({"data": data} if data else {})
        status, answer = await answer_raw(world, forged, callback)
        assert status == 200 and answer["interaction"]["type"] == 3
        if rtype == 6:
            assert "resource" not in answer
        else:
            assert answer["resource"]["type"] == 7
            assert answer["resource"]["message"]["content"] == "updated"

    # An autocomplete for a command the bot does not know: it answers nothing, the test does.
    def asked() -> Awaitable[Any]:
        data = {"id": "1", "name": "nothing", "type": 1, "options": []}
        return emu.forge_interaction(world.alice, world.chan, 4, data)

    status, choices = await answer_raw(world, asked, {"type": 8, "data": {"choices": []}})
    assert status == 200 and "resource" not in choices
    emu.assert_clean()


async def test_user_and_application_objects_have_the_required_fields(
    raw: tuple[DiscordEmulator, Raw, int, int],
) -> None:
    emu, client, _, chan = raw
    alice = next(u for u in emu.users.values() if u.name == "alice").id
    _, me = await client.call("GET", "/users/@me")
    assert me["locale"] == "en-US" and me["mfa_enabled"] is False
    assert "primary_guild" in me and me["primary_guild"] is None
    _, user = await client.call("GET", f"/users/{alice}")
    assert user["primary_guild"] is None and "locale" not in user and "email" not in user
    for path in ("/applications/@me", "/oauth2/applications/@me"):
        _, app = await client.call("GET", path)
        for field in (
            "flags_new",
            "role_connections_verification_url",
            "approximate_user_install_count",
            "approximate_user_authorization_count",
            "explicit_content_filter",
            "eligible_oauth2_scopes",
        ):
            assert field in app, field
        assert app["owner"]["primary_guild"] is None and app["bot"]["primary_guild"] is None
    _, sent = await client.call("POST", f"/channels/{chan}/messages", {"content": "hi"})
    assert sent["author"]["primary_guild"] is None and "email" not in sent["author"]
    emu.assert_clean()


async def test_discords_refusals_name_the_field(
    raw: tuple[DiscordEmulator, Raw, int, int],
) -> None:
    emu, client, _, chan = raw
    path = f"/channels/{chan}/messages"

    def with_emoji(name: str) -> dict[str, Any]:
        row = {"type": 1, "components": [button("Go", "go", emoji={"name": name})]}
        return {"components": [row]}

    status, body = await client.call("POST", path, with_emoji("x" * 33))
    assert status == 400
    assert field_errors(body, "components", "0", "components", "0", "emoji", "name") == [
        "BASE_TYPE_MAX_LENGTH"
    ]
    expect_violation(emu, "invalid_form_body")
    status, _ = await client.call("POST", path, with_emoji("x" * 32))
    assert status == 200

    status, body = await client.call("POST", path, {"embeds": [{"title": "t", "color": 0x1000000}]})
    assert status == 400 and field_errors(body, "embeds", "0", "color") == ["NUMBER_TYPE_MAX"]
    expect_violation(emu, "invalid_form_body")
    status, _ = await client.call("POST", path, {"embeds": [{"title": "t", "color": 0xFFFFFF}]})
    assert status == 200

    threads = f"/channels/{chan}/threads"
    status, body = await client.call(
        "POST", threads, {"name": "side", "type": 11, "auto_archive_duration": 100}
    )
    assert status == 400
    assert field_errors(body, "auto_archive_duration") == ["BASE_TYPE_CHOICES"]
    expect_violation(emu, "invalid_form_body")
    status, thread = await client.call(
        "POST", threads, {"name": "side", "type": 11, "auto_archive_duration": 10080}
    )
    assert status == 201 and thread["thread_metadata"]["auto_archive_duration"] == 10080
    status, body = await client.call(
        "PATCH", f"/channels/{thread['id']}", {"auto_archive_duration": 30}
    )
    assert status == 400
    assert field_errors(body, "auto_archive_duration") == ["BASE_TYPE_CHOICES"]
    expect_violation(emu, "invalid_form_body")
    status, edited = await client.call(
        "PATCH", f"/channels/{thread['id']}", {"auto_archive_duration": 60}
    )
    assert status == 200 and edited["thread_metadata"]["auto_archive_duration"] == 60
    assert emu.channels[int(thread["id"])].auto_archive_duration == 60
    emu.assert_clean()


async def test_components_v2_come_back_with_discords_defaults_and_unfurled_media(
    raw: tuple[DiscordEmulator, Raw, int, int],
) -> None:
    emu, client, _, chan = raw
    picture = "https://example.com/cat.png"
    sent = {
        "flags": 1 << 15,
        "components": [
            {
                "type": 17,
                "components": [
                    {
                        "type": 9,
                        "components": [{"type": 10, "content": "a cat"}],
                        "accessory": {"type": 11, "media": {"url": picture}},
                    },
                    {"type": 14},
                    {"type": 12, "items": [{"media": {"url": picture}}]},
                ],
            }
        ],
    }
    status, created = await client.call("POST", f"/channels/{chan}/messages", sent)
    assert status == 200, created
    container = created["components"][0]
    assert (container["accent_color"], container["spoiler"]) == (None, False)
    section, separator, gallery = container["components"]
    assert (separator["spacing"], separator["divider"]) == (1, True)
    thumbnail = section["accessory"]
    assert (thumbnail["description"], thumbnail["spoiler"]) == (None, False)
    item = gallery["items"][0]
    assert (item["description"], item["spoiler"]) == (None, False)
    for media in (thumbnail["media"], item["media"]):
        assert media["url"] == media["proxy_url"] == picture and media["id"].isdigit()
        assert media["width"] is None and "attachment_id" not in media
    # Sent back as it was received (discord.py's edit of a fetched message), nothing changes.
    status, edited = await client.call(
        "PATCH", f"/channels/{chan}/messages/{created['id']}", {"components": created["components"]}
    )
    assert status == 200 and edited["components"] == created["components"]
    emu.assert_clean()


async def test_command_sync_answers_with_discords_types(
    raw: tuple[DiscordEmulator, Raw, int, int],
) -> None:
    emu, client, guild, _ = raw
    app = emu.application_id
    commands = [{"name": "ban", "description": "d", "default_member_permissions": 4}]
    _, synced = await client.call("PUT", f"/applications/{app}/commands", commands)
    assert synced[0]["default_member_permissions"] == "4"  # a string, as Discord returns it
    assert synced[0]["integration_types"] == [0]  # global commands: the app's install context
    _, guild_synced = await client.call(
        "PUT", f"/applications/{app}/guilds/{guild}/commands", [{"name": "x", "description": "d"}]
    )
    assert guild_synced[0]["default_member_permissions"] is None
    assert "integration_types" not in guild_synced[0]
    _, fetched = await client.call("GET", f"/guilds/{guild}")
    assert fetched["nsfw"] is False and fetched["widget_channel_id"] is None
    emu.assert_clean()


async def test_a_modal_submit_names_the_interaction_that_opened_the_modal(world: World) -> None:
    emu = world.emu
    opened = await emu.slash(world.alice, world.chan, "ping form")
    assert opened.modal is not None
    row = opened.modal["components"][0]
    assert isinstance(row["id"], int) and isinstance(row["components"][0]["id"], int)
    submitted = await emu.submit_modal(world.alice, opened, {"note:text": "more milk"})
    message = submitted.message
    assert message is not None
    meta = message.interaction_metadata
    assert meta is not None and meta["type"] == 5
    assert meta["triggering_interaction_metadata"]["id"] == str(opened.id)
    assert meta["triggering_interaction_metadata"]["type"] == 2
    sent = submitted.record.data["components"][0]
    assert sent["id"] == row["id"]  # the ids Discord assigned to the modal's components
    assert sent["components"][0]["id"] == row["components"][0]["id"]
    emu.assert_clean()
