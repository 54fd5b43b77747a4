"""Bad and hostile input through Discord: every interaction is answered with one short line,
nothing is logged as a bug, and nothing changes.

The cases the issue found, one by one, then a fuzzer (hypothesis) of interaction payloads: slash
commands with unknown names, undeclared options and values of any type and size, component
clicks with mangled custom_ids, the wrong component type and strange values, from a DM, from a
stranger and from players who are seated.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import CafeBot
from emulator import InteractionResult, Message
from tests.e2e.harness import World, ephemeral_text, open_game, world

T = TypeVar("T")


class ErrorLog(logging.Handler):
    """Every record at ERROR or above (a traceback means a bug, not bad input)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def answer(result: InteractionResult) -> str:
    """The one short private line a refusal must be."""
    text = ephemeral_text(result)
    assert text.startswith("⚠️"), text
    assert len(text) < 300, f"{len(text)} characters"
    return text


async def state_snapshot(bot: CafeBot) -> tuple[Any, ...]:
    rows = await bot.store.sessions_with_status("lobby", "active", "finished", "abandoned")
    return tuple((r.id, r.status, r.version, r.state) for r in rows), len(
        await bot.store.actions(1)
    )


@pytest.fixture
def errors() -> Iterator[ErrorLog]:
    handler = ErrorLog()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


async def test_each_bad_input_the_issue_found_is_answered_and_changes_nothing(
    tmp_path: Path, errors: ErrorLog
) -> None:
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        table = await open_game(w, "cafe-carnage")
        before = await state_snapshot(bot)
        alice, bob, _ = w.users
        emu = w.emu
        chan = w.channel
        # Slash values outside the declared choices, of the wrong type, unknown subcommands.
        for options in ({"game": "chess"}, {"game": "cafe-carnage", "timeout": -1}):
            assert "offered choices" in answer(
                await emu.forge_slash(alice, chan, "game new", options)
            )
        wrong_type = [
            {"name": "game", "type": 3, "value": "cafe-carnage"},
            {"name": "timeout", "type": 3, "value": "soon"},
        ]
        assert "⚠️" in answer(await emu.forge_slash(alice, chan, "game new", wrong_type))
        assert "don't know that command" in answer(
            await emu.forge_slash(alice, chan, "game frobnicate", {})
        )
        # A huge setting is refused without echoing it.
        huge = await emu.forge_slash(
            alice, chan, "game new", {"game": "monster-cafe", "setting": "x" * 6000}
        )
        assert "x" * 100 not in answer(huge)
        # /game new from a DM (Discord hides it there; a forged call still comes).
        dm = emu.open_dm(bob)
        assert "not in a DM" in answer(
            await emu.forge_slash(bob, dm, "game new", {"game": "monster-cafe"})
        )
        # A select's custom_id clicked as a button (the lobby's first option select, gone from
        # the table since the start), and a button's sent as a select.
        assert "isn't on this message" in answer(
            await emu.forge_component(alice, table, "cb:o:1:0", component_type=2)
        )
        menu = w.latest_dm(alice)
        (_, button_id, _) = menu.buttons()[0]
        assert "isn't on this message" in answer(
            await emu.forge_component(alice, menu, button_id, component_type=3, values=["x"])
        )
        assert await state_snapshot(bot) == before
        assert emu.get_message(table.id).snapshot() == emu.get_message(table.id).snapshot()
    assert errors.records == []


async def test_a_lobby_value_with_a_non_ascii_digit_is_refused(tmp_path: Path) -> None:
    """Issue: the lobby value turn_timeout:² raised from int('²')."""
    async with world(tmp_path, players=2) as w, w.bot_running() as bot:
        lobby = await (
            await w.emu.slash(w.users[0], w.channel, "game new", {"game": "monster-cafe"})
        ).final()
        (option_id, _) = lobby.selects()[0]
        before = await state_snapshot(bot)
        for value in ("turn_timeout:²", "turn_timeout:٣", "turn_timeout:99", "nope:1", ""):
            result = await w.emu.forge_component(
                w.users[0], lobby, option_id, component_type=3, values=[value]
            )
            assert "isn't offered" in answer(result), value
        assert await state_snapshot(bot) == before


# -- the fuzzer -------------------------------------------------------------------------------------


@dataclass
class Live:
    """One emulator and bot, running in their own event loop in a thread for hypothesis."""

    loop: asyncio.AbstractEventLoop
    w: World
    bot: CafeBot
    table: Message
    stranger: int
    dm: int
    errors: ErrorLog

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    started: concurrent.futures.Future[Live] = concurrent.futures.Future()

    async def serve(stop: asyncio.Event) -> None:
        async with world(tmp_path_factory.mktemp("fuzz"), players=3) as w, w.bot_running() as bot:
            table = await open_game(w, "monster-cafe")
            stranger = w.emu.add_user("mallory", guild=w.guild)
            started.set_result(Live(loop, w, bot, table, stranger, w.emu.open_dm(stranger), errors))
            await stop.wait()

    async def new_event() -> asyncio.Event:
        return asyncio.Event()

    stop = asyncio.run_coroutine_threadsafe(new_event(), loop).result()
    task = asyncio.run_coroutine_threadsafe(serve(stop), loop)
    try:
        yield started.result(timeout=60)
    finally:
        loop.call_soon_threadsafe(stop.set)
        task.result(timeout=60)  # the world's assert_clean runs here
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        logging.getLogger().removeHandler(errors)


TEXT = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="x", min_size=1000, max_size=7000),
    st.sampled_from(["cafe-carnage", "monster-cafe", "no_repeats=on", "²", "-1", "🍩" * 50]),
)
VALUE = st.one_of(TEXT, st.integers(-(2**63), 2**63), st.booleans(), st.floats(allow_nan=False))
SUBCOMMANDS = ["new", "join", "leave", "start", "status", "hand", "rules", "abandon", "history"]


@st.composite
def hostile(draw: st.DrawFn) -> tuple[str, Any]:
    """One hostile interaction, as (kind, arguments)."""
    kind = draw(st.sampled_from(["slash", "component", "component", "raw"]))
    if kind == "slash":
        sub = draw(st.one_of(st.sampled_from(SUBCOMMANDS), st.text(min_size=1, max_size=12)))
        names = st.one_of(st.sampled_from(["game", "timeout", "setting"]), st.text(max_size=10))
        options = draw(st.dictionaries(names, VALUE, max_size=3))
        return kind, (f"game {sub}", options)
    if kind == "component":
        prefix = draw(
            st.sampled_from(["cb:g:1:t:", "cb:g:1:0:", "cb:l:1:", "cb:o:1:", "cb:a:1:", ""])
        )
        tail = draw(
            st.one_of(st.text(max_size=40), st.sampled_from(["join", "start", "hand", "yes", "0"]))
        )
        component_type = draw(st.sampled_from([2, 3, 5, 99]))
        values = draw(st.lists(TEXT, max_size=3))
        return kind, ((prefix + tail)[:100], component_type, values)
    data = draw(st.dictionaries(st.text(max_size=8), VALUE, max_size=4))
    return kind, data


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    case=hostile(),
    who=st.sampled_from(["stranger", "player"]),
    where=st.sampled_from(["channel", "dm"]),
)
def test_fuzzed_interactions_are_answered_and_change_nothing(
    live: Live, case: tuple[str, Any], who: str, where: str
) -> None:
    w, bot = live.w, live.bot
    # users[1] is seated but not the host: nothing a fuzzed input carries can be a real move (a
    # move's custom_id holds a digest of it) nor close or start the game.
    user = live.stranger if who == "stranger" else w.users[1]
    channel = w.channel if where == "channel" else live.dm
    before = live.run(state_snapshot(bot))
    kind, args = case

    async def send() -> InteractionResult:
        if kind == "slash":
            command, options = args
            return await w.emu.forge_slash(user, channel, command, options)
        if kind == "component":
            custom_id, component_type, values = args
            return await w.emu.forge_component(
                user,
                live.table,
                custom_id,
                component_type=component_type,
                values=values if component_type != 2 else None,
                skip_checks=True,
            )
        return await w.emu.forge_interaction(user, channel, 2, args)

    result = live.run(send())
    assert result.record is not None
    live.run(bot.tables.idle())
    assert live.run(state_snapshot(bot)) == before, (case, who, where)
    assert live.errors.records == [], [r.getMessage() for r in live.errors.records]
    assert not [v for v in w.emu.violations if v.kind in ("unacknowledged", "late_ack")]
