"""CPU per interaction callback: aiohttp's request against bot/adapter/fast_http.py.

A click's answer is one small JSON POST (an UPDATE_MESSAGE callback) answered 204. This sends
the same body N times each way to a local server (its own process, so only the client's CPU is
counted: ``time.thread_time`` of this process's one thread) and prints µs of CPU a request,
alternating the two ``--rounds`` times. Run by hand:
    .venv/bin/python bench/callback_http.py [--requests 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import orjson

from bot.adapter.fast_http import FastHttp

# About a Café Carnage DM's answer: an embed and four rows of components.
BODY = orjson.dumps(
    {"type": 7, "data": {"embeds": [{"description": "x" * 1500}], "components": []}}
)
ANSWER = b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"


async def _serve(port: int, ready: Any) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                writer.write(ANSWER)
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    ready.set()
    async with server:
        await server.serve_forever()


def serve(port: int, ready: Any) -> None:
    asyncio.run(_serve(port, ready))


async def measure(url: str, requests: int, rounds: int) -> None:
    figures: dict[str, list[float]] = {"aiohttp": [], "fast_http": []}
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession() as session:
        fast = FastHttp("bench")
        for _ in range(rounds):
            for name in figures:
                started = time.thread_time()
                for _ in range(requests):
                    if name == "aiohttp":
                        async with session.post(url, data=BODY, headers=headers) as response:
                            await response.read()
                    else:
                        await fast.post_json(url, BODY)
                figures[name].append((time.thread_time() - started) / requests * 1e6)
        await fast.close()
    for name, values in figures.items():
        shown = ", ".join(f"{v:.0f}" for v in values)
        print(f"{name:10} µs of CPU a callback: {shown} (median {statistics.median(values):.0f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=48_777)
    args = parser.parse_args()
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=serve, args=(args.port, ready), daemon=True)
    server.start()
    ready.wait(10)
    try:
        url = f"http://127.0.0.1:{args.port}/api/v10/interactions/1/token/callback"
        asyncio.run(measure(url, args.requests, args.rounds))
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
