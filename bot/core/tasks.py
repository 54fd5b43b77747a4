"""Stopping a background task: cancel it, then wait until it has stopped."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancel_and_wait(
    *tasks: asyncio.Future[Any] | None, quiet: tuple[type[BaseException], ...] = ()
) -> None:
    """Cancel every task given (None: none to stop), then wait for each to end. Its
    cancellation is not raised, nor an error of the ``quiet`` kinds (any other error is, after
    every task was cancelled)."""
    running = [task for task in tasks if task is not None]
    for task in running:
        task.cancel()
    for task in running:
        with contextlib.suppress(asyncio.CancelledError, *quiet):
            await task
