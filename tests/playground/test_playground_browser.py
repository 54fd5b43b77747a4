"""The playground in headless Chromium: people click in the page, bot players fill the seats.

Each test serves the playground (the real bot, the emulator, the web server) in its own event
loop and drives one browser window per local user, as people on one computer or a LAN would.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path

import discord
import pytest
from playwright.async_api import Browser, Page

from bot.core.store import SessionStatus
from emulator import Message
from games import REGISTRY
from games.engine import PrivatePanel, clock_key
from games.rng import Rng
from tests.e2e.harness import Control, button_rows, controls
from tests.playground.harness import (
    WAIT,
    Playground,
    caught_up,
    click_button,
    in_message,
    no_script_errors,
    open_channel,
    open_dms,
    open_page,
    pick,
    playground,
    slash,
    visible_message_ids,
    windows,
)

# One Chromium for the module's tests (tests/playground/conftest.py), in the module's event loop.
pytestmark = [pytest.mark.xdist_group("browser"), pytest.mark.asyncio(loop_scope="module")]

SCREENSHOT_ENV = "CAFEBOT_SCREENSHOT"  # e.g. docs/playground.png: where to keep the picture
# Where the every-game test leaves a picture of each game's table (README.md names it).
SCREENSHOTS = Path(os.environ.get("CAFEBOT_SCREENSHOTS", Path(__file__).parents[2] / "screenshots"))
SHOT_WIDTHS = ((1280, 860), (390, 844))  # a desktop window, a phone held upright
# Every picture in the messages has loaded (the full-size overlay's empty picture is not one).
PICTURES_LOADED = (
    "() => [...document.querySelectorAll('#messages img')]"
    ".every(i => i.complete && i.naturalWidth > 0)"
)
MID_GAME_CLICKS = 3  # the mid-game picture is taken after this many of Alice's clicks
CLICKS_PER_STEP = 3  # then the step's deadline decides for the person, as for someone away


async def settle(pg: Playground) -> None:
    bot = pg.world.bot
    for _ in range(3):
        await bot.robots.idle()
        await bot.tables.idle()


async def answered(pg: Playground, before: int) -> None:
    """Wait until the interaction the page just sent was answered."""
    emu = pg.world.emu
    await emu.wait_until(
        lambda: len(emu.interactions) > before and emu.interactions[-1].responded_at is not None,
        timeout=WAIT,
    )


async def lobby_in(pg: Playground, channel: int) -> Message:
    """Wait for the lobby the bot posts in ``channel``."""
    found = await pg.world.emu.wait_until(lambda: lobby_message(pg, channel), timeout=WAIT)
    assert found is not None
    return found


def lobby_message(pg: Playground, channel: int) -> Message | None:
    """The channel's lobby (later its table) message, once the bot has posted it."""
    emu = pg.world.emu
    for message in emu.channel_messages(channel):
        if any(cid and cid.endswith(":join") for _, cid, _ in message.buttons()):
            return emu.get_message(message.id)
    return None


async def press_in_page(pg: Playground, page: Page, control: Control) -> None:
    await settle(pg)
    await caught_up(page, pg.world.emu.get_message(control.message_id))
    before = len(pg.world.emu.interactions)
    if control.value is None:
        await click_button(page, control.message_id, control.custom_id)
    else:
        await pick(page, control.message_id, control.custom_id, control.value)
    await answered(pg, before)


async def test_cafe_carnage_with_two_friends_and_bot_players_in_the_browser(
    tmp_path: Path, chromium_browser: Browser
) -> None:
    async with playground(tmp_path) as pg, windows(chromium_browser) as b:
        emu, bot = pg.world.emu, pg.world.bot
        alice_id, bob_id = pg.world.users
        channel = pg.world.channels[0]
        alice = await open_page(b, pg, "Alice")
        bob = await open_page(b, pg, "Bob")

        await slash(alice, "game new", {"game": "Café Carnage"})
        lobby = await lobby_in(pg, channel)
        await click_button(bob, lobby.id, lobby.button("Join"))
        await emu.wait_until(
            lambda: "Bob" in emu.get_message(lobby.id).current_text(), timeout=WAIT
        )
        before = len(emu.interactions)
        await click_button(bob, lobby.id, emu.get_message(lobby.id).button("Add a bot"))
        await answered(pg, before)
        refusal = bob.locator(".message.ephemeral", has_text="Only the host can add bot players")
        await refusal.wait_for()  # said to Bob, in Bob's window only
        assert await alice.locator(".message.ephemeral").count() == 0
        for seated in ("3/8", "4/8"):
            before = len(emu.interactions)
            await click_button(alice, lobby.id, emu.get_message(lobby.id).button("Add a bot"))
            await answered(pg, before)
            await in_message(alice, lobby.id, f'.field-name:has-text("{seated}")').wait_for()
        before = len(emu.interactions)
        await click_button(alice, lobby.id, emu.get_message(lobby.id).button("Start"))
        await answered(pg, before)
        await settle(pg)
        # Bot players are labelled on the table, and have ordered already.
        table = in_message(alice, lobby.id, ".embed").first
        await table.get_by_text("🤖 Biscuit").first.wait_for()
        s = await bot.service.load(1)
        assert s.state is not None
        assert s.game.active_players(s.state) == {str(alice_id), str(bob_id)}
        await caught_up(alice, emu.get_message(lobby.id))
        shot = tmp_path / "playground.png"
        await alice.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        if os.environ.get(SCREENSHOT_ENV):
            shutil.copy(shot, os.environ[SCREENSHOT_ENV])

        for page, user in ((alice, alice_id), (bob, bob_id)):
            await open_dms(page)
            menu = next(m for m in reversed(emu.dm_messages(user)) if button_rows(m))
            for row in range(4):  # a row of buttons per course, then the action card's
                first = button_rows(emu.get_message(menu.id))[row][0]
                await press_in_page(pg, page, Control(menu.id, "", first["custom_id"]))
            await settle(pg)
            confirm = emu.get_message(menu.id).button("Confirm")
            await press_in_page(pg, page, Control(menu.id, "Confirm", confirm))
        await settle(pg)

        # The play-by-play is in the game's thread, opened on its table message.
        (thread,) = [c for c in emu.channels.values() if c.parent_id is not None]
        await open_channel(alice, thread.name)
        served = alice.locator(".message", has_text="Round 1 — dinner is served")
        await served.wait_for()
        await served.get_by_text("🤖 Mocha").first.wait_for()

        # Alice's window never held anything of Bob's DMs or Bob's ephemeral replies.
        bobs = {str(m.id) for m in [*emu.dm_messages(bob_id), *emu.ephemerals(bob_id)]}
        assert bobs, "Bob got his menu and a refusal"
        alices = {str(m.id) for m in [*emu.dm_messages(alice_id), *emu.ephemerals(alice_id)]}
        assert not (await visible_message_ids(alice)) & bobs
        assert not (await visible_message_ids(bob)) & alices
        assert bobs <= await visible_message_ids(bob)
        await open_dms(alice)
        for mid in bobs:
            assert await alice.locator(f'[data-message-id="{mid}"]').count() == 0

        # One click makes Alice's window Bob's: it then holds Bob's DMs, and Alice's no more.
        await alice.locator('.user-switch[data-user="Bob"]').click()
        await alice.locator('.user-switch.active[data-user="Bob"]').wait_for()
        await open_dms(alice)
        await alice.locator(f'.message[data-message-id="{menu.id}"]').wait_for()
        assert not (await visible_message_ids(alice)) & alices
        assert "as=bob" in alice.url

        no_script_errors(alice)
        no_script_errors(bob)


async def test_the_command_box_autocompletes_and_refusals_are_shown(
    tmp_path: Path, chromium_browser: Browser
) -> None:
    async with playground(tmp_path, users=("Alice",)) as pg, windows(chromium_browser) as b:
        alice = await open_page(b, pg, "Alice")
        # The / box lists the synced /game commands; options come with their choices, and the
        # setting option asks the bot for suggestions as you type (autocomplete).
        await alice.locator("#composer-input").fill("/game")
        listed = await alice.locator(".command-suggestion").evaluate_all(
            "nodes => nodes.map(n => n.dataset.command)"
        )
        assert {"game new", "game join", "game rules", "game abandon"} <= set(listed)
        await alice.locator('.command-suggestion[data-command="game new"]').click()
        await alice.locator('.command-option[data-option="game"] select').select_option(
            label="Café Carnage"
        )
        setting = alice.locator('.command-option[data-option="setting"] input')
        await setting.fill("no_")
        await alice.locator(".autocomplete-choice", has_text="no_repeats=on").click()
        assert await setting.input_value() == "no_repeats=on"
        await alice.locator("#composer-send").click()
        await alice.locator("#command-form").wait_for(state="hidden")
        lobby = await lobby_in(pg, pg.world.channels[0])
        assert (await pg.world.bot.service.load(1)).options.model_dump()["no_repeats"] is True
        # A thread (more games in one channel) shows under its channel and holds a game.
        alice.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept("second table")))
        await alice.locator("#new-thread").click()
        await alice.locator('.channel.thread.active[data-name="second table"]').wait_for()
        await slash(alice, "game new", {"game": "Monster Café"})
        thread = next(c for c in pg.world.emu.channels.values() if c.name == "second table")
        await lobby_in(pg, thread.id)
        await alice.locator(".message", has_text="Monster Café — lobby").wait_for()
        # A click Discord's client could not make (no such button): refused with its reason.
        await alice.evaluate(
            "([message]) => act('/api/click', {message, custom_id: 'cb:l:1:nothing'})",
            [str(lobby.id)],
        )
        await alice.locator(".toast.error", has_text="Discord would refuse this").wait_for()
        # Something the bot sends that Discord would reject (content over 2000 characters) is
        # not silently accepted: the page says so.
        partial = pg.world.bot.get_partial_messageable(pg.world.channels[0])
        with pytest.raises(discord.HTTPException, match="2000"):
            await partial.send("x" * 2001)
        await alice.locator("#problems", has_text="Discord would reject").wait_for()
        await alice.locator("#problems .problem", has_text="content").first.wait_for()
        pg.world.emu.violations.clear()  # seen, as it should be


async def test_jump_links_command_names_and_full_size_pictures(
    tmp_path: Path, chromium_browser: Browser
) -> None:
    async with playground(tmp_path, users=("Alice",)) as pg, windows(chromium_browser) as b:
        emu = pg.world.emu
        alice = await open_page(b, pg, "Alice")
        await slash(alice, "game new", {"game": "Cube Café"})
        table = await lobby_in(pg, pg.world.channels[0])
        before = len(emu.interactions)
        await click_button(alice, table.id, emu.get_message(table.id).button("Add a bot"))
        await answered(pg, before)
        before = len(emu.interactions)
        await click_button(alice, table.id, emu.get_message(table.id).button("Start"))
        await answered(pg, before)
        await settle(pg)
        await caught_up(alice, emu.get_message(table.id))

        # The command line names the subcommand, as Discord's client does.
        before = len(emu.interactions)
        await slash(alice, "game status")
        await answered(pg, before)
        status = alice.locator(".message", has=alice.locator(".reply-line .cmd"))
        await status.locator(".cmd", has_text="/game status").first.wait_for()
        names = await alice.locator(".reply-line .cmd").all_text_contents()
        assert "/game status" in names and "/game" not in names, names

        # A jump link in a thread opens the table's channel, scrolled to the table, flashed.
        alice.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept("side talk")))
        await alice.locator("#new-thread").click()
        await alice.locator('.channel.thread.active[data-name="side talk"]').wait_for()
        before = len(emu.interactions)
        await slash(alice, "game mine")
        await answered(pg, before)
        mine = alice.locator(".message", has_text="/game mine")
        jump = mine.locator(f'a.jump[data-message="{table.id}"]')
        await jump.click()
        await alice.locator('.channel.active[data-name="café"]').wait_for()
        shown = alice.locator(f'.message.jumped[data-message-id="{table.id}"]')
        await shown.wait_for()
        assert await shown.evaluate(IN_VIEW), "the table is not scrolled into view"
        assert await alice.locator(".message.jumped").count() == 1
        assert "?as=alice" in alice.url and "discord.com" not in alice.url

        # A click on a picture shows it full size; a click or Esc closes it.
        overlay, full = alice.locator("#picture-overlay"), alice.locator("#picture-full")
        picture = in_message(alice, table.id, "img").first
        src = await picture.evaluate("img => img.src")
        for close, (width, height) in (("Escape", (1280, 860)), ("click", PHONE)):
            await alice.set_viewport_size({"width": width, "height": height})
            await picture.click()
            await overlay.wait_for(state="visible")
            await alice.wait_for_function(
                "() => document.getElementById('picture-full').naturalWidth > 0"
            )
            assert await full.evaluate("img => img.src") == src
            # Whole on the screen, a phone's too (shrunk to fit, never cut).
            box = await full.bounding_box()
            assert box is not None and box["x"] >= 0 and box["y"] >= 0
            assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height
            await alice.screenshot(path=str(tmp_path / f"overlay-{width}.png"))
            if close == "Escape":
                await alice.keyboard.press("Escape")
            else:
                await overlay.click()
            await overlay.wait_for(state="hidden")
        no_script_errors(alice)


# A node's centre is inside the message pane as shown (scrolled to it).
IN_VIEW = """node => {
  const pane = document.getElementById("messages").getBoundingClientRect();
  const r = node.getBoundingClientRect();
  const middle = r.top + Math.min(r.height, pane.height) / 2;
  return middle > pane.top && middle < pane.bottom;
}"""


def hand_button(table: Message) -> str | None:
    """The custom_id of the table's Show my hand button, if it has one."""
    return next((c for _, c, _ in table.buttons() if c and c.endswith(":hand")), None)


def seats_for(game_id: str) -> int:
    game = REGISTRY[game_id]
    return max(game.min_players, min(3, game.max_players))


async def reachable(pg: Playground, sid: int, table_id: int, user: int) -> list[Control]:
    """The controls of game ``sid`` the person can click now: on the table, in their latest
    DM, on their latest private copy (Show my hand)."""
    emu = pg.world.emu
    found = controls(emu.get_message(table_id), sid, "t")
    for pool in (emu.dm_messages(user), emu.ephemerals(user)):
        latest = next((m for m in reversed(pool) if not m.deleted and controls(m, sid)), None)
        if latest is not None:
            found += controls(emu.get_message(latest.id), sid)
    return found


async def run_deadline(pg: Playground, sid: int) -> None:
    bot = pg.world.bot
    deadline = await bot.service.deadline(sid)
    assert deadline is not None, "a step with nothing to click and no clock"
    pg.clock.advance(max(0.0, deadline.due_at - pg.clock()) + 1)
    await bot.scheduler.run_due()


# The game the phone test plays to its end (with its pictures): the longest game, so the
# every-game test leaves it out rather than play it twice (each is a full game in Chromium).
ON_A_PHONE = "cube-cafe"


@pytest.mark.parametrize("game_id", [g for g in REGISTRY if g != ON_A_PHONE])
async def test_every_game_plays_to_its_end_in_the_page_with_bot_players(
    tmp_path: Path, chromium_browser: Browser, game_id: str
) -> None:
    await play_to_the_end(chromium_browser, tmp_path, game_id, screenshots=True)


async def test_a_game_plays_to_its_end_on_a_phone(
    tmp_path: Path, chromium_browser: Browser
) -> None:
    """390×844 CSS pixels (a phone held upright): the sidebar is a drawer behind ☰, the
    messages take the width, nothing scrolls sideways, and after every click each control
    shown (every button and select of the pane, the message box) can be tapped: at its centre
    the page finds the control itself, nothing over it. The game's pictures are taken on the
    way, as the every-game test takes the others'."""
    checked: list[int] = []

    async def on_a_phone(page: Page) -> None:
        problems = await page.evaluate(PHONE_CHECK)
        assert problems["faults"] == [], problems["faults"]
        checked.append(problems["controls"])

    await play_to_the_end(
        chromium_browser,
        tmp_path,
        ON_A_PHONE,
        viewport=PHONE,
        after_click=on_a_phone,
        screenshots=True,
    )
    assert len(checked) > 10 and max(checked) > 20, checked


PHONE = (390, 844)
# What a phone's page must be: the answer lists the faults (none) and counts the controls seen.
PHONE_CHECK = """() => {
  const root = document.documentElement;
  const vw = root.clientWidth;
  const faults = [];
  const name = (n) => `${n.tagName.toLowerCase()} "${(n.textContent || n.placeholder || "").trim().slice(0, 30)}"`;
  if (root.scrollWidth > vw) faults.push(`the page scrolls sideways: ${root.scrollWidth} > ${vw}`);
  const pane = document.getElementById("messages");
  if (pane.scrollWidth > pane.clientWidth) {
    faults.push(`the messages scroll sideways: ${pane.scrollWidth} > ${pane.clientWidth}`);
  }
  const width = pane.getBoundingClientRect().width;
  if (width < 0.9 * vw) faults.push(`the message pane is ${width} px wide of ${vw}`);
  const sidebar = document.getElementById("sidebar").getBoundingClientRect();
  if (!document.body.classList.contains("menu-open") && sidebar.right > 0 &&
      getComputedStyle(document.getElementById("sidebar")).visibility !== "hidden") {
    faults.push("the closed sidebar is on the screen");
  }
  const controls = [...document.querySelectorAll(
    "#messages button:not(:disabled), #messages .select-box, #composer-input, #composer-send, " +
    "#menu-button, #new-thread"
  )];
  let seen = 0;
  for (const control of controls) {
    control.scrollIntoView({block: "center", inline: "nearest"});
    const r = control.getBoundingClientRect();
    if (!r.width || !r.height) continue;  // not shown
    seen += 1;
    if (r.left < -0.5 || r.right > vw + 0.5) faults.push(`${name(control)} sticks out: ${r.left}..${r.right}`);
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === control || control.contains(hit))) {
      faults.push(`${name(control)} is covered by ${hit ? hit.outerHTML.slice(0, 80) : "nothing"}`);
    }
  }
  pane.scrollTop = pane.scrollHeight;
  return {faults, controls: seen};
}"""


async def play_to_the_end(
    chromium_browser: Browser,
    tmp_path: Path,
    game_id: str,
    viewport: tuple[int, int] = (1280, 860),
    after_click: Callable[[Page], Awaitable[None]] | None = None,
    screenshots: bool = False,
) -> None:
    """Alice starts ``game_id`` with bot players and clicks what she can (a random control, up
    to CLICKS_PER_STEP a step; then the step's deadline plays) until it ends; ``after_click``
    looks at the page after each of her clicks; with ``screenshots``, the table is pictured
    mid-game and at the end, at each of SHOT_WIDTHS, into SCREENSHOTS."""
    game = REGISTRY[game_id]
    async with playground(tmp_path, users=("Alice",)) as pg, windows(chromium_browser) as b:
        emu, bot = pg.world.emu, pg.world.bot
        (alice_id,) = pg.world.users
        page = await open_page(b, pg, "Alice", viewport)
        await slash(page, "game new", {"game": game.title})
        lobby = await lobby_in(pg, pg.world.channels[0])
        for _ in range(seats_for(game_id) - 1):
            before = len(emu.interactions)
            await click_button(page, lobby.id, emu.get_message(lobby.id).button("Add a bot"))
            await answered(pg, before)
        before = len(emu.interactions)
        await click_button(page, lobby.id, emu.get_message(lobby.id).button("Start"))
        await answered(pg, before)
        rng = Rng(seed=7)
        sid, step, clicks, stats = 1, None, 0, {"clicks": 0, "deadlines": 0}
        pane = "channel"
        for _ in range(400):
            await settle(pg)
            s = await bot.service.load(sid)
            if s.status is not SessionStatus.ACTIVE:
                break
            assert s.state is not None
            key = clock_key(game, s.state)
            if key != step:
                step, clicks = key, 0
            me_awaited = str(alice_id) in game.active_players(s.state)
            options = await reachable(pg, sid, lobby.id, alice_id) if me_awaited else []
            if me_awaited and not options and game.private_panel is not PrivatePanel.NEVER:
                hand = hand_button(emu.get_message(lobby.id))
                if hand is not None and clicks < CLICKS_PER_STEP:
                    await ensure_pane(page, "channel", pane)
                    pane = "channel"
                    await press_in_page(pg, page, Control(lobby.id, "hand", hand))
                    clicks += 1
                    continue
            if not options or clicks >= CLICKS_PER_STEP:
                await run_deadline(pg, sid)
                stats["deadlines"] += 1
                continue
            control = rng.choice(options)
            wanted = (
                "dm"
                if emu.get_message(control.message_id).channel_id == emu.dm_channel_id(alice_id)
                else "channel"
            )
            await ensure_pane(page, wanted, pane)
            pane = wanted
            await press_in_page(pg, page, control)
            clicks += 1
            stats["clicks"] += 1
            if after_click is not None:
                await settle(pg)
                await caught_up(page, emu.get_message(control.message_id))
                await after_click(page)
            if screenshots and stats["clicks"] == MID_GAME_CLICKS:
                await ensure_pane(page, "channel", pane)
                pane = "channel"
                await shoot_table(pg, page, lobby.id, f"{game_id}-mid", viewport)
        await settle(pg)
        s = await bot.service.load(sid)
        assert s.status is SessionStatus.FINISHED, (game_id, stats)
        assert stats["clicks"] > 0
        assert bot.robots.moves_played > 0
        # The page shows how it ended: the table's last state and the last announcement.
        await ensure_pane(page, "channel", pane)
        last = emu.channel_messages(pg.world.channels[0])[-1]
        await page.locator(f'.message[data-message-id="{last.id}"]').wait_for()
        # The final table's pictures (games that draw them) are shown, and every picture loads.
        await caught_up(page, emu.get_message(lobby.id))
        pictures = in_message(page, lobby.id, "img")
        assert await pictures.count() == len(emu.get_message(lobby.id).files)
        broken = "els => els.filter(i => !i.complete || i.naturalWidth === 0).length"
        await page.wait_for_function(PICTURES_LOADED)
        assert await page.locator("#messages img").evaluate_all(broken) == 0
        if after_click is not None:
            await after_click(page)
        if screenshots:
            await shoot_table(pg, page, lobby.id, f"{game_id}-end", viewport)
            shots = sorted(p.name for p in SCREENSHOTS.glob(f"{game_id}-*.png"))
            assert len(shots) == 2 * len(SHOT_WIDTHS), shots
        no_script_errors(page)


async def shoot_table(
    pg: Playground, page: Page, table_id: int, name: str, viewport: tuple[int, int]
) -> None:
    """Picture the table message as it is now at each of SHOT_WIDTHS (SCREENSHOTS/name-W.png),
    then give the page its own size back."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await settle(pg)
    await caught_up(page, pg.world.emu.get_message(table_id))
    table = page.locator(f'.message[data-message-id="{table_id}"]')
    for width, height in SHOT_WIDTHS:
        # As tall as the table needs: the message pane scrolls, and a table taller than the
        # window would be cut by the header and the message box.
        await page.set_viewport_size({"width": width, "height": height})
        tall = await table.evaluate("n => n.getBoundingClientRect().height")
        await page.set_viewport_size({"width": width, "height": max(height, int(tall) + 240)})
        await table.evaluate("n => n.scrollIntoView({block: 'center'})")
        await page.wait_for_function(PICTURES_LOADED)
        path = SCREENSHOTS / f"{name}-{width}.png"
        await table.screenshot(path=str(path), animations="disabled")
        assert path.stat().st_size > 5_000, path
    await page.set_viewport_size({"width": viewport[0], "height": viewport[1]})


async def ensure_pane(page: Page, wanted: str, current: str) -> None:
    if wanted == current:
        return
    if wanted == "dm":
        await open_dms(page)
    else:
        await open_channel(page)
