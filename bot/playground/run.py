"""Start the playground and serve it until Ctrl-C (or SIGTERM)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from bot.core.config import Settings
from bot.playground.server import serving
from bot.playground.world import DEFAULT_USERS, start_world

log = logging.getLogger("cafebot.playground")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def run_playground(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    users: tuple[str, ...] = DEFAULT_USERS,
) -> int:
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # discord.py talks to a local emulator here: its login chatter and voice warnings are noise.
    logging.getLogger("discord").setLevel(logging.ERROR)
    host = host or settings.playground_host
    port = settings.playground_port if port is None else port
    try:
        asyncio.run(_serve(settings, host, port, users))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(
            f"cannot serve the playground on {host}:{port} ({exc.strerror or exc}); "
            "choose another with --port (or playground_port)",
            file=sys.stderr,
        )
        return 2
    return 0


async def _serve(settings: Settings, host: str, port: int, users: tuple[str, ...]) -> None:
    world = await start_world(settings, users=users)
    try:
        async with serving(world, host, port) as server:
            shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
            url = f"http://{shown}:{server.port}"
            print(f"☕ cafebot playground: open {url} in your browser", flush=True)
            for name in users[1:]:
                print(f"   {name}: {url}/?as={name.lower()} (a window per player)", flush=True)
            if host not in LOOPBACK:
                log.warning(
                    "serving on %s: anyone who can reach this computer can play as any local "
                    "user (there are no passwords in the playground)",
                    host,
                )
            print("Press Ctrl-C to stop.", flush=True)
            # Handlers of our own, as the bot's: a playground started where SIGINT is ignored
            # (a background job of a script) still stops cleanly when asked.
            asked = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, asked.set)
            with contextlib.suppress(asyncio.CancelledError):
                await asked.wait()
    finally:
        await world.stop()
