"""The playground's web server: one page (plain HTML, CSS and JS) that looks and works like
Discord where it matters, live over server-sent events, acting as a local user through the
emulator — so every click goes through the real bot exactly as it would in Discord.

Routes: ``/`` the page; ``/static/*``; ``GET /api/users``; ``GET /api/events?user=ID`` the live
stream of what that user sees; ``POST /api/slash|autocomplete|click|select|say|thread``; ``GET /att/USER/MESSAGE/NAME``
a picture of a message that user can see. Whatever the emulator (strict like Discord) refuses
is answered 400 with its reason, and every violation the bot commits is streamed to every page.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.playground.snapshot import (
    command_path,
    digest,
    dm_channel,
    message_json,
    visible_messages,
    world_json,
)
from bot.playground.world import World
from emulator import EmulatorError, InteractionResult, Message

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
COALESCE = 0.03  # seconds: a burst of changes (a move and its edits) is sent as one update
KEEPALIVE = 15.0


class PlaygroundServer:
    def __init__(self, world: World) -> None:
        self.world = world
        self.app = web.Application()
        self.app.router.add_get("/", self._index)
        self.app.router.add_static("/static/", STATIC)
        self.app.router.add_get("/api/users", self._users)
        self.app.router.add_get("/api/events", self._events)
        self.app.router.add_post("/api/say", self._say)
        self.app.router.add_post("/api/slash", self._slash)
        self.app.router.add_post("/api/autocomplete", self._autocomplete)
        self.app.router.add_post("/api/click", self._click)
        self.app.router.add_post("/api/select", self._select)
        self.app.router.add_post("/api/thread", self._thread)
        self.app.router.add_get("/att/{user}/{message}/{name}", self._attachment)
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._cache: dict[tuple[int, int], tuple[Any, dict[str, Any], str]] = {}
        self._streams: set[asyncio.Task[Any]] = set()

    async def start(self, host: str, port: int) -> None:
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port

    async def stop(self) -> None:
        # Live streams wait for the next change: end them, or the cleanup waits for them.
        for stream in list(self._streams):
            stream.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- the page --------------------------------------------------------------------------------
    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    def _user(self, value: Any) -> int:
        try:
            user = int(value)
        except (TypeError, ValueError):
            raise _bad("Pick a local user first.") from None
        if user not in self.world.users:
            raise _bad(f"There is no local user {value!r}.")
        return user

    async def _users(self, request: web.Request) -> web.Response:
        return web.json_response(
            [{"id": str(uid), "name": name} for uid, name in self.world.users.items()]
        )

    # -- live updates ----------------------------------------------------------------------------
    async def _events(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request.query.get("user"))
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        task = asyncio.current_task()
        if task is not None:
            self._streams.add(task)
        changed = asyncio.Event()
        unsubscribe = self.world.emu.on_change(changed.set)
        sent: dict[str, str] = {}
        world_digest = ""
        problems = 0
        try:
            while True:
                changed.clear()  # before reading: a change from now on wakes the next round
                world = world_json(self.world)
                if digest(world) != world_digest:
                    world_digest = digest(world)
                    world["me"] = {"id": str(user), "dm": dm_channel(self.world, user)}
                    await _send(response, "world", world)
                update, gone = self._changes(user, sent)
                if update or gone:
                    await _send(response, "messages", {"messages": update, "gone": gone})
                violations = self.world.emu.violations
                if len(violations) > problems:
                    await _send(
                        response, "problems", {"problems": [str(v) for v in violations[problems:]]}
                    )
                    problems = len(violations)
                try:
                    await asyncio.wait_for(changed.wait(), KEEPALIVE)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                await asyncio.sleep(COALESCE)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            unsubscribe()
            if task is not None:
                self._streams.discard(task)
        return response

    def _changes(self, user: int, sent: dict[str, str]) -> tuple[list[Any], list[str]]:
        """Messages new or changed since ``sent`` (id → digest, updated), and ids now gone."""
        update = []
        now: set[str] = set()
        for message in visible_messages(self.world, user):
            shown, d = self._shown(message, user)
            mid = shown["id"]
            now.add(mid)
            if sent.get(mid) != d:
                sent[mid] = d
                update.append(shown)
        gone = [mid for mid in sent if mid not in now]
        for mid in gone:
            del sent[mid]
        return update, gone

    def _shown(self, message: Message, user: int) -> tuple[dict[str, Any], str]:
        """A message's JSON and digest, computed again only when it was edited or deleted."""
        version = (len(message.history), message.deleted, message.flags)
        cached = self._cache.get((user, message.id))
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        shown = message_json(message, user, self._command(message))
        d = digest(shown)
        self._cache[(user, message.id)] = (version, shown, d)
        return shown, d

    def _command(self, message: Message) -> str | None:
        """The slash command (with its subcommand) a message answers, if it answers one."""
        meta = message.interaction_metadata or {}
        if meta.get("type") != 2:
            return None
        try:
            rec = self.world.emu.interaction(int(meta["id"]))
        except (KeyError, ValueError):
            return None
        return command_path(rec.data)

    # -- acting as a local user ------------------------------------------------------------------
    async def _act(
        self, request: web.Request, act: Callable[[dict[str, Any], int], Awaitable[Any]]
    ) -> web.Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error("That request was not JSON.")
        if not isinstance(body, dict):
            return _error("That request was not a JSON object.")
        try:
            user = self._user(body.get("user"))
            result = await act(body, user)
        except web.HTTPException as exc:
            return _error(exc.text or "Bad request.")
        except EmulatorError as exc:
            # What Discord itself would refuse, or a bot that did not answer in time.
            return _error(f"Discord would refuse this: {exc}")
        except (KeyError, TypeError, ValueError) as exc:
            return _error(f"That request is missing something ({exc}).")
        return web.json_response(result if result is not None else {"ok": True})

    async def _slash(self, request: web.Request) -> web.Response:
        async def act(body: dict[str, Any], user: int) -> Any:
            options = body.get("options") or {}
            result = await self.world.emu.slash(
                user, int(body["channel"]), str(body["command"]), dict(options)
            )
            return _answered(result)

        return await self._act(request, act)

    async def _autocomplete(self, request: web.Request) -> web.Response:
        async def act(body: dict[str, Any], user: int) -> Any:
            choices = await self.world.emu.autocomplete(
                user,
                int(body["channel"]),
                str(body["command"]),
                dict(body.get("options") or {}),
                focused=str(body["focused"]),
            )
            return {"choices": choices}

        return await self._act(request, act)

    async def _click(self, request: web.Request) -> web.Response:
        async def act(body: dict[str, Any], user: int) -> Any:
            result = await self.world.emu.click(user, int(body["message"]), str(body["custom_id"]))
            return _answered(result)

        return await self._act(request, act)

    async def _select(self, request: web.Request) -> web.Response:
        async def act(body: dict[str, Any], user: int) -> Any:
            values = [str(v) for v in body.get("values") or []]
            result = await self.world.emu.select(
                user, int(body["message"]), str(body["custom_id"]), values
            )
            return _answered(result)

        return await self._act(request, act)

    async def _say(self, request: web.Request) -> web.Response:
        async def act(body: dict[str, Any], user: int) -> Any:
            content = str(body.get("content") or "")
            if not content.strip() or len(content) > 2000:
                raise _bad("A message has 1 to 2000 characters.")
            message = self.world.emu.post_user_message(user, int(body["channel"]), content)
            return {"id": str(message.id)}

        return await self._act(request, act)

    async def _thread(self, request: web.Request) -> web.Response:
        async def act(body: dict[str, Any], user: int) -> Any:
            name = str(body.get("name") or "").strip()[:100]
            if not name:
                raise _bad("A thread needs a name.")
            thread = self.world.emu.add_thread(
                self.world.guild, parent=int(body["channel"]), name=name, owner=user
            )
            return {"id": str(thread)}

        return await self._act(request, act)

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request.match_info["user"])
        try:
            mid = int(request.match_info["message"])
        except ValueError:
            raise web.HTTPNotFound() from None
        name = request.match_info["name"]
        message = next((m for m in visible_messages(self.world, user) if m.id == mid), None)
        if message is None:
            raise web.HTTPNotFound()
        # The newest version holding that file: a page a moment behind an edit (a picture
        # replaced or removed) still gets the picture it shows, as Discord's CDN would give it.
        for version in reversed(message.versions()):
            files = version.get("files") or {}
            if name in files:
                kind = next(
                    (
                        str(a.get("content_type"))
                        for a in version.get("attachments") or []
                        if a.get("filename") == name
                    ),
                    "application/octet-stream",
                )
                return web.Response(body=files[name], content_type=kind or None)
        raise web.HTTPNotFound()


def _answered(result: InteractionResult) -> dict[str, Any]:
    return {"ok": True, "type": result.type, "ephemeral": result.ephemeral}


def _bad(text: str) -> web.HTTPBadRequest:
    return web.HTTPBadRequest(text=text)


def _error(text: str) -> web.Response:
    return web.json_response({"error": text}, status=400)


async def _send(response: web.StreamResponse, event: str, data: Any) -> None:
    payload = json.dumps(data, separators=(",", ":"))
    await response.write(f"event: {event}\ndata: {payload}\n\n".encode())


@contextlib.asynccontextmanager
async def serving(world: World, host: str, port: int) -> Any:
    server = PlaygroundServer(world)
    await server.start(host, port)
    try:
        yield server
    finally:
        await server.stop()
