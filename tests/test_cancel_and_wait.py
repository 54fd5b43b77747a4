"""cancel_and_wait: every task given is cancelled, then waited for, its cancellation not raised."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.tasks import cancel_and_wait


async def test_the_tasks_are_cancelled_and_have_ended() -> None:
    never = asyncio.Event()
    ended: list[str] = []

    async def wait_for_ever(name: str) -> None:
        try:
            await never.wait()
        finally:
            ended.append(name)

    first = asyncio.create_task(wait_for_ever("first"))
    second = asyncio.create_task(wait_for_ever("second"))
    await asyncio.sleep(0)  # both started
    await cancel_and_wait(first, None, second)
    assert first.cancelled() and second.cancelled()
    assert sorted(ended) == ["first", "second"]
    await cancel_and_wait(None)


async def test_an_error_of_the_task_is_raised_unless_quiet() -> None:
    async def fail() -> None:
        raise ValueError("broken")

    failed = asyncio.create_task(fail())
    await asyncio.sleep(0)  # it failed before it was cancelled
    with pytest.raises(ValueError):
        await cancel_and_wait(failed)
    again = asyncio.create_task(fail())
    await asyncio.sleep(0)
    await cancel_and_wait(again, quiet=(Exception,))
    assert again.done() and isinstance(again.exception(), ValueError)
