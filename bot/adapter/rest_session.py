"""discord.py's own REST requests (DM sends and edits, table edits) sent on kept-alive
connections (``fast_http``), not through aiohttp's ``ClientSession.request``.

aiohttp's request costs about as much CPU again as writing it on a kept-alive connection and
reading its answer, and discord.py's ``HTTPClient.request`` sends a few every round of a game.
:func:`install` gives the client a session whose ``request`` sends a plain POST or PATCH (a
JSON body: no files, no form, no proxy, no query parameters) through
:class:`FastHttp`, and hands everything else (multipart uploads, proxies, the methods aiohttp
retries, the gateway's ``ws_connect``, the CDN, ``close``) to aiohttp's session as before. Only
the transport changes: discord.py still builds the request (its headers and JSON body, the same
bytes) and reads the answer itself (buckets, 429s per route and global, 5xx retries), from a
response with what it reads of aiohttp's: ``status``, ``reason``, ``headers`` (any case),
``text()``. A failure to send or read raises the error aiohttp raises for it
(``ServerDisconnectedError``, ``ClientOSError``, ``ServerTimeoutError``): the bot's callers
see the same kinds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import aiohttp

from bot.adapter.fast_http import Answer, FastHttp

# The keyword arguments discord.py's ``HTTPClient.request`` passes for a plain request.
_PLAIN = frozenset({"headers", "data"})
# Sent here: the methods aiohttp never sends twice (it tries an idempotent one again when a
# kept-alive connection drops it; those stay aiohttp's, and are rare: deletes, reads).
_METHODS = frozenset({"POST", "PATCH"})
# What FastHttp's "the answer broke off" comes from: aiohttp calls it a server disconnected.
_BROKE_OFF = (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError)


class RestResponse:
    """What discord.py reads of aiohttp's ``ClientResponse`` (``json_or_text``,
    ``Ratelimit.update``, ``HTTPException``), over an :class:`Answer` read whole."""

    __slots__ = ("_body", "headers", "method", "reason", "status", "url")

    def __init__(self, answer: Answer, method: str, url: str) -> None:
        self.status = answer.status
        self.reason = answer.reason
        self.headers = answer.headers
        self._body = answer.body
        self.method = method
        self.url = url

    async def read(self) -> bytes:
        return self._body

    async def text(self, encoding: str | None = None, errors: str = "strict") -> str:
        return self._body.decode(encoding or "utf-8", errors)

    def release(self) -> None:
        """Nothing to give back: the answer was read whole, its connection kept or closed."""

    def __repr__(self) -> str:
        return f"<RestResponse({self.url}) [{self.status} {self.reason}]>"


class _Sending:
    """``async with session.request(...) as response``: the request goes at the enter."""

    __slots__ = ("_body", "_fast", "_headers", "_method", "_url")

    def __init__(
        self, fast: FastHttp, method: str, url: str, headers: Mapping[str, str], body: bytes
    ) -> None:
        self._fast = fast
        self._method = method
        self._url = url
        self._headers = headers
        self._body = body

    async def __aenter__(self) -> RestResponse:
        try:
            answer = await self._fast.send(self._method, self._url, self._headers, self._body)
        except TimeoutError as exc:
            raise aiohttp.ServerTimeoutError(str(exc)) from exc
        except OSError as exc:
            if isinstance(exc.__cause__, _BROKE_OFF):  # closed before a whole answer
                raise aiohttp.ServerDisconnectedError(str(exc)) from exc
            raise aiohttp.ClientOSError(exc.errno, str(exc)) from exc
        return RestResponse(answer, self._method, self._url)

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None


class RestSession:
    """aiohttp's ``ClientSession`` of discord.py's HTTP client, with its plain requests sent
    through ``fast`` (see the module's docstring); any other attribute is the session's."""

    def __init__(self, session: Any, fast: FastHttp) -> None:
        self._session = session
        self._fast = fast

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        plain = self._plain(method, kwargs)
        if plain is None:
            return self._session.request(method, url, **kwargs)
        headers, body = plain
        return _Sending(self._fast, method, url, headers, body)

    def _plain(self, method: str, kwargs: dict[str, Any]) -> tuple[Mapping[str, str], bytes] | None:
        """The request's headers and body when ``fast`` may send it, else None."""
        if method not in _METHODS or not _PLAIN.issuperset(kwargs):
            return None
        if self._fast.closed or self._session.closed:
            return None  # aiohttp's, as when stopping: it refuses a closed session's requests
        data = kwargs.get("data")
        if not isinstance(data, str):
            return None  # none (aiohttp adds its own type), a form (attachments): aiohttp's
        body = data.encode("utf-8")  # as aiohttp encodes a str body
        headers: Mapping[str, str] = kwargs.get("headers") or {}
        for name, value in headers.items():
            # aiohttp refuses these; it answers for them with its own error
            line = name + value
            if "\r" in line or "\n" in line or not line.isascii():
                return None
        return headers, body

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def install(http: Any, fast: FastHttp) -> None:
    """Send discord.py's plain REST requests (``Client.http``) through ``fast``; call it after
    log-in (discord.py makes its session then), in ``setup_hook``."""
    session = http._HTTPClient__session
    if isinstance(session, RestSession):
        session = session._session
    http._HTTPClient__session = RestSession(session, fast)


BUCKETS_SWEPT_AT = 256  # discord.py's own threshold: fewer buckets are never swept


def sweep_buckets_when_doubled(http: Any) -> None:
    """discord.py sweeps its rate-limit buckets for inactive ones (idle 5 minutes) each time a
    new one is made once it holds 256, a walk over all of them: with a bucket or more per DM
    channel, a bot with hundreds of players walked them for most new buckets and dropped none.
    Swept instead when their number has doubled since the last sweep left it (and at 256 at
    least): the same buckets dropped, a little later, the dict still bounded (at most twice
    what the last sweep kept, or 256), and the walks' cost spread over as many new buckets."""
    sweep_at = BUCKETS_SWEPT_AT

    def try_clear_expired_ratelimits() -> None:
        nonlocal sweep_at
        buckets: dict[str, Any] = http._buckets
        if len(buckets) < sweep_at:
            return
        for key in [key for key, bucket in buckets.items() if bucket.is_inactive()]:
            del buckets[key]
        sweep_at = max(BUCKETS_SWEPT_AT, 2 * len(buckets))

    http._try_clear_expired_ratelimits = try_clear_expired_ratelimits
