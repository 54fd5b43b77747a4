"""The composition root: builds the core and the Discord adapter and wires them together.

Only ``bot.__main__`` (and tests) import this module. Everything below it gets what it needs as
constructor arguments; nothing reaches through the bot object to its siblings.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import discord
import yarl
from discord.ext import commands
from discord.webhook.async_ import async_context

from bot.adapter import rest_session
from bot.adapter.callbacks import CallbackAdapter
from bot.adapter.clicked import TAKEN, ClickInteraction
from bot.adapter.clicked import install as install_clicks
from bot.adapter.closed_dms import ClosedDms
from bot.adapter.commands import GameCommands
from bot.adapter.components import Controls
from bot.adapter.fast_http import FastHttp, Observer
from bot.adapter.gateway_reads import install as install_gateway_reads
from bot.adapter.items import Handlers, Routes, install_fast_dispatch, make_items, on_message
from bot.adapter.messenger import Messenger
from bot.adapter.pacing import Pacer
from bot.adapter.pictures import Pictures
from bot.adapter.refusals import RefusalLimit
from bot.adapter.replay_controls import ReplayControls
from bot.adapter.replies import GameTree, Replies
from bot.adapter.screens import Screens
from bot.adapter.tables import TableSync
from bot.core.collector import MIDDLE_EVERY, YOUNG_DUE, OldGenerationSweeps, QuietYoungPasses
from bot.core.config import Settings
from bot.core.errors import ConfigError, StorageFull
from bot.core.presentation import Presentation
from bot.core.robots import Robots
from bot.core.scheduler import Scheduler
from bot.core.sessions import SessionService
from bot.core.store import StorageUnusable, Store, open_store
from bot.core.tasks import cancel_and_wait

# The operator's metrics (prometheus_client, aiohttp's web server) are imported only by a bot
# that serves them (metrics_port set): every other start-up is spared their import.
if TYPE_CHECKING:
    from bot.adapter.monitoring import Monitor
    from bot.core.metrics import Metrics

log = logging.getLogger("cafebot")

# A stop (SIGTERM from Docker, which kills 10 s later; SIGINT) finishes the clicks being handled,
# sends the outbox and closes the store within this; whatever is left then (a post Discord keeps
# refusing) is in the outbox for the next start.
STOP_WITHIN = 4.0
STOPPING = "⏳ I'm restarting — nothing was changed. Please try again in a moment."
NOT_ON_MESSAGE = "⚠️ That control isn't on this message any more."
CLICK_TASK = "cafebot-click"  # the name of a click's task
SOCKET_EVENT, ON_SOCKET_EVENT = "socket_event_type", "on_socket_event_type"


class CafeTree(GameTree):
    """The command tree, counting the commands being handled (a stop lets them finish) and
    answering those that arrive during a stop."""

    async def _call(self, interaction: discord.Interaction[Any]) -> None:
        bot = self.client
        assert isinstance(bot, CafeBot)
        async with bot.handling(interaction) as go:
            if go:
                await super()._call(interaction)


class CafeBot(commands.Bot):
    store: Store
    service: SessionService
    tables: TableSync
    scheduler: Scheduler
    robots: Robots
    _routes: Routes  # which of our controls a click is on (set up with the items)

    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] | None = None,
    ) -> None:
        # Only what the bot uses: guilds (channels, threads, permissions). No message events: it
        # reads no messages, and parsing the echo of its own posts cost CPU for nothing.
        intents = discord.Intents.none()
        intents.guilds = True
        # The operator's metrics (off unless metrics_port is set): a registry of this bot's own.
        self.metrics: Metrics | None = None
        if settings.metrics_port is not None:
            from bot.core.metrics import Metrics

            self.metrics = Metrics()
        self.monitor: Monitor | None = None
        self.fast_http: FastHttp | None = None  # the interaction callbacks' connections
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=CafeTree,
            # discord.py's one HTTP session sends every REST request: traced once, for metrics.
            **self._trace_options(),
            **getattr(self, "_shard_options", {}),
        )
        self.settings = settings
        self.clock = clock  # wall time; tests pass a clock they can move forward
        self.new_seed = new_seed  # where game seeds come from (random unless given)
        self._connection.guild_ready_timeout = settings.guild_ready_timeout
        self.synced_commands = 0
        # run_bot: freeze what start-up built, and sweep the old generation (see GC_THRESHOLDS)
        self.tune_gc = False
        self.sweeps: OldGenerationSweeps | None = None
        self.young_passes: QuietYoungPasses | None = None
        self._sweeping: asyncio.Task[None] | None = None
        self.replies: Replies | None = None
        self.screens: Screens | None = None
        # A user's stale clicks: a few redrawn views, then the text alone (tests set its clock).
        self.refusals = RefusalLimit()
        # Discord's global limit, kept before Discord must refuse (None: not paced): every
        # request of discord.py's HTTP client, log-in included, waits for the budget.
        self.pacer: Pacer | None = None
        if settings.rest_budget:
            self.pacer = Pacer(settings.rest_budget, window=settings.rest_budget_window)
            self.pacer.install(self.http)
        self.clicks = 0  # component interactions received (for benchmarks)
        self.stopping = False  # a stop began: new interactions are answered STOPPING
        self._handling: set[asyncio.Task[Any]] = set()  # interactions being handled
        self._stop: asyncio.Task[None] | None = None

    def _trace_options(self) -> dict[str, Any]:
        if self.metrics is None:
            return {}
        from bot.adapter.monitoring import http_trace

        return {"http_trace": http_trace(self.metrics)}

    def _observe_answer(self) -> Observer | None:
        """The callbacks' own connections count their answers as the trace counts the rest."""
        metrics = self.metrics
        if metrics is None:
            return None
        from bot.adapter.monitoring import count_answer

        return partial(count_answer, metrics)

    async def setup_hook(self) -> None:
        settings = self.settings
        # Interaction callbacks retried only inside Discord's window (bot/adapter/callbacks.py);
        # set here, in the task that connects: every event's task inherits it.
        self.fast_http = FastHttp(self.http.user_agent, observe=self._observe_answer())
        # discord.py's plain REST requests on the same kept-alive connections (logged in: its
        # session exists); its buckets swept when they doubled, not for every new one.
        rest_session.install(self.http, self.fast_http)
        rest_session.sweep_buckets_when_doubled(self.http)
        async_context.set(
            CallbackAdapter(lambda: self.application_id, clock=self.clock, fast=self.fast_http)
        )
        if settings.stats_path is not None:
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, self.write_stats)
        self.store = await open_store(
            settings.database,
            synchronous=settings.sqlite_synchronous,
            owner=True,
            pool_size=settings.database_pool_size,
        )
        service = SessionService(
            self.store,
            now=lambda: self.clock(),
            undo_wait=settings.undo_wait,
            post_coalesce=settings.post_coalesce_interval,
            ping_after_idle=settings.ping_after_idle,
            cache_size=settings.session_cache_size,
        )
        if self.new_seed is not None:
            service.new_seed = self.new_seed
        self.service = service

        # The components' handlers are bound late: the item classes are needed to draw the
        # screens that the handlers use (closures read `controls` when a click arrives).
        controls: Controls | None = None

        def route(name: str) -> Any:
            async def handle(interaction: Any, match: re.Match[str], values: list[str]) -> None:
                # self.handling written out: the click's own layers are a share of its CPU.
                assert controls is not None
                started = time.perf_counter()
                try:
                    if self.stopping:
                        await self._answer_stopping(interaction)
                        return
                    task = asyncio.current_task()
                    assert task is not None
                    self._handling.add(task)
                    try:
                        await getattr(controls, name)(interaction, match, values)
                    finally:
                        self._handled(task)
                finally:
                    if self.metrics is not None:
                        self._clicked(name, match, started)

            return handle

        replays: ReplayControls | None = None

        def replayed(name: str) -> Any:
            async def handle(interaction: Any, match: re.Match[str], values: list[str]) -> None:
                assert replays is not None
                started = time.perf_counter()
                try:
                    async with self.handling(interaction) as go:
                        if go:
                            await getattr(replays, name)(interaction, match, values)
                finally:
                    self._clicked(name, match, started)

            return handle

        async def on_error(interaction: discord.Interaction[Any], exc: BaseException) -> None:
            assert replies is not None
            await replies.answer_error(interaction, exc)

        items = make_items(
            Handlers(
                game_control=route("game_control"),
                lobby_button=route("lobby_button"),
                option_select=route("option_select"),
                abandon_button=route("abandon_button"),
                help_page=route("help_page"),
                rematch_button=route("rematch_button"),
                history_page=route("history_page"),
                record_select=route("record_select"),
                undo_button=route("undo_button"),
                on_error=on_error,
                replay_button=replayed("replay_button"),
                replay_round=replayed("replay_round"),
                replay_pick=replayed("replay_pick"),
            )
        )
        messenger = Messenger(self)
        pictures = Pictures(service)
        screens = Screens(service, items)
        self.screens = screens
        closed_dms = ClosedDms(service)
        replies = Replies(service, screens, messenger, pictures, closed_dms)
        self.replies = replies
        self.tables = TableSync(
            service,
            screens,
            messenger,
            pictures,
            settings.table_edit_interval,
            settings.dm_edit_interval,
            presentation=Presentation(self.store if self.store.shared else None),
            closed_dms=closed_dms,
            records_shown=not self.store.shared,
            pacer=self.pacer,
        )
        controls = Controls(service, screens, replies, self.tables, self.refusals)
        replays = ReplayControls(service, replies, items)
        self.scheduler = Scheduler(self.store, service, clock=self.clock)
        self.robots = Robots(
            service,
            delay=settings.bot_player_delay,
            think_seconds=settings.bot_think_seconds,
            think_workers=settings.bot_think_workers,
        )

        install_fast_dispatch()
        install_gateway_reads()
        self._routes = Routes(items)
        install_clicks(self, self._take_click)
        self.add_dynamic_items(*items.all())
        self.tree.add_command(GameCommands(service, screens, self.tables, replies))
        self.tree.on_error = replies.answer_error  # type: ignore[method-assign]
        await self._start_monitor()
        await self._sync_commands()
        await self.scheduler.start()
        self.tables.start()
        await self.robots.start()  # bot seats awaited before a restart move again
        # Anything committed but not yet shown (a crash between commit and post) is shown now.
        await service.enqueue_unposted_announcements()
        # What is shown already is not touched (nor loaded): a big server's idle games.
        behind = await self.tables.catch_up(
            await service.open_session_heads(), self.scheduler.refunded
        )
        log.info("%d open session(s) to bring up to date", behind)
        if self.tune_gc:
            gc.collect()
            gc.freeze()  # what start-up built lives as long as the bot: out of every collection
            self.sweeps = OldGenerationSweeps(busy=self._busy)
            self.young_passes = QuietYoungPasses(
                busy=self._busy, call_soon=asyncio.get_running_loop().call_soon
            )
            self._sweeping = asyncio.create_task(self.sweeps.run(), name="cafebot-gc")

    async def _start_monitor(self) -> None:
        """Serve /metrics and /healthz when metrics_port is set."""
        metrics, settings = self.metrics, self.settings
        if metrics is None or settings.metrics_port is None:
            return
        from bot.adapter.monitoring import Monitor, gateway_up

        service = self.service
        service.moved = metrics.move
        metrics.watch_sync_queue(self.tables.queue_depth)
        if self.pacer is not None:
            pacer = self.pacer
            metrics.watch_behind_budget(lambda: pacer.behind)

        async def refresh() -> None:
            metrics.stored(*await service.backlog())

        self.monitor = Monitor(
            metrics,
            host=settings.metrics_host,
            port=settings.metrics_port,
            gateway=lambda: gateway_up(self),
            store_check=service.reachable,
            refresh=refresh,
        )
        await self.monitor.start()

    def _clicked(self, control: str, match: re.Match[str], started: float) -> None:
        if self.metrics is not None:
            from bot.adapter.monitoring import game_of_click

            game = game_of_click(match, self.service.game_of)
            self.metrics.click(game, control, time.perf_counter() - started)

    async def _sync_commands(self) -> None:
        settings = self.settings
        if not settings.syncs_commands:  # once for the whole bot, by the process with shard 0
            log.info("commands are synced by the process running shard 0")
            return
        if settings.dev_guild_id:
            guild = discord.Object(id=settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        self.synced_commands = len(synced)
        log.info(
            "synced %d command(s)%s",
            len(synced),
            " to the development guild" if settings.dev_guild_id else " globally",
        )

    @contextlib.asynccontextmanager
    async def handling(self, interaction: discord.Interaction[Any]) -> AsyncIterator[bool]:
        """Around the handling of one interaction (in its own task): yields False when a stop
        has begun (the interaction is then answered STOPPING), else True, and a stop waits
        for the block to end."""
        if self.stopping:
            await self._answer_stopping(interaction)
            yield False
            return
        task = asyncio.current_task()
        assert task is not None
        self._handling.add(task)
        try:
            yield True
        finally:
            self._handled(task)

    def _busy(self) -> bool:
        """Is an interaction being handled?"""
        return bool(self._handling)

    def _handled(self, task: asyncio.Task[Any]) -> None:
        """``task``'s interaction is handled: the last one ending asks for a due young pass."""
        self._handling.discard(task)
        if not self._handling and self.young_passes is not None:
            self.young_passes.quiet()

    async def _answer_stopping(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])
        elif self.replies is not None:
            with contextlib.suppress(discord.HTTPException):
                await self.replies.reply(interaction, STOPPING)

    def _take_click(self, interaction: ClickInteraction, kind: int, custom_id: str) -> bool:
        """A click on one of our controls, handled in one task: its item's handler, or the
        answer that the control is not on the clicked message (none of discord.py's rounds:
        its registry's every template tried, a task per dynamic item, another for the
        ``interaction`` event)."""
        found = self._routes.find(custom_id)
        if found is None or self.replies is None:
            return False
        self.clicks += 1
        item, match = found
        try:
            present = on_message(interaction, custom_id, kind)
        except Exception as exc:
            # A payload Discord never sends: answered as a control that is not there (this
            # runs in the gateway's reader, which must not fail).
            log.warning("unreadable clicked message: %r", exc)
            present = False
        work = item.dispatch(interaction, match) if present else self._not_on_message(interaction)
        asyncio.get_running_loop().create_task(work, name=CLICK_TASK)
        return True

    async def _not_on_message(self, interaction: discord.Interaction[Any]) -> None:
        """A custom_id that is not on the clicked message (or is there as another kind of
        component: a forged or ancient client): answered, so nobody sees "This interaction
        failed"."""
        async with self.handling(interaction) as go:
            if go:
                assert self.replies is not None
                await self.replies.reply(interaction, NOT_ON_MESSAGE)

    async def close(self) -> None:
        """Stop: finish the interactions being handled (new ones are answered that the bot is
        restarting), stop the bot players and the timers, send the outbox, disconnect, and
        close the store, whatever happened before (its threads would keep the process up)."""
        if self._stop is None:
            self._stop = asyncio.create_task(self._close(), name="cafebot-stop")
        await asyncio.shield(self._stop)

    async def _close(self) -> None:
        self.stopping = True
        try:
            try:
                await asyncio.wait_for(self._wind_down(), STOP_WITHIN)
            except TimeoutError:
                log.warning(
                    "stopping took over %.0f s: stopped anyway (unsent posts stay in the "
                    "outbox for the next start)",
                    STOP_WITHIN,
                )
            finally:
                self.write_stats()
                await super().close()
        finally:
            try:
                if self.monitor is not None:
                    await self.monitor.stop()
            finally:
                if self.fast_http is not None:
                    await self.fast_http.close()
                if hasattr(self, "store"):
                    await self.store.close()

    async def _wind_down(self) -> None:
        await cancel_and_wait(self._sweeping)
        if self._handling:
            await asyncio.wait(set(self._handling))
        if hasattr(self, "robots"):
            await self.robots.stop()
        if hasattr(self, "scheduler"):
            await self.scheduler.stop()
        if hasattr(self, "tables"):
            await self.tables.flush()
            await self.tables.stop()

    def write_stats(self) -> None:
        """For benchmarks: the counters so far, to ``stats_path`` (at exit, and on SIGUSR1 so a
        bench can count from the start of its measured phase)."""
        if self.settings.stats_path is not None and self.screens is not None:
            stats: dict[str, Any] = {
                "renders": dict(self.screens.renders),
                "clicks": self.clicks,
                "simulations": self.robots.simulations if hasattr(self, "robots") else 0,
                "think_cpu": self.robots.think_cpu if hasattr(self, "robots") else 0.0,
                "unthought": self.robots.unthought if hasattr(self, "robots") else 0,
            }
            if self.pacer is not None:  # requests let through, and of them those that waited
                stats["paced"] = {"sent": self.pacer.sent, "waited": self.pacer.waited}
            path = self.settings.stats_path
            partial = path.with_name(path.name + ".partial")
            partial.write_text(json.dumps(stats), encoding="utf-8")
            partial.replace(path)  # whole or absent: a bench may be waiting for it

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        # discord.py dispatches every gateway event first as "socket_event_type", for
        # listeners alone (the bot has none): looking for them cost a failed attribute
        # lookup and its exception an event.
        if (
            event_name == SOCKET_EVENT
            and not self._listeners.get(SOCKET_EVENT)
            and not self.extra_events.get(ON_SOCKET_EVENT)
            and ON_SOCKET_EVENT not in self.__dict__  # a handler set with @bot.event
        ):
            return
        super().dispatch(event_name, *args, **kwargs)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Answer component clicks that no DynamicItem will take (a custom_id that is not on
        the message, or is there as another kind of component: a forged or ancient client), so
        nobody sees "This interaction failed"."""
        if interaction.type is not discord.InteractionType.component or self.replies is None:
            return
        if interaction.extras.get(TAKEN):  # handled by _take_click
            return
        self.clicks += 1
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        kind = data.get("component_type")
        present = on_message(interaction, custom_id, kind)
        if not present:
            await self._not_on_message(interaction)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A game's channel deleted: its posts are dropped at once (nothing waits for them)."""
        tables: TableSync | None = getattr(self, "tables", None)  # None: before setup_hook
        if tables is not None:
            tables.channel_gone(channel.id, "deleted")

    async def on_ready(self) -> None:
        log.info("ready as %s in %d server(s)", self.user, len(self.guilds))


class ShardedCafeBot(CafeBot, commands.AutoShardedBot):
    """Cluster mode: the same bot on the shards ``settings.shard_ids`` of ``shard_count``
    (Discord sends each guild's events to one shard, DMs to shard 0). Several such processes
    share one PostgreSQL database."""

    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] | None = None,
    ) -> None:
        self._shard_options = {"shard_count": settings.shard_count, "shard_ids": settings.shard_ids}
        super().__init__(settings, clock, new_seed)


def make_bot(
    settings: Settings,
    clock: Callable[[], float] = time.time,
    new_seed: Callable[[], int] | None = None,
) -> CafeBot:
    """The bot the settings ask for: sharded in cluster mode, else one connection."""
    kind = ShardedCafeBot if settings.sharded else CafeBot
    return kind(settings, clock, new_seed)


# Python's cycle collector at its defaults (700, 10, 10) ran after every ~700 allocations
# (a click makes thousands) and walked the whole heap every few seconds: a fifth of a busy
# bot's CPU, and pauses over 100 ms. The bot's own process freezes what start-up built,
# collects the young rarely and leaves full passes to OldGenerationSweeps (bot/core/
# collector.py): the third threshold is out of reach (the sweeps reset its count every
# period). Tests run many bots in one process, so only run_bot does this.
# A young pass walks the sessions' live state made again since the last one (the count that
# starts it is allocations minus deallocations, and freeing a session's old state counts down
# while its replacement stays young): at (50,000, 20) 68,000-83,000 objects, 16-33 ms of CPU,
# a few per 8,000 clicks. Smaller young generations make shorter passes but cost more in all
# (every pass walks what the clicks in flight hold): (5,000, 2) cut the longest pause to
# ~11 ms for ~3-5 % more CPU a click, and on the quiet machine it left the open loop's p99 as
# it was (80 %: 46.6-48.5 ms against 47.8-55.4, then 48.5-52.0 against 47.5-69.3 for (20,000,
# 3)). At the higher rates of a faster bot, one such pass in a run's window sets the open
# loop's p99 at 80 % (50-60 clicks in flight). So the bot runs its young passes itself at
# YOUNG_DUE, when nothing is being handled (QuietYoungPasses); the collector's own first
# threshold, four times that, is a backstop for a bot never quiet. README: "The collector's
# pauses", "The open loop's tail".
GC_THRESHOLDS = (4 * YOUNG_DUE, MIDDLE_EVERY, 1_000_000)
# SQLite's thread takes the GIL back after each COMMIT (after each statement, when a group's
# statements ran there: the figures below); at Python's default switch interval
# (5 ms) it waited up to 5 ms each time the loop was busy with clicks: a group commit of thirty
# moves took 10-14 ms at the median and up to 190 ms, instead of 2-7 and 40 (bench/convoy.py),
# and a longer commit is a bigger next group, a longer burst of answers.
SWITCH_INTERVAL = 0.0005


def tune_process() -> None:
    """What the bot's own process sets (tests run many bots in one process: not for them)."""
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(SWITCH_INTERVAL)


def run_bot(settings: Settings, new_seed: Callable[[], int] | None = None) -> int:
    import discord.gateway
    import discord.http

    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if settings.discord_api_base:
        discord.http.Route.BASE = settings.discord_api_base
    if settings.discord_gateway:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway)
    token = settings.discord_token.get_secret_value() if settings.discord_token else ""
    tune_process()
    bot = make_bot(settings, new_seed=new_seed)  # seeds given: a benchmark's repeated runs
    bot.tune_gc = True
    try:
        asyncio.run(serve(bot, token))
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN (it is not shown here).")
        return 2
    except StorageUnusable as exc:
        log.error("%s", exc)
        return 2
    except StorageFull as exc:  # at start-up: nothing served yet
        log.error("the database's disk is full (%s): free some space, then start again", exc)
        return 2
    except ConfigError as exc:  # a setting found unusable at start-up (metrics_port taken)
        log.error("%s", exc)
        return 2
    return 0


async def serve(bot: CafeBot, token: str) -> None:
    """Run the bot until it stops by itself or SIGTERM / SIGINT asks it to (then it stops
    cleanly: see CafeBot.close)."""
    loop = asyncio.get_running_loop()
    asked = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, asked.set)
    async with bot:
        running = asyncio.create_task(bot.start(token), name="cafebot")
        waiting = asyncio.create_task(asked.wait())
        try:
            await asyncio.wait({running, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if waiting.done():
                log.info("stopping: finishing the moves in flight and sending what is left")
                if not bot.is_ready():  # still starting: nothing in flight, stop starting
                    running.cancel()
                await bot.close()
            else:
                waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running  # its error, if any (a refused token, an unusable database)
        finally:
            if hasattr(bot, "store"):  # opened while the stop began (a signal at start-up)
                await bot.store.close()
