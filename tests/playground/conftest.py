"""The browser tests' Chromium, launched once for a module's tests instead of once a test (a
launch and Playwright's driver cost about a CPU second). Each test still opens its own windows
(fresh browser contexts: no cookies, storage or pages of another test) and closes them when it
ends (``harness.windows``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from playwright.async_api import Browser

from tests.playground.harness import browser


# The module's tests run in the module's event loop (`pytest.mark.asyncio(loop_scope="module")`):
# Playwright's objects belong to the loop they were made in.
@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium_browser() -> AsyncIterator[Browser]:
    async with browser() as launched:
        yield launched
