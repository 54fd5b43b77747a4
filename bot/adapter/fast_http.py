"""A small HTTP/1.1 client for the click's hot request: its interaction callback.

aiohttp's ``ClientSession.request`` costs about 100 µs of CPU more per request than writing the
request's bytes on a kept-alive connection and reading its answer (a JSON POST answered 204: ~145
against ~45 µs on a 2-core machine), and a click's callback is that request. So a callback with a
JSON body goes through :class:`FastHttp`; one with files, or through a proxy, goes through
discord.py's aiohttp session as before (``callbacks.CallbackAdapter`` chooses).

What it does, and no more: a pool of kept-alive connections per host (TLS for https), one request
at a time on each; the answer read by its Content-Length, chunks, or to the connection's end. Any
failure to send or to read a whole answer is an ``OSError`` (the callback's caller retries inside
Discord's window); the connection is then closed, never reused. A POST is never sent again here.
A request unanswered after TIMEOUT is a ``TimeoutError``: one watch, every WATCH_EVERY seconds
while requests are in flight, aborts their connections (a timer per request, set and cancelled,
cost a tenth of the request's CPU).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

IDLE_KEPT = 64  # idle connections kept per host; more are closed
IDLE_SECONDS = 15.0  # an idle connection older than this is closed, not reused (as aiohttp)
TIMEOUT = 300.0  # seconds for one request and its answer (aiohttp's default total)
WATCH_EVERY = 1.0  # seconds between two looks for requests past their TIMEOUT
ORIGINS_KEPT = 64  # parsed scheme://host:port prefixes (one for Discord)


class Headers(Mapping[str, str]):
    """An answer's headers, looked up without regard to case (as aiohttp's)."""

    def __init__(self, items: dict[str, str]) -> None:
        self._items = items  # lower-cased names

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def get(self, name: str, default: Any = None) -> Any:
        return self._items.get(name.lower(), default)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class Answer:
    """An HTTP answer: what discord.py's HTTPException reads of aiohttp's response (status,
    reason), its headers and its body."""

    status: int
    reason: str
    headers: Headers
    body: bytes

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


@dataclass(eq=False)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = 0.0
    due: float = 0.0  # when the request it carries times out
    expired: bool = False  # aborted by the watch: its request timed out

    def usable(self, now: float) -> bool:
        """Not closed by the other end while idle, nor idle for too long."""
        return (
            not self.reader.at_eof()
            and not self.writer.is_closing()
            and now - self.idle_since < IDLE_SECONDS
        )

    def close(self) -> None:
        self.writer.close()


Observer = Callable[[str, str, int, Headers], None]


@dataclass(frozen=True)
class _Origin:
    """A URL's scheme://host:port, as the pool keys it and a request's Host header says it."""

    key: tuple[str, str, int]
    https: bool
    host_header: str

    @classmethod
    def of(cls, base: str) -> _Origin:
        parts = urlsplit(base)
        https = parts.scheme == "https"
        host = parts.hostname or ""
        port = parts.port or (443 if https else 80)
        default_port = port == (443 if https else 80)
        return cls((parts.scheme, host, port), https, host if default_port else f"{host}:{port}")


class FastHttp:
    """Kept-alive connections and the requests sent on them (see the module's docstring).
    ``observe(method, path, status, headers)`` is told every answer (the operator's metrics)."""

    def __init__(self, user_agent: str, observe: Observer | None = None) -> None:
        self.user_agent = user_agent
        self.observe = observe
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._ssl: ssl.SSLContext | None = None
        self._closed = False
        self._origins: dict[str, _Origin] = {}
        self._busy: set[_Connection] = set()  # carrying a request
        self._watch: asyncio.TimerHandle | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    async def post_json(
        self, url: str, body: bytes, params: Mapping[str, Any] | None = None
    ) -> Answer:
        """POST ``body`` (JSON) to ``url`` and read the whole answer."""
        origin, path, query = self._split(url)
        if params:
            query = "&".join(q for q in (query, urlencode(params)) if q)
        target = f"{path}?{query}" if query else path
        head = (
            f"POST {target} HTTP/1.1\r\n"
            f"Host: {origin.host_header}\r\n"
            f"User-Agent: {self.user_agent}\r\n"
            "Accept: */*\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1")
        return await self._exchange(origin, "POST", path, head + body)

    async def send(self, method: str, url: str, headers: Mapping[str, str], body: bytes) -> Answer:
        """``method`` ``url`` with ``headers`` (the caller's, User-Agent included, in their
        order; their values checked by the caller: no CR or LF) and ``body``, and read the
        whole answer."""
        origin, path, query = self._split(url)
        lines = [f"{method} {path}?{query} HTTP/1.1" if query else f"{method} {path} HTTP/1.1"]
        lines.append(f"Host: {origin.host_header}")
        lines.extend(f"{name}: {value}" for name, value in headers.items())
        lines.append("Accept: */*")
        lines.append(f"Content-Length: {len(body)}\r\n\r\n")
        head = "\r\n".join(lines).encode("latin-1")
        return await self._exchange(origin, method, path, head + body)

    async def _exchange(self, origin: _Origin, method: str, path: str, request: bytes) -> Answer:
        """Write ``request`` (its head and body) on a kept-alive connection to ``origin`` and
        read its answer (see the module's docstring for its failures)."""
        key, host = origin.key, origin.key[1]
        connection = self._idle_connection(key)
        if connection is None:
            async with asyncio.timeout(TIMEOUT):
                connection = await self._open(key, origin.https)
        done = keep = False
        connection.due = time.monotonic() + TIMEOUT
        self._busy.add(connection)
        if self._watch is None:
            self._watch = asyncio.get_running_loop().call_later(WATCH_EVERY, self._look)
        try:
            connection.writer.write(request)
            answer, keep = await _read_answer(connection.reader)
            done = not connection.expired
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            if connection.expired:
                raise TimeoutError(f"no answer from {host} in {TIMEOUT:.0f} s") from exc
            raise ConnectionResetError(f"the answer from {host} broke off: {exc!r}") from exc
        finally:
            self._busy.discard(connection)
            if done and keep and not self._closed:
                self._give_back(key, connection)
            else:
                connection.close()
        if not done:  # read to the connection's end, which the watch closed
            raise TimeoutError(f"no answer from {host} in {TIMEOUT:.0f} s")
        if self.observe is not None:
            self.observe(method, path, answer.status, answer.headers)
        return answer

    def _split(self, url: str) -> tuple[_Origin, str, str]:
        """``url``'s origin (parsed once), path and query."""
        after_scheme = url.find("://") + 3
        slash = url.find("/", after_scheme)
        base, rest = (url, "") if slash < 0 else (url[:slash], url[slash:])
        origin = self._origins.get(base)
        if origin is None:
            if len(self._origins) >= ORIGINS_KEPT:
                self._origins.clear()
            origin = self._origins[base] = _Origin.of(base)
        if "?" in rest or "#" in rest:
            parts = urlsplit(url)
            return origin, parts.path or "/", parts.query
        return origin, rest or "/", ""

    def _look(self) -> None:
        """The watch: abort the connections whose request is past its time."""
        self._watch = None
        now = time.monotonic()
        for connection in [c for c in self._busy if c.due <= now]:
            connection.expired = True
            connection.writer.transport.abort()  # the read waiting on it ends
        if self._busy and not self._closed:
            self._watch = asyncio.get_running_loop().call_later(WATCH_EVERY, self._look)

    def _idle_connection(self, key: tuple[str, str, int]) -> _Connection | None:
        if self._closed:
            raise ConnectionError("the HTTP client is closed")
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if connection.usable(now):
                return connection
            connection.close()
        return None

    async def _open(self, key: tuple[str, str, int], https: bool) -> _Connection:
        context = None
        if https:
            if self._ssl is None:
                self._ssl = ssl.create_default_context()
            context = self._ssl
        reader, writer = await asyncio.open_connection(
            key[1], key[2], ssl=context, server_hostname=key[1] if https else None
        )
        return _Connection(reader, writer)

    def _give_back(self, key: tuple[str, str, int], connection: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        if len(idle) >= IDLE_KEPT:
            connection.close()
            return
        connection.idle_since = time.monotonic()
        idle.append(connection)

    async def close(self) -> None:
        """Close every idle connection; those in use close when their request ends."""
        self._closed = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        writers = [c.writer for idle in self._idle.values() for c in idle]
        self._idle.clear()
        for writer in writers:
            writer.close()
        for writer in writers:
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def _read_answer(reader: asyncio.StreamReader) -> tuple[Answer, bool]:
    """One answer: (it, whether the connection may carry another request)."""
    while True:
        block = await reader.readuntil(b"\r\n\r\n")
        lines = block[:-4].decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code, _, reason = rest.partition(" ")
        status = int(code)
        if not version.startswith("HTTP/1.") or not 100 <= status <= 999:
            raise ValueError(f"not an HTTP/1 answer: {lines[0]!r}")
        if status >= 200 or status == 101:
            break  # a 1xx before the answer (100 Continue) is skipped
    fields: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"a malformed header line: {line!r}")
        name = name.strip().lower()
        value = value.strip()
        fields[name] = f"{fields[name]}, {value}" if name in fields else value
    headers = Headers(fields)
    keep = version == "HTTP/1.1" and fields.get("connection", "").lower() != "close"
    if status in (204, 304) or 100 <= status < 200:
        body = b""
    elif "chunked" in fields.get("transfer-encoding", "").lower():
        body = await _read_chunks(reader)
    elif "content-length" in fields:
        body = await reader.readexactly(int(fields["content-length"]))
    else:  # delimited by the connection's end
        body = await reader.read()
        keep = False
    return Answer(status, reason, headers, body), keep


async def _read_chunks(reader: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, if any
                pass
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        if await reader.readexactly(2) != b"\r\n":
            raise ValueError("a chunk without its CRLF")
