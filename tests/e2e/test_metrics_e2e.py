"""The operator's metrics and health check, end to end: a game played through the emulator with
metrics_port set, /metrics scraped and its counts checked against the emulator's own records
(every REST call by route and status, every click) and the database's (every move); /healthz
answers 200, then 503 while the gateway is down, 200 once it is back, 503 when the database is
closed."""

from __future__ import annotations

import asyncio
import socket
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.adapter.monitoring import Monitor
from bot.app import CafeBot
from bot.core.config import Settings
from bot.core.errors import ConfigError
from bot.core.metrics import Metrics, route_of
from bot.core.sessions import SessionService
from bot.core.store import open_store
from games import REGISTRY
from tests.e2e.harness import world
from tests.e2e.players import play_to_the_end

GAME = "monster-cafe"
Samples = dict[str, list[tuple[dict[str, str], float]]]


async def scrape(port: int) -> tuple[str, Samples]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}/metrics") as resp,
    ):
        assert resp.status == 200
        text = await resp.text()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append((sample.labels, sample.value))
    return text, samples


def total(samples: Samples, name: str, **labels: str) -> float:
    return sum(
        value
        for got, value in samples.get(name, [])
        if all(got.get(k) == v for k, v in labels.items())
    )


async def health(port: int) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}/healthz") as resp,
    ):
        return resp.status, await resp.text()


async def health_becomes(port: int, wanted: Callable[[int], bool], tries: int = 1200) -> str:
    """Polls /healthz until its status is wanted (the bot reconnects on its own schedule)."""
    status, text = await health(port)
    for _ in range(tries):
        if wanted(status):
            return text
        await asyncio.sleep(0.05)
        status, text = await health(port)
    raise AssertionError(f"/healthz stayed {status}: {text}")


async def test_metrics_count_what_the_emulator_saw_and_healthz_follows_the_bot(
    tmp_path: Path, expect_errors: Callable[..., None]
) -> None:
    async with world(tmp_path, 3) as w:
        w.metrics_port = 0  # any free port
        w.seed = 20261127
        emu, channel, users = w.emu, w.channel, w.users
        other = emu.add_text_channel(w.guild, "lobby")
        async with w.bot_running() as bot:
            assert bot.monitor is not None and bot.metrics is not None
            port = bot.monitor.port
            assert await health(port) == (200, "ok\n")
            # A 429 from Discord on the first table edit: discord.py waits and sends it again.
            emu.force_rate_limit("PATCH", f"/channels/{channel}/messages/")
            # A lobby left open elsewhere, and a whole game played by clicks.
            await (await emu.slash(users[0], other, "game new", {"game": GAME})).final()
            await play_to_the_end(emu, bot, w.clock, REGISTRY[GAME], channel, users[:2], seed=3)
            await bot.tables.idle()

            text, samples = await scrape(port)

            # Every REST call the emulator received, by method and route…
            seen = Counter((c.method, route_of(c.path)) for c in emu.rest_calls)
            counted: Counter[tuple[str, str]] = Counter()
            for labels, value in samples["cafebot_discord_requests_total"]:
                counted[labels["method"], labels["route"]] += int(value)
            assert counted == seen
            assert ("POST", "/interactions/{id}/{token}/callback") in counted
            # …and every answer that was not a success, by status.
            refused: Counter[tuple[str, str, str]] = Counter()
            for method, path, status, _ in emu.error_responses:
                refused[method, route_of(path), str(status)] += 1
            for r in emu.rate_limited:
                refused[r.method, route_of(r.path), "429"] += 1
            for f in emu.faults_injected:
                if f.status is not None:
                    refused[f.method, route_of(f.path), str(f.status)] += 1
            failed = Counter(
                {
                    (labels["method"], labels["route"], labels["status"]): int(value)
                    for labels, value in samples["cafebot_discord_requests_total"]
                    if not labels["status"].startswith("2")
                }
            )
            assert +failed == refused
            assert refused[("PATCH", "/channels/{id}/messages/{id}", "429")] == 1
            assert total(samples, "cafebot_discord_rate_limited_total") == 1
            assert total(samples, "cafebot_discord_invalid_requests_total", status="429") == 1
            # The interactions' tokens are secrets: none is in the metrics.
            assert not [i.token for i in emu.interactions if i.token in text]

            # Every click (component interaction) the emulator dispatched, all of this game.
            clicks = sum(1 for i in emu.interactions if i.type == 3)
            assert clicks > 10
            assert total(samples, "cafebot_clicks_total") == clicks
            assert total(samples, "cafebot_clicks_total", game=GAME) == clicks
            assert total(samples, "cafebot_click_seconds_count", game=GAME) == clicks
            # Every move a player made, as the action log holds them (deadlines' are not moves).
            game_session = await bot.service.latest_in_channel(channel)
            assert game_session is not None
            played = await bot.service.store.actions(game_session.id)
            moves = sum(1 for a in played if a.source == "player" and a.undoes is None)
            assert moves > 0
            assert total(samples, "cafebot_moves_total", game=GAME) == moves
            assert total(samples, "cafebot_move_seconds_count", game=GAME) == moves
            # What is open and waiting now: the lobby; nothing unsent, nothing to sync.
            assert total(samples, "cafebot_open_sessions") == 1
            assert total(samples, "cafebot_outbox_backlog") == 0
            assert total(samples, "cafebot_sync_queue") == 0
            assert total(samples, "cafebot_behind_budget_seconds") == 0

            # /healthz: the gateway down → 503 naming it; back once the bot has resumed.
            expect_errors(r"Attempting a reconnect")  # discord.py's, while the gateway refuses
            await emu.stop_gateway_for(0.5)
            assert "gateway" in await health_becomes(port, lambda s: s == 503)
            assert await health_becomes(port, lambda s: s == 200) == "ok\n"
            # The database closed → 503 naming it.
            await bot.store.close()
            text = await health_becomes(port, lambda s: s == 503)
            assert "database" in text and "gateway" not in text


async def test_metrics_are_off_by_default(tmp_path: Path) -> None:
    settings = Settings(discord_token="emulated", database_path=tmp_path / "db.sqlite3")
    bot = CafeBot(settings)
    assert settings.metrics_port is None and bot.metrics is None and bot.monitor is None


async def test_a_taken_metrics_port_is_a_clear_config_error() -> None:
    async def nothing() -> None:
        return None

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monitor = Monitor(
            Metrics(),
            host="127.0.0.1",
            port=port,
            gateway=lambda: True,
            store_check=nothing,
            refresh=nothing,
        )
        with pytest.raises(ConfigError, match=f"metrics_port: cannot serve metrics on .*:{port}"):
            await monitor.start()


def test_routes_keep_ids_and_tokens_out_of_labels() -> None:
    assert route_of("/channels/123/messages/456") == "/channels/{id}/messages/{id}"
    assert route_of("/interactions/99/aW50ZXJhY3Rpb24.Tok-en_x/callback") == (
        "/interactions/{id}/{token}/callback"
    )
    assert route_of("/webhooks/42/secretTOKEN/messages/@original") == (
        "/webhooks/{id}/{token}/messages/@original"
    )
    assert route_of("/users/@me/channels") == "/users/@me/channels"
    assert route_of("/channels/1/messages/2/reactions/%F0%9F%8D%B0/@me") == (
        "/channels/{id}/messages/{id}/reactions/{}/@me"
    )


async def test_the_stored_gauges_and_the_health_query_on_both_backends(database_url: str) -> None:
    store = await open_store(database_url)
    service = SessionService(store)
    try:
        assert await service.backlog() == (0, 0)
        ids = ["1000", "1001", "1002"]
        lobby = await service.create(
            game_id="cafe-carnage", channel_id=1, guild_id=1, host_id=ids[0], host_name="H"
        )
        await service.create(
            game_id="monster-cafe", channel_id=2, guild_id=1, host_id=ids[0], host_name="H"
        )
        for pid in ids[1:]:
            await service.join(lobby.id, pid, pid)
        await service.start(lobby.id, ids[0])
        unsent = [p for sid in (1, 2) for p in await store.posts(sid) if p.sent_at is None]
        assert unsent, "starting a game posts its announcement"
        assert await service.backlog() == (2, len(unsent))
        await service.abandon(lobby.id, ids[0], may_manage=False)
        unsent = [p for sid in (1, 2) for p in await store.posts(sid) if p.sent_at is None]
        assert await service.backlog() == (1, len(unsent))
        await service.reachable()
    finally:
        await store.close()
    with pytest.raises(Exception):  # noqa: B017 - whatever the backend raises once closed
        await service.reachable()
