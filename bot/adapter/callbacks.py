"""Answering an interaction when Discord fails the answer (a 5xx, a dropped connection).

Discord takes an interaction's callback for 3 s after the interaction; its webhook (follow-ups,
edits of the original answer) stays valid for 15 minutes. discord.py retries a failed callback
after 1 s, then 3 s more: past the window, where it can only fail (10062 Unknown interaction),
and when the failed try had reached Discord after all, the retry is refused (40060 already
acknowledged) and the click is answered twice or not at all.

:class:`CallbackAdapter` (installed as discord.py's webhook adapter) sends a callback again
only inside the window, a moment apart. When the window closes on a callback that still
failed, or a retry finds it was taken after all, what it carried goes through the webhook:
the original answer is edited to it (or read, for a deferral), which works when Discord
processed the callback; when it did not, nothing can answer the click any more, and the
interaction is marked lost, so nothing else is tried on it (each try is one more invalid
request).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import aiohttp
import discord
import orjson
from discord.http import Route, json_or_text
from discord.webhook.async_ import AsyncWebhookAdapter

from bot.adapter.clicked import created
from bot.adapter.fast_http import FastHttp

log = logging.getLogger(__name__)

WINDOW = 2.5  # seconds after the interaction a callback is still sent (Discord's: 3 s)
PAUSES = (0.1, 0.25, 0.5)  # between two tries of a callback (then the last, again)
ALREADY_ACKNOWLEDGED = 40060
UNKNOWN_INTERACTION = 10062  # an answer past the interaction's window, or to none
EPHEMERAL = 1 << 6
COMPONENTS_V2 = 1 << 15
LOST_KEPT = 1000  # interactions remembered as lost
# A token written into a URL as it is (discord.py's Route quotes every other character).
_PLAIN_TOKEN = re.compile(r"[A-Za-z0-9_.~-]+")


class CallbackLost(discord.HTTPException):
    """The interaction can no longer be answered: its callback failed until Discord's window
    closed, and Discord had not taken it."""

    def __init__(self, interaction_id: int, cause: BaseException | None) -> None:
        Exception.__init__(self, f"interaction {interaction_id} could not be answered: {cause}")
        self.status = 404
        self.code = UNKNOWN_INTERACTION
        self.text = str(cause)
        self.response = None


class _Retry(Exception):
    """A try of the callback failed in a way a later try may not."""

    def __init__(self, cause: BaseException, pause: float | None = None) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.pause = pause


class CallbackAdapter(AsyncWebhookAdapter):
    def __init__(
        self,
        application_id: Callable[[], int | None],
        clock: Callable[[], float] = time.time,
        fast: FastHttp | None = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.application_id = application_id
        self.clock = clock  # wall time; tests move it forward
        # A callback with a JSON body, not through a proxy, goes through ``fast`` (aiohttp's
        # request costs about as much CPU again as the rest of a click's answer).
        self.fast = fast
        self._lost: dict[int, None] = {}

    async def request(self, route: Route, session: aiohttp.ClientSession, **kwargs: Any) -> Any:
        if not route.path.endswith("/callback") or route.webhook_id is None:
            return await super().request(route, session, **kwargs)
        interaction_id = int(route.webhook_id)
        if interaction_id in self._lost:
            raise CallbackLost(interaction_id, None)
        try:
            return await self._once(route, session, 0, **kwargs)
        except _Retry as failed:
            return await self._retried(route, session, interaction_id, failed, **kwargs)

    async def callback(
        self,
        interaction: discord.Interaction[Any],
        payload: dict[str, Any],
    ) -> Any:
        """The interaction's callback with a JSON ``payload``, as ``request`` sends it for
        discord.py, its URL written straight (no Route, no keyword arguments passed down)
        while nothing fails."""
        http = interaction._state.http
        if self.fast is None or http.proxy is not None:
            return await self.request(
                callback_route(interaction),
                interaction._session,
                payload=payload,
                proxy=http.proxy,
                proxy_auth=http.proxy_auth,
            )
        interaction_id = interaction.id
        if interaction_id in self._lost:
            raise CallbackLost(interaction_id, None)
        token = interaction.token
        if not _PLAIN_TOKEN.fullmatch(token):
            token = quote(token, safe="")
        url = f"{Route.BASE}/interactions/{interaction_id}/{token}/callback"
        try:
            return await self._fast_once(url, payload, None)
        except _Retry as failed:
            route = callback_route(interaction)
            return await self._retried(
                route, interaction._session, interaction_id, failed, payload=payload
            )

    async def _retried(
        self,
        route: Route,
        session: aiohttp.ClientSession,
        interaction_id: int,
        failed: _Retry,
        **kwargs: Any,
    ) -> Any:
        """Try a failed callback again, a moment apart, while Discord's window is open; then
        (or when a retry finds it was taken after all) deliver it through the webhook."""
        made = created(interaction_id)
        attempt = 0
        while True:
            pause = failed.pause if failed.pause is not None else PAUSES[-1]
            if attempt < len(PAUSES) and failed.pause is None:
                pause = PAUSES[attempt]
            if self.clock() - made + pause > WINDOW:
                log.warning(
                    "interaction %s: its callback failed until Discord's window closed "
                    "(%s); answering through its webhook",
                    interaction_id,
                    failed.cause,
                )
                return await self._through_webhook(route, session, failed.cause, **kwargs)
            await asyncio.sleep(pause)
            attempt += 1
            try:
                return await self._once(route, session, attempt, **kwargs)
            except discord.HTTPException as exc:
                if exc.code == ALREADY_ACKNOWLEDGED:
                    # An earlier try reached Discord after all: show what it carried.
                    return await self._through_webhook(route, session, exc, **kwargs)
                raise
            except _Retry as again:
                failed = again

    async def _once(
        self,
        route: Route,
        session: aiohttp.ClientSession,
        attempt: int,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        proxy: str | None = None,
        proxy_auth: aiohttp.BasicAuth | None = None,
        files: Any = None,
        params: dict[str, Any] | None = None,
        **_: Any,
    ) -> Any:
        """One try, as discord.py's adapter makes it, without its retries."""
        if self.fast is not None and payload is not None and not files and proxy is None:
            return await self._fast_once(route.url, payload, params)
        headers: dict[str, str] = {}
        body: Any = None
        if payload is not None:
            headers["Content-Type"] = "application/json"
            body = discord.utils._to_json(payload)
        for file in files or []:
            file.reset(seek=attempt)
        if multipart:
            form = aiohttp.FormData(quote_fields=False)
            for field in multipart:
                form.add_field(**field)
            body = form
        try:
            async with session.request(
                route.method,
                route.url,
                data=body,
                headers=headers,
                params=params,
                proxy=proxy,
                proxy_auth=proxy_auth,
            ) as response:
                return _answered(response, response.status, await json_or_text(response))
        except (TimeoutError, aiohttp.ClientConnectionError, OSError) as exc:
            raise _Retry(exc) from exc

    async def _fast_once(
        self, url: str, payload: dict[str, Any], params: dict[str, Any] | None
    ) -> Any:
        """One try through the kept-alive connections of ``fast``: the same answers and errors
        as through aiohttp (``_once``)."""
        assert self.fast is not None
        try:
            answer = await self.fast.post_json(url, orjson.dumps(payload), params)
        except (TimeoutError, OSError) as exc:
            raise _Retry(exc) from exc
        if answer.status == 204:  # the common answer: nothing to read
            return ""
        text = answer.text()
        data: Any = text
        if answer.headers.get("content-type") == "application/json":
            data = discord.utils._from_json(text)
        return _answered(answer, answer.status, data)

    async def _through_webhook(
        self,
        route: Route,
        session: aiohttp.ClientSession,
        cause: BaseException,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        proxy: str | None = None,
        proxy_auth: aiohttp.BasicAuth | None = None,
        files: Any = None,
        **_: Any,
    ) -> dict[str, Any]:
        """Deliver the callback's content by editing the interaction's original answer (or
        read it, for a deferral); returns what the callback would have answered."""
        interaction_id = int(route.webhook_id or 0)
        application_id = self.application_id()
        callback = payload if payload is not None else _payload_of(multipart)
        kind = int(callback.get("type", 0))
        data = dict(callback.get("data") or {})
        original = Route(
            "PATCH" if kind in (4, 7) else "GET",
            "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
            webhook_id=application_id,
            webhook_token=route.webhook_token,
        )
        try:
            if application_id is None:
                raise cause
            if kind in (4, 7):
                data["flags"] = int(data.get("flags") or 0) & COMPONENTS_V2
                if multipart:
                    fields = [dict(f) for f in multipart if f.get("name") != "payload_json"]
                    edit = [{"name": "payload_json", "value": json.dumps(data)}, *fields]
                    message = await super().request(
                        original,
                        session,
                        multipart=edit,
                        files=files,
                        proxy=proxy,
                        proxy_auth=proxy_auth,
                    )
                else:
                    message = await super().request(
                        original, session, payload=data, proxy=proxy, proxy_auth=proxy_auth
                    )
            else:
                message = await super().request(
                    original, session, proxy=proxy, proxy_auth=proxy_auth
                )
        except Exception as exc:
            # Discord never took the callback (10015 Unknown Webhook): the click is lost.
            self._lose(interaction_id)
            log.warning("interaction %s could not be answered (%s): %s", interaction_id, cause, exc)
            raise CallbackLost(interaction_id, cause) from exc
        return {
            "interaction": {
                "id": str(interaction_id),
                "response_message_id": message.get("id"),
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(int(message.get("flags") or 0) & EPHEMERAL),
            },
            "resource": {"type": kind, "message": message} if kind in (4, 5, 7) else {"type": kind},
        }

    def _lose(self, interaction_id: int) -> None:
        self._lost[interaction_id] = None
        if len(self._lost) > LOST_KEPT:
            del self._lost[next(iter(self._lost))]


def callback_route(interaction: discord.Interaction[Any]) -> Route:
    """The interaction's callback, as discord.py routes it."""
    return Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )


def _payload_of(multipart: list[dict[str, Any]] | None) -> dict[str, Any]:
    for field in multipart or []:
        if field.get("name") == "payload_json":
            loaded: dict[str, Any] = json.loads(field["value"])
            return loaded
    return {}


def _answered(response: Any, status: int, data: Any) -> Any:
    """A callback's answer, through aiohttp or the kept-alive connections alike: its data when
    it succeeded, else the error discord.py raises for it (``_Retry`` for what may be tried
    again: a proxy's 429, a server's 5xx)."""
    if 200 <= status < 300:
        return data
    if status == 429 and response.headers.get("Via") and isinstance(data, dict):
        raise _Retry(discord.HTTPException(response, data), data["retry_after"])
    if status >= 500:
        raise _Retry(discord.DiscordServerError(response, data))
    if status == 403:
        raise discord.Forbidden(response, data)
    if status == 404:
        raise discord.NotFound(response, data)
    raise discord.HTTPException(response, data)
