"""The operator's metrics: one Prometheus registry per bot, and every metric's name in one place.

Off unless ``metrics_port`` is set; ``bot/adapter/monitoring.py`` serves them (and /healthz) and
holds the hooks into discord.py. A registry of its own per bot, not the library's global one:
tests run several bots in one process, and each must count only its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

# Seconds: a click is answered within Discord's 3 s; a move is a lock, a load and a commit.
CLICK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
MOVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
NO_GAME = "-"  # a click that belongs to no game (a history page)

_WORD = re.compile(r"[a-z@][a-z0-9@_-]*")
_WORDS = frozenset(("channels", "messages", "interactions", "callback", "webhooks", "@original"))
_TOKENED = ("interactions", "webhooks")  # /interactions/{id}/{token}/…, /webhooks/{id}/{token}…


def route_of(path: str) -> str:
    """A REST path's route, as a label with few values: ids become ``{id}``, an interaction's or
    a webhook's token ``{token}`` (a secret: never a label), anything else unexpected ``{}``.
    ``path`` is what follows the API's base (``/channels/1/messages/2`` →
    ``/channels/{id}/messages/{id}``)."""
    parts = path.strip("/").split("/")
    for i, part in enumerate(parts):
        if i >= 2 and parts[i - 2] in _TOKENED and parts[i - 1] == "{id}":
            parts[i] = "{token}"
        elif part.isascii() and part.isdigit():
            parts[i] = "{id}"
        elif part not in _WORDS and not _WORD.fullmatch(part):
            parts[i] = "{}"
    return "/" + "/".join(parts)


class Metrics:
    """What the bot counts for its operator. The adapter calls the recording methods; gauges
    read their value when scraped."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.clicks = Counter(
            "cafebot_clicks",
            "Component interactions (buttons, selects) handled, by game and control.",
            ["game", "control"],
            registry=r,
        )
        self.click_seconds = Histogram(
            "cafebot_click_seconds",
            "A click's handling, from its handler's start to its end (the answer sent).",
            ["game"],
            buckets=CLICK_BUCKETS,
            registry=r,
        )
        self.moves = Counter(
            "cafebot_moves",
            "Moves stored (by players and bot players), by game.",
            ["game"],
            registry=r,
        )
        self.move_seconds = Histogram(
            "cafebot_move_seconds",
            "A move in the session service: lock, load, rules, commit.",
            ["game"],
            buckets=MOVE_BUCKETS,
            registry=r,
        )
        self.requests = Counter(
            "cafebot_discord_requests",
            "REST requests to Discord (interaction callbacks included), by method, route and "
            "HTTP status.",
            ["method", "route", "status"],
            registry=r,
        )
        self.invalid = Counter(
            "cafebot_discord_invalid_requests",
            "REST requests Discord refused with a 4xx, by status (401, 403 and 429 count "
            "against Discord's per-IP invalid-request limit).",
            ["status"],
            registry=r,
        )
        self.rate_limited = Counter(
            "cafebot_discord_rate_limited",
            "429 answers, by scope (user: a bucket of the bot; global; shared).",
            ["scope"],
            registry=r,
        )
        self.open_sessions = Gauge(
            "cafebot_open_sessions", "Lobbies and games in progress in the database.", registry=r
        )
        self.outbox_backlog = Gauge(
            "cafebot_outbox_backlog", "Posts stored but not yet sent (the outbox).", registry=r
        )
        self.sync_queue = Gauge(
            "cafebot_sync_queue",
            "Sessions whose messages wait for the sync worker (or are being synced).",
            registry=r,
        )
        self.behind_budget = Gauge(
            "cafebot_behind_budget_seconds",
            "How far the bot's own requests are behind its global request budget.",
            registry=r,
        )

        # Each label set's series, found once: labels() locks and builds a key on every call,
        # and these run a few times per click.
        self._clicks: dict[tuple[str, str], tuple[Counter, Histogram]] = {}
        self._moves: dict[str, tuple[Counter, Histogram]] = {}
        self._requests: dict[tuple[str, str, int], Counter] = {}

    # -- recording -------------------------------------------------------------------------------
    def click(self, game: str | None, control: str, seconds: float) -> None:
        key = (game or NO_GAME, control)
        series = self._clicks.get(key)
        if series is None:
            series = self._clicks[key] = (
                self.clicks.labels(*key),
                self.click_seconds.labels(key[0]),
            )
        series[0].inc()
        series[1].observe(seconds)

    def move(self, game: str, seconds: float) -> None:
        series = self._moves.get(game)
        if series is None:
            series = self._moves[game] = (self.moves.labels(game), self.move_seconds.labels(game))
        series[0].inc()
        series[1].observe(seconds)

    def request(self, method: str, path: str, status: int, scope: str | None = None) -> None:
        """One REST answer; ``path`` follows the API's base. ``scope``: a 429's."""
        key = (method, route_of(path), status)
        series = self._requests.get(key)
        if series is None:
            series = self._requests[key] = self.requests.labels(key[0], key[1], str(status))
        series.inc()
        if 400 <= status < 500:
            self.invalid.labels(str(status)).inc()
        if status == 429:
            self.rate_limited.labels(scope or "user").inc()

    # -- gauges read when scraped ------------------------------------------------------------------
    def watch_sync_queue(self, depth: Callable[[], int]) -> None:
        self.sync_queue.set_function(lambda: float(depth()))

    def watch_behind_budget(self, seconds: Callable[[], float]) -> None:
        """Wire the request pacer's "seconds behind" figure (0 until one is wired)."""
        self.behind_budget.set_function(seconds)

    def stored(self, open_sessions: int, unsent_posts: int) -> None:
        """What the database holds, read just before a scrape."""
        self.open_sessions.set(open_sessions)
        self.outbox_backlog.set(unsent_posts)

    def exposition(self) -> bytes:
        """The registry in Prometheus' text format."""
        return generate_latest(self.registry)
