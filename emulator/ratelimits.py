"""Discord's REST rate limits as fixed-window buckets, enforced the way Discord enforces them.

Every REST route belongs to a bucket (``RULES``), keyed by its major parameter (the channel for
message routes, the interaction token for interaction routes...). Each answer carries the
bucket's ``X-RateLimit-*`` headers, so discord.py throttles itself before it would be refused; a
request over the limit is answered ``429`` instead of being processed. All routes but the
interaction ones also share the bot's global limit (50 requests per second).

``scale`` multiplies every window (and so every ``Reset-After``): ``0.05`` turns "5 per 5 s" into
"5 per 0.25 s" for fast tests while keeping the same counts.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class BucketRule:
    """``limit`` requests per ``window`` seconds (at scale 1.0) per major parameter."""

    name: str
    limit: int
    window: float
    global_exempt: bool = False


# Emulator defaults (Discord does not publish its numbers; these follow what bots observe).
RULES: dict[str, BucketRule] = {
    "message-create": BucketRule("message-create", 5, 5.0),
    "message-edit": BucketRule("message-edit", 5, 5.0),  # PATCH and DELETE share it
    "dm-create": BucketRule("dm-create", 5, 5.0),
    "thread-create": BucketRule("thread-create", 5, 5.0),
    "channel-edit": BucketRule("channel-edit", 5, 5.0),
    "typing": BucketRule("typing", 5, 5.0),
    "command-sync": BucketRule("command-sync", 5, 20.0),
    "interaction-callback": BucketRule("interaction-callback", 5, 5.0, global_exempt=True),
    "interaction-webhook": BucketRule("interaction-webhook", 30, 5.0, global_exempt=True),
    "default": BucketRule("default", 50, 1.0),
}
GLOBAL_LIMIT = 50
GLOBAL_WINDOW = 1.0

# (method, route template) -> rule name; everything else gets its own "default" bucket.
ROUTE_RULES: dict[tuple[str, str], str] = {
    ("POST", "/channels/{cid}/messages"): "message-create",
    ("PATCH", "/channels/{cid}/messages/{mid}"): "message-edit",
    ("DELETE", "/channels/{cid}/messages/{mid}"): "message-edit",
    ("POST", "/users/@me/channels"): "dm-create",
    ("POST", "/channels/{cid}/threads"): "thread-create",
    ("POST", "/channels/{cid}/messages/{mid}/threads"): "thread-create",
    ("PATCH", "/channels/{cid}"): "channel-edit",
    ("POST", "/channels/{cid}/typing"): "typing",
    ("PUT", "/applications/{app}/commands"): "command-sync",
    ("PUT", "/applications/{app}/guilds/{gid}/commands"): "command-sync",
    ("POST", "/interactions/{iid}/{token}/callback"): "interaction-callback",
    ("POST", "/webhooks/{app}/{token}"): "interaction-webhook",
    ("GET", "/webhooks/{app}/{token}/messages/{wmid}"): "interaction-webhook",
    ("PATCH", "/webhooks/{app}/{token}/messages/{wmid}"): "interaction-webhook",
    ("DELETE", "/webhooks/{app}/{token}/messages/{wmid}"): "interaction-webhook",
}


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:32]


@dataclass
class _Window:
    count: int = 0
    reset_at: float = 0.0


@dataclass(frozen=True)
class Decision:
    """What the limiter decided for one request."""

    allowed: bool
    bucket: str  # the X-RateLimit-Bucket hash
    limit: int
    remaining: int
    reset_after: float  # seconds, already rounded up to the millisecond
    scope: str = ""  # "user" or "global" when refused
    rule: str = ""

    def headers(self) -> dict[str, str]:
        out = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": f"{time.time() + self.reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{self.reset_after:.3f}",
            "X-RateLimit-Bucket": self.bucket,
        }
        if not self.allowed:
            out["X-RateLimit-Scope"] = self.scope
            out["Retry-After"] = str(max(1, math.ceil(self.reset_after)))
            if self.scope == "global":
                out["X-RateLimit-Global"] = "true"
        return out


def _ceil_ms(seconds: float) -> float:
    return max(0.001, math.ceil(seconds * 1000) / 1000)


class RateLimiter:
    """Fixed-window buckets per (rule, major parameter) plus the global limit."""

    def __init__(
        self,
        *,
        enabled: bool = True,
        scale: float = 1.0,
        rules: Mapping[str, BucketRule] | None = None,
        global_limit: int = GLOBAL_LIMIT,
        global_window: float = GLOBAL_WINDOW,
    ) -> None:
        if scale <= 0:
            raise ValueError("rate_limit_scale must be > 0")
        self.enabled = enabled
        self.scale = scale
        self.rules: dict[str, BucketRule] = dict(RULES if rules is None else rules)
        self.global_limit = global_limit
        self.global_window = global_window
        self._windows: dict[tuple[str, str], _Window] = {}
        self._global = _Window()
        # rule name -> how many answers said "Remaining: 0" (the client then waits for the reset)
        self.exhausted: dict[str, int] = {}

    def rule_for(self, method: str, template: str) -> tuple[BucketRule, str]:
        """The rule of a route and its bucket hash (routes sharing a rule share the hash)."""
        name = ROUTE_RULES.get((method, template))
        if name is None:
            return self.rules["default"], _hash(f"default {method} {template}")
        return self.rules[name], _hash(name)

    def acquire(
        self, method: str, template: str, major: str, *, now: float | None = None
    ) -> Decision:
        """Count one request; refuse it (``allowed=False``) when over a limit."""
        rule, bucket = self.rule_for(method, template)
        if not self.enabled:
            return Decision(True, bucket, 10000, 9999, 1.0, rule=rule.name)
        now = time.monotonic() if now is None else now
        if len(self._windows) > 4096:  # forget expired windows (one per interaction token...)
            self._windows = {k: w for k, w in self._windows.items() if w.reset_at > now}
        key = (bucket, major)
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = _Window()
        if now >= window.reset_at:
            window.count = 0
            window.reset_at = now + rule.window * self.scale
        if not rule.global_exempt:
            if now >= self._global.reset_at:
                self._global.count = 0
                self._global.reset_at = now + self.global_window * self.scale
            if self._global.count >= self.global_limit:
                return Decision(
                    False,
                    bucket,
                    rule.limit,
                    max(0, rule.limit - window.count),
                    _ceil_ms(self._global.reset_at - now),
                    scope="global",
                    rule=rule.name,
                )
        if window.count >= rule.limit:
            return Decision(
                False,
                bucket,
                rule.limit,
                0,
                _ceil_ms(window.reset_at - now),
                scope="user",
                rule=rule.name,
            )
        window.count += 1
        if not rule.global_exempt:
            self._global.count += 1
        if window.count == rule.limit:
            self.exhausted[rule.name] = self.exhausted.get(rule.name, 0) + 1
        return Decision(
            True,
            bucket,
            rule.limit,
            rule.limit - window.count,
            _ceil_ms(window.reset_at - now),
            rule=rule.name,
        )

    def table(self) -> list[tuple[str, int, float, bool]]:
        """``(rule, limit, window at the current scale, global_exempt)`` for reports."""
        return [
            (r.name, r.limit, r.window * self.scale, r.global_exempt) for r in self.rules.values()
        ]
