"""The playground in a real browser: headless Chromium (Debian's ``chromium`` package) driven by
Playwright's Python API, against the playground served in the test's own event loop."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Browser, Locator, Page, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from bot.core.config import Settings
from bot.playground.server import PlaygroundServer
from bot.playground.world import World, start_world
from emulator import Message
from tests.e2e.harness import Clock

WAIT = (
    30.0  # seconds for a round trip through the page: generous, a loaded CI box runs Chromium too
)
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium() -> str:
    """The browser the playground's tests use; a clear failure (not a skip) when it is absent."""
    found = os.environ.get("CAFEBOT_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )
    if not found or not Path(found).exists():
        pytest.fail(
            "Chromium is missing: the playground's browser tests need it. Install Debian's "
            "package (`apt-get install -y chromium`; .ci/run does it) or point CAFEBOT_CHROMIUM "
            "at a Chrome/Chromium binary. README.md: `make test` needs it.",
            pytrace=False,
        )
    return found


@dataclass
class Playground:
    world: World
    server: PlaygroundServer
    clock: Clock

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def page_url(self, user: str) -> str:
        return f"{self.url}/?as={user.lower()}"


@asynccontextmanager
async def playground(
    tmp_path: Path, users: tuple[str, ...] = ("Alice", "Bob"), seed: int = 20261123
) -> AsyncIterator[Playground]:
    clock = Clock()
    settings = Settings(
        table_edit_interval=0.1,
        post_coalesce_interval=0.0,
        bot_player_delay=0.0,
        guild_ready_timeout=0.05,
        sqlite_synchronous="NORMAL",  # the database is thrown away: no need to wait for the disk
    )
    world = await start_world(
        settings,
        users=users,
        database=tmp_path / "playground.sqlite3",
        rate_limit_scale=0.01,
        clock=clock,
        new_seed=lambda: seed,
    )
    server = PlaygroundServer(world)
    try:
        await server.start("127.0.0.1", 0)
        yield Playground(world, server, clock)
    finally:
        await server.stop()
        await world.stop()
    world.emu.assert_clean()


@asynccontextmanager
async def browser() -> AsyncIterator[Browser]:
    path = chromium()
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            await launched.close()


@asynccontextmanager
async def windows(launched: Browser) -> AsyncIterator[Browser]:
    """``launched`` (shared by a module's tests) for one test: the windows the test opens in it
    (browser contexts) are closed when it ends, as closing a browser of its own did."""
    try:
        yield launched
    finally:
        for context in launched.contexts:
            await context.close()


async def open_page(
    b: Browser, pg: Playground, user: str, viewport: tuple[int, int] = (1280, 860)
) -> Page:
    """A window of its own (a fresh browser context) for ``user``, ``viewport`` (width, height)
    CSS pixels large (a phone: (390, 844), touch and all)."""
    width, height = viewport
    phone = width <= PHONE_WIDTH
    context = await b.new_context(
        viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone
    )
    page = await context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    await page.goto(pg.page_url(user))
    # (attached: on a phone the user list sits in the closed drawer)
    await page.locator(f'.user-switch.active[data-user="{user}"]').wait_for(state="attached")
    page_errors[id(page)] = errors
    return page


PHONE_WIDTH = 700  # style.css: narrower, the sidebar is a drawer behind the ☰ button


async def open_menu(page: Page) -> None:
    """Show the sidebar: on a phone-sized page, open its drawer (a wide page always shows it)."""
    button = page.locator("#menu-button")
    if await button.is_visible() and await button.get_attribute("aria-expanded") != "true":
        await button.click()
    await page.locator("#sidebar").wait_for(state="visible")


page_errors: dict[int, list[str]] = {}


def no_script_errors(page: Page) -> None:
    assert page_errors.get(id(page), []) == [], page_errors[id(page)]


async def slash(page: Page, command: str, choices: dict[str, str] | None = None) -> None:
    """Type ``/command`` in the box, pick it, fill options (by choice label), send."""
    await page.locator("#composer-input").fill(f"/{command}")
    await page.locator(f'.command-suggestion[data-command="{command}"]').click()
    for name, label in (choices or {}).items():
        await page.locator(f'.command-option[data-option="{name}"] select').select_option(
            label=label
        )
    await page.locator("#composer-send").click()
    await page.locator("#command-form").wait_for(state="hidden")


async def open_channel(page: Page, name: str = "café") -> None:
    await open_menu(page)
    await page.locator(f'.channel[data-name="{name}"]').click()
    # (attached: on a phone the drawer closes as the channel opens)
    await page.locator(f'.channel.active[data-name="{name}"]').wait_for(state="attached")


async def open_dms(page: Page) -> None:
    await open_menu(page)
    await page.locator(".dm-link").click()
    await page.locator(".dm-link.active").wait_for(state="attached")


def in_message(page: Page, message_id: int, selector: str) -> Locator:
    return page.locator(f'.message[data-message-id="{message_id}"] {selector}')


async def caught_up(page: Page, message: Message) -> None:
    """Wait until the page shows ``message`` as the emulator holds it now (that edit, or a later
    one: a picture drawn off the event loop may edit it again meanwhile)."""
    version = len(message.history)
    await page.wait_for_function(
        """([id, version]) => {
            const node = document.querySelector(`.message[data-message-id="${id}"]`);
            return node !== null && Number(node.dataset.version) >= version;
        }""",
        arg=[str(message.id), version],
    )


async def click_button(page: Page, message_id: int, custom_id: str) -> None:
    await in_message(page, message_id, f'button[data-custom-id="{custom_id}"]').click()


async def pick(page: Page, message_id: int, custom_id: str, value: str) -> None:
    """Open the select ``custom_id`` and pick the option ``value`` (once more if the message
    was redrawn in between and closed the menu)."""
    for attempt in range(3):
        select = in_message(page, message_id, f'.select[data-custom-id="{custom_id}"]')
        await select.locator(".select-box").click()
        option = select.locator(f'.select-option[data-value="{value}"]')
        try:
            await option.click(timeout=1000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise


async def visible_message_ids(page: Page) -> set[str]:
    """Every message id the page holds (rendered or not), straight from its state."""
    ids: list[str] = await page.evaluate("[...state.messages.keys()]")
    return set(ids)
