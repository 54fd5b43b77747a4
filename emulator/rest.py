"""The REST server: the route table, authentication, rate limits and injected faults around every
handler."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re

from aiohttp import web

from .core import Handler, HttpError
from .faults import Chance, Fault
from .models import FaultRecord, RateLimitRecord, RestCall
from .ratelimits import Decision
from .simulated import SimulatedUsers


class RestServer(SimulatedUsers):
    def _setup_routes(self) -> None:
        snow = r"(\d+)"
        table: list[tuple[str, str, Handler, bool]] = [
            ("GET", "/gateway", self._h_gateway, False),
            ("GET", "/gateway/bot", self._h_gateway_bot, True),
            ("GET", "/users/@me", self._h_me, True),
            ("POST", "/users/@me/channels", self._h_create_dm, True),
            ("GET", "/users/{uid}", self._h_get_user, True),
            ("GET", "/oauth2/applications/@me", self._h_application, True),
            ("GET", "/applications/@me", self._h_application, True),
            ("GET", "/applications/{app}/commands", self._h_get_commands, True),
            ("PUT", "/applications/{app}/commands", self._h_put_commands, True),
            ("GET", "/applications/{app}/guilds/{gid}/commands", self._h_get_commands, True),
            ("PUT", "/applications/{app}/guilds/{gid}/commands", self._h_put_commands, True),
            ("POST", "/interactions/{iid}/{token}/callback", self._h_callback, False),
            ("POST", "/webhooks/{app}/{token}", self._h_followup, False),
            ("GET", "/webhooks/{app}/{token}/messages/{wmid}", self._h_webhook_get, False),
            ("PATCH", "/webhooks/{app}/{token}/messages/{wmid}", self._h_webhook_edit, False),
            ("DELETE", "/webhooks/{app}/{token}/messages/{wmid}", self._h_webhook_delete, False),
            ("GET", "/channels/{cid}", self._h_get_channel, True),
            ("PATCH", "/channels/{cid}", self._h_edit_channel, True),
            ("GET", "/channels/{cid}/messages", self._h_history, True),
            ("POST", "/channels/{cid}/messages", self._h_send, True),
            ("GET", "/channels/{cid}/messages/{mid}", self._h_get_msg, True),
            ("PATCH", "/channels/{cid}/messages/{mid}", self._h_edit_msg, True),
            ("DELETE", "/channels/{cid}/messages/{mid}", self._h_delete_msg, True),
            ("POST", "/channels/{cid}/typing", self._h_typing, True),
            ("POST", "/channels/{cid}/threads", self._h_create_thread, True),
            ("POST", "/channels/{cid}/messages/{mid}/threads", self._h_create_thread, True),
            ("GET", "/guilds/{gid}", self._h_get_guild, True),
            ("GET", "/guilds/{gid}/channels", self._h_guild_channels, True),
            ("GET", "/guilds/{gid}/roles", self._h_guild_roles, True),
            ("GET", "/guilds/{gid}/members/{uid}", self._h_get_member, True),
        ]
        for method, template, handler, auth in table:
            pattern = re.escape(template)
            for name in ("uid", "app", "gid", "iid", "cid", "mid"):
                pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>{snow[1:-1]})")
            pattern = pattern.replace(re.escape("{token}"), r"(?P<token>[^/]+)")
            pattern = pattern.replace(re.escape("{wmid}"), r"(?P<wmid>@original|\d+)")
            self._routes.append((method, re.compile(pattern), template, handler, auth))

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        arrived = self.clock()
        self.rest_calls.append(RestCall(method, path, arrived))
        for r_method, rx, template, handler, auth in self._routes:
            if r_method != method:
                continue
            match = rx.fullmatch(path)
            if match is None:
                continue
            fault = self._take_fault(method, path)
            if fault is not None and fault.delay > 0:
                await asyncio.sleep(fault.delay)
            if fault is not None and fault.kind == "delay":
                self.faults_injected.append(
                    FaultRecord(method, path, None, None, "delay", False, self.clock())
                )
                fault = None  # only slowed down: answered normally
            if fault is not None and not fault.processed:
                return await self._answer_fault(request, fault, path, template)
            if auth and request.headers.get("Authorization") != f"Bot {self.token}":
                self.error_responses.append((method, path, 401, 0))
                return self._json({"message": "401: Unauthorized", "code": 0}, 401)
            major = self._major_parameter(match)
            decision = self.rate_limiter.acquire(method, template, major, now=arrived)
            if not decision.allowed:
                bucket = "global" if decision.scope == "global" else f"{decision.rule}:{major}"
                self.rate_limited.append(
                    RateLimitRecord(
                        method, path, bucket, decision.scope, decision.reset_after, arrived
                    )
                )
                limited = self._json(
                    {
                        "message": "You are being rate limited.",
                        "retry_after": decision.reset_after,
                        "global": decision.scope == "global",
                        "code": 0,
                    },
                    429,
                )
                limited.headers["Via"] = "1.1 google"
                limited.headers.update(self._rate_limit_headers(decision))
                self._touch()
                return limited
            resp: web.StreamResponse
            try:
                resp = await handler(request, match)
            except HttpError as exc:
                resp = exc.response
            except ConnectionResetError:
                # The client went away mid-request (a bot killed while sending): as for Discord,
                # the request never arrived whole and took no effect; nobody reads an answer.
                self._touch()
                return self._json({"message": "400: Bad Request", "code": 0}, 400)
            self._touch()
            if fault is not None:  # processed: the request took effect, its answer is lost
                return await self._answer_fault(request, fault, path, template)
            resp.headers.update(self._rate_limit_headers(decision))
            return resp
        self.unknown_routes.append((method, path))
        return self._json({"message": "404: Not Found", "code": 0}, 404)

    def _rate_limit_headers(self, decision: Decision) -> dict[str, str]:
        headers = decision.headers()
        # The reset as an epoch time on the emulator's own clock (advance_clock moves it too).
        headers["X-RateLimit-Reset"] = f"{self.now() + decision.reset_after:.3f}"
        return headers

    @staticmethod
    def _major_parameter(match: re.Match[str]) -> str:
        groups = match.groupdict()
        if groups.get("token"):
            return f"{groups.get('iid') or groups.get('app')}:{groups['token']}"
        return groups.get("cid") or groups.get("gid") or ""

    async def _answer_fault(
        self, request: web.Request, fault: Fault, path: str, template: str
    ) -> web.StreamResponse:
        now = self.clock()
        if fault.drop:
            self.faults_injected.append(
                FaultRecord(request.method, path, None, None, "drop", fault.processed, now)
            )
            self._touch()
            with contextlib.suppress(Exception):
                await request.read()
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=204)  # never reaches the client
        rule, bucket = self.rate_limiter.rule_for(request.method, template)
        resp = fault.response(
            path, {"X-RateLimit-Limit": str(rule.limit), "X-RateLimit-Bucket": bucket}
        )
        code: int | None = None
        if resp.content_type == "application/json" and isinstance(resp.body, bytes):
            code = int(json.loads(resp.body).get("code", 0))
        self.faults_injected.append(
            FaultRecord(request.method, path, fault.status, code, "http", fault.processed, now)
        )
        self._touch()
        return resp

    def inject_fault(
        self,
        method: str,
        path_part: str | re.Pattern[str],
        *,
        status: int | None = None,
        drop: bool = False,
        times: int | None = 1,
        code: int | None = None,
        message: str | None = None,
        retry_after: float | None = None,
        is_global: bool = False,
        probability: float | None = None,
        seed: int | None = None,
        html: bool | None = None,
        processed: bool = False,
        delay: float = 0.0,
    ) -> Fault:
        """Answer matching REST calls with a fault instead of the real answer.

        ``method`` ("POST", or "*" for any) and ``path_part`` (a substring of, or a regex
        searched in, the path after ``/api/v10``) choose the calls. ``status``: 500 (JSON body),
        502/503/504 (Cloudflare-like HTML unless ``html=False``), 429 (a proper rate limit with
        ``retry_after`` seconds, default 0.05, ``is_global``), 403 (``code`` 50013 by default or
        50001...), 404 (the route's Unknown ... code), any other 4xx/5xx. ``drop=True`` instead
        closes the connection without an answer (the client sees ServerDisconnectedError).
        ``times``: how many calls (None = until ``clear_faults``/``Fault.remove``);
        ``probability`` (with ``seed``): each matching call faults with that chance.
        ``processed=True``: the request takes effect first and only its answer is lost (a
        message is created, then the client sees the 5xx or the drop and may retry).
        ``delay``: wait that many seconds first; alone, a slow but normal answer.
        Every injected fault is recorded in ``faults_injected``."""
        if drop and status is not None:
            raise ValueError("give status=... or drop=True, not both")
        if not drop and status is None and delay <= 0:
            raise ValueError("give status=..., drop=True or delay=...")
        if status is not None and not 400 <= status <= 599:
            raise ValueError(f"status {status} is not an error status")
        if times is not None and times < 1:
            raise ValueError("times must be >= 1 (or None for forever)")
        if probability is not None and not 0.0 < probability <= 1.0:
            raise ValueError("probability must be in (0, 1]")
        fault = Fault(
            method=method.upper(),
            path_part=path_part,
            status=status,
            times=times,
            code=code,
            message=message,
            retry_after=0.05 if retry_after is None else retry_after,
            is_global=is_global,
            probability=probability,
            html=html,
            processed=processed,
            rng=Chance(seed),
            drop=drop,
            delay=delay,
        )
        self._faults.append(fault)
        return fault

    def drop_connection(
        self,
        method: str,
        path_part: str | re.Pattern[str],
        *,
        times: int | None = 1,
        probability: float | None = None,
        seed: int | None = None,
        processed: bool = False,
    ) -> Fault:
        """Close the connection of matching REST calls without answering. Note that aiohttp
        retries an idempotent request (GET, PUT, DELETE...) once by itself when a reused
        keep-alive connection drops: use ``times=2`` to make such a call fail."""
        return self.inject_fault(
            method,
            path_part,
            drop=True,
            times=times,
            probability=probability,
            seed=seed,
            processed=processed,
        )

    def clear_faults(self) -> None:
        """Remove every injected fault (``faults_injected`` is kept)."""
        for fault in self._faults:
            fault.removed = True
        self._faults.clear()

    def force_rate_limit(
        self,
        method: str,
        path_contains: str,
        *,
        retry_after: float = 0.05,
        times: int = 1,
        is_global: bool = False,
    ) -> Fault:
        """Answer the next ``times`` matching REST calls with a proper 429 (an injected fault:
        recorded in ``faults_injected``, not in ``rate_limited``)."""
        return self.inject_fault(
            method,
            path_contains,
            status=429,
            retry_after=retry_after,
            times=times,
            is_global=is_global,
        )

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in list(self._faults):
            if fault.matches(method, path):
                fault.hits += 1
                if not fault.active:
                    self._faults.remove(fault)
                return fault
            if fault.removed or not fault.active:
                self._faults.remove(fault)
        return None
