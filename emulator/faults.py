"""Injected REST faults: 5xx, 429, 403, 404... answers and dropped connections on chosen routes."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass, field

from aiohttp import web

# Discord's JSON error codes the emulator knows a message for.
ERROR_MESSAGES: dict[int, str] = {
    0: "",
    10003: "Unknown Channel",
    10004: "Unknown Guild",
    10007: "Unknown Member",
    10008: "Unknown Message",
    10013: "Unknown User",
    10015: "Unknown Webhook",
    10062: "Unknown interaction",
    40060: "Interaction has already been acknowledged.",
    50001: "Missing Access",
    50007: "Cannot send messages to this user",
    50013: "Missing Permissions",
    50027: "Invalid Webhook Token",
    50035: "Invalid Form Body",
    130000: "API resource is currently overloaded. Try again a little later.",
}

STATUS_TEXT: dict[int, str] = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    520: "Web Server Returned an Unknown Error",
    521: "Web Server Is Down",
    522: "Connection Timed Out",
    524: "A Timeout Occurred",
}

# Cloudflare answers these with an HTML page (no Discord JSON, no rate-limit headers).
CLOUDFLARE_STATUSES = frozenset({502, 503, 504, 520, 521, 522, 524})


def default_code(status: int, path: str) -> int:
    """The JSON error code Discord would give for ``status`` on ``path``."""
    if status == 403:
        return 50013
    if status == 404:
        if path.startswith("/interactions/"):
            return 10062
        if path.startswith("/webhooks/"):
            return 10015 if "/messages/" not in path else 10008
        if re.search(r"/messages/\d+", path):
            return 10008
        if path.startswith("/channels/"):
            return 10003
        if path.startswith("/guilds/"):
            return 10004
        if path.startswith("/users/"):
            return 10013
    return 0


class Chance:
    """A seeded, reproducible stream of floats in [0, 1) (sha256 of seed and counter)."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = secrets.randbits(64) if seed is None else seed
        self._n = 0

    def random(self) -> float:
        self._n += 1
        digest = hashlib.sha256(f"{self.seed}:{self._n}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(eq=False)
class Fault:
    """One injected fault (returned by ``DiscordEmulator.inject_fault``)."""

    method: str  # "*" for any
    path_part: str | re.Pattern[str]
    status: int | None  # None: dropped (``drop``) or only slowed down (``delay``)
    times: int | None  # None: forever
    drop: bool = False  # close the connection without an answer
    delay: float = 0.0  # seconds before the (real or faulty) answer
    code: int | None = None
    message: str | None = None
    retry_after: float = 0.05
    is_global: bool = False
    probability: float | None = None
    html: bool | None = None  # None: HTML for Cloudflare statuses (502/503/504/52x)
    processed: bool = False  # the request takes effect, then the answer is lost
    hits: int = 0
    rng: Chance = field(default_factory=Chance)
    removed: bool = False

    @property
    def active(self) -> bool:
        return not self.removed and (self.times is None or self.hits < self.times)

    def matches(self, method: str, path: str) -> bool:
        if not self.active or (self.method != "*" and self.method != method):
            return False
        if isinstance(self.path_part, re.Pattern):
            found = self.path_part.search(path) is not None
        else:
            found = self.path_part in path
        if not found:
            return False
        return self.probability is None or self.rng.random() < self.probability

    def remove(self) -> None:
        """Stop injecting this fault."""
        self.removed = True

    @property
    def kind(self) -> str:
        if self.drop:
            return "drop"
        return "delay" if self.status is None else "http"

    def uses_html(self) -> bool:
        if self.html is not None:
            return self.html
        return self.status in CLOUDFLARE_STATUSES

    def response(self, path: str, rate_headers: dict[str, str] | None = None) -> web.Response:
        """The HTTP answer for an HTTP fault (not for a dropped connection)."""
        assert self.status is not None
        status = self.status
        if status == 429:
            body: dict[str, object] = {
                "message": "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
                "code": 0,
            }
            resp = web.Response(body=json.dumps(body).encode(), status=429)
            resp.headers["Content-Type"] = "application/json"
            resp.headers["Via"] = "1.1 google"
            resp.headers.update(rate_headers or {})
            resp.headers["Retry-After"] = str(max(1, round(self.retry_after)))
            resp.headers["X-RateLimit-Remaining"] = "0"
            resp.headers["X-RateLimit-Reset-After"] = f"{self.retry_after:.3f}"
            resp.headers["X-RateLimit-Reset"] = f"{time.time() + self.retry_after:.3f}"
            resp.headers["X-RateLimit-Scope"] = "global" if self.is_global else "user"
            if self.is_global:
                resp.headers["X-RateLimit-Global"] = "true"
            return resp
        text = STATUS_TEXT.get(status, "Error")
        if self.uses_html():
            page = (
                f"<html>\r\n<head><title>{status} {text}</title></head>\r\n<body>\r\n"
                f"<center><h1>{status} {text}</h1></center>\r\n<hr><center>cloudflare</center>\r\n"
                "</body>\r\n</html>\r\n"
            )
            resp = web.Response(text=page, status=status, content_type="text/html")
            resp.headers["Server"] = "cloudflare"
            return resp
        code = self.code if self.code is not None else default_code(status, path)
        message = self.message or ERROR_MESSAGES.get(code) or f"{status}: {text}"
        resp = web.Response(
            body=json.dumps({"message": message, "code": code}).encode(), status=status
        )
        resp.headers["Content-Type"] = "application/json"
        resp.headers.update(rate_headers or {})
        return resp
