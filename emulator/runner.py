"""Run a discord.py client against a :class:`DiscordEmulator` inside the test process."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, TypeVar

from .models import EmulatorError

if TYPE_CHECKING:
    import discord

    from .emulator import DiscordEmulator

ClientT = TypeVar("ClientT", bound="discord.Client")


@contextlib.asynccontextmanager
async def running_bot(
    emu: DiscordEmulator,
    client: ClientT,
    *,
    timeout: float = 10.0,
    guild_ready_timeout: float | None = 0.05,
    reconnect: bool = True,
    identify_delay: float | None = None,
) -> AsyncIterator[ClientT]:
    """``async with running_bot(emu, bot) as bot:`` — login (runs ``setup_hook``, e.g. command
    sync), connect the gateway, wait for ``on_ready`` (of every shard of an
    AutoShardedClient); on exit close the client cleanly.

    ``guild_ready_timeout`` lowers discord.py's wait after the last GUILD_CREATE (2 s by
    default) so ``on_ready`` fires at once; pass ``None`` to keep the client's own setting.
    ``identify_delay`` replaces discord.py's 5 s wait before every IDENTIFY but the first
    (``Client.before_identify_hook``: re-IDENTIFY after an invalidated session, later shards).
    """
    undo = emu.patch_discord()
    if guild_ready_timeout is not None:
        client._connection.guild_ready_timeout = guild_ready_timeout
    if identify_delay is not None:
        delay = identify_delay

        async def before_identify_hook(shard_id: int | None, *, initial: bool = False) -> None:
            if not initial:
                await asyncio.sleep(delay)

        client.before_identify_hook = before_identify_hook  # type: ignore[method-assign]
    task: asyncio.Task[None] | None = None
    try:
        await client.login(emu.token)
        task = asyncio.create_task(client.connect(reconnect=reconnect), name="discord-connect")
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ready
            if task in done:
                task.result()  # re-raise the connection error
                raise EmulatorError("the client stopped before it became ready")
            raise EmulatorError(f"the client did not become ready within {timeout}s")
        yield client
    finally:
        await client.close()
        if task is not None:
            try:
                await asyncio.wait_for(task, 5.0)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
            except Exception:
                pass
        undo()
