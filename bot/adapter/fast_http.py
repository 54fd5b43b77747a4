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


class Headers(Mapping[str, str]):
    """An answer's headers, looked up without regard to case (as aiohttp's)."""

    def __init__(self, items: dict[str, str]) -> None:
        self._items = items  # lower-cased names

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def get(self, name: str, default: Any = None) -> Any:
        return self._items.get(name.lower(), default)

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


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = 0.0

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


class FastHttp:
    """Kept-alive connections and the requests sent on them (see the module's docstring).
    ``observe(method, path, status, headers)`` is told every answer (the operator's metrics)."""

    def __init__(self, user_agent: str, observe: Observer | None = None) -> None:
        self.user_agent = user_agent
        self.observe = observe
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def post_json(
        self, url: str, body: bytes, params: Mapping[str, Any] | None = None
    ) -> Answer:
        """POST ``body`` (JSON) to ``url`` and read the whole answer."""
        parts = urlsplit(url)
        https = parts.scheme == "https"
        host = parts.hostname or ""
        port = parts.port or (443 if https else 80)
        target = parts.path or "/"
        query = "&".join(q for q in (parts.query, urlencode(params) if params else "") if q)
        if query:
            target += "?" + query
        default_port = port == (443 if https else 80)
        head = (
            f"POST {target} HTTP/1.1\r\n"
            f"Host: {host if default_port else f'{host}:{port}'}\r\n"
            f"User-Agent: {self.user_agent}\r\n"
            "Accept: */*\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1")
        key = (parts.scheme, host, port)
        connection: _Connection | None = None
        done = keep = False
        try:
            async with asyncio.timeout(TIMEOUT):
                connection = await self._connection(key, https)
                connection.writer.write(head + body)
                answer, keep = await _read_answer(connection.reader)
            done = True
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            raise ConnectionResetError(f"the answer from {host} broke off: {exc!r}") from exc
        finally:
            if connection is not None:
                if done and keep and not self._closed:
                    self._give_back(key, connection)
                else:
                    connection.close()
        if self.observe is not None:
            self.observe("POST", parts.path, answer.status, answer.headers)
        return answer

    async def _connection(self, key: tuple[str, str, int], https: bool) -> _Connection:
        if self._closed:
            raise ConnectionError("the HTTP client is closed")
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if connection.usable(now):
                return connection
            connection.close()
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
