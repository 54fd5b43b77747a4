"""Buttons and selects that survive restarts: DynamicItems whose custom_ids carry all they need.

custom_id formats (≤ 100 characters):
- ``cb:g:{session}:{seat}:{key}:{index}`` a game control; seat is ``t`` for the table message or
  the seat number of the private panel it belongs to; key names the button's move in its step
  (render.action_key), index keeps custom_ids unique; a select option's value is its move's key.
  A click is applied only if that move is still offered, in the same step, to that viewer.
- ``cb:l:{session}:{verb}`` lobby and table buttons (join, leave, start, hand, skip, help;
  bot, easybot and hardbot seat a bot player at level normal, easy, hard; unbot removes one).
- ``cb:h:{game}:{page}:{b|n}`` a page of a game's rules (back or next).
- ``cb:o:{session}:{n}`` the lobby's option selects (value: ``{option}:{index}``).
- ``cb:a:{session}:{verb}`` the abandon confirmation (yes / no).
- ``cb:r:{session}`` a finished game's Rematch button.
- ``cb:y:{page}:{b|n}`` a page of the server's /game history (newer or older).
- ``cb:x:{page}`` the history page's select of a game whose record to send (value: its id).
- ``cb:u:{session}:{seq}:{yes|no}`` agree to (or object to) the undo of move ``seq``.
- ``cb:p:{session}:{step}:{o|s|b|n|e}`` a replay's buttons: open it (a new ephemeral message) or
  go to ``step`` (first, back, next, end); ``cb:q:{session}`` its round select (value: a step);
  ``cb:v:{page}`` the history page's select of a game to replay (value: its id).

The item classes are made per bot by :func:`make_items`, bound to the handlers that answer them,
so a click reaches its handler without looking anything up on the client.
"""

from __future__ import annotations

import re
import types
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

import discord
import discord.ui.view

from bot.adapter.clicked import has_component

GAME_ID = r"cb:g:(?P<sid>\d{1,18}):(?P<seat>t|\d{1,2}):(?P<key>[0-9a-f]{10}):(?P<idx>\d{1,2})"
LOBBY_ID = (
    r"cb:l:(?P<sid>\d{1,18}):(?P<verb>join|leave|start|hand|skip|help|bot|easybot|hardbot|unbot)"
)
HELP_ID = r"cb:h:(?P<game>[a-z0-9-]{1,40}):(?P<page>\d{1,2}):(?P<way>[bn])"
OPTION_ID = r"cb:o:(?P<sid>\d{1,18}):(?P<n>\d)"
ABANDON_ID = r"cb:a:(?P<sid>\d{1,18}):(?P<verb>yes|no)"
REMATCH_ID = r"cb:r:(?P<sid>\d{1,18})"
HISTORY_ID = r"cb:y:(?P<page>\d{1,4}):(?P<way>[bn])"
RECORD_ID = r"cb:x:(?P<page>\d{1,4})"
UNDO_ID = r"cb:u:(?P<sid>\d{1,18}):(?P<seq>\d{1,9}):(?P<verb>yes|no)"
REPLAY_ID = r"cb:p:(?P<sid>\d{1,18}):(?P<step>\d{1,6}):(?P<way>[osbne])"
REPLAY_ROUND_ID = r"cb:q:(?P<sid>\d{1,18})"
REPLAY_PICK_ID = r"cb:v:(?P<page>\d{1,4})"

ButtonItem = discord.ui.Button[discord.ui.View]
SelectItem = discord.ui.Select[discord.ui.View]

# A click handler: the interaction, the custom_id's match and the selected values (if any).
Handler = Callable[[discord.Interaction[Any], "re.Match[str]", list[str]], Awaitable[None]]


@dataclass(frozen=True)
class Handlers:
    """What answers each kind of component."""

    game_control: Handler
    lobby_button: Handler
    option_select: Handler
    abandon_button: Handler
    help_page: Handler
    rematch_button: Handler
    history_page: Handler
    record_select: Handler
    undo_button: Handler
    # Turns an exception from a handler into an answer (an ephemeral error), so every click is
    # answered whatever happens.
    on_error: Callable[[discord.Interaction[Any], BaseException], Awaitable[None]]
    # A replay's buttons, its round select, and the history's select of a game to replay.
    replay_button: Handler | None = None
    replay_round: Handler | None = None
    replay_pick: Handler | None = None


@dataclass(frozen=True)
class Items:
    """The DynamicItem classes of one bot (register them all with ``add_dynamic_items``)."""

    game_button: type[discord.ui.DynamicItem[ButtonItem]]
    game_select: type[discord.ui.DynamicItem[SelectItem]]
    lobby_button: type[discord.ui.DynamicItem[ButtonItem]]
    option_select: type[discord.ui.DynamicItem[SelectItem]]
    abandon_button: type[discord.ui.DynamicItem[ButtonItem]]
    help_button: type[discord.ui.DynamicItem[ButtonItem]]
    rematch_button: type[discord.ui.DynamicItem[ButtonItem]]
    history_button: type[discord.ui.DynamicItem[ButtonItem]]
    record_select: type[discord.ui.DynamicItem[SelectItem]]
    undo_button: type[discord.ui.DynamicItem[ButtonItem]]
    replay_button: type[discord.ui.DynamicItem[ButtonItem]] | None = None
    replay_round: type[discord.ui.DynamicItem[SelectItem]] | None = None
    replay_pick: type[discord.ui.DynamicItem[SelectItem]] | None = None

    def all(self) -> tuple[type[discord.ui.DynamicItem[Any]], ...]:
        replays = (self.replay_button, self.replay_round, self.replay_pick)
        return (
            self.game_button,
            self.game_select,
            self.lobby_button,
            self.option_select,
            self.abandon_button,
            self.help_button,
            self.rematch_button,
            self.history_button,
            self.record_select,
            self.undo_button,
            *(r for r in replays if r is not None),
        )


class _Dispatching:
    """What every dynamic component does: hand the click, with its custom_id's match, to its
    handler (never raising: an exception there would leave the click unanswered)."""

    handler: Handler
    on_error: Callable[[discord.Interaction[Any], BaseException], Awaitable[None]]

    def __init__(self, item: Any) -> None:
        super().__init__(item)  # type: ignore[call-arg]  # DynamicItem.__init__

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Any:
        return cls(item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        # Reached only without install_fast_dispatch (discord.py rebuilt the message's view).
        item = cast(discord.ui.DynamicItem[Any], self)
        try:
            await type(self).dispatch(interaction, item.template.fullmatch(item.custom_id))
        finally:
            # The rebuilt view and this item point at each other: a cycle as big as the
            # message, left to the cycle collector unless broken.
            view = item.view
            if view is not None:
                view.clear_items()
            item._view = None
            item.item._view = None

    @classmethod
    async def dispatch(
        cls, interaction: discord.Interaction[Any], match: re.Match[str] | None
    ) -> None:
        """Hand the click to the handler; every failure is answered (on_error)."""
        assert match is not None
        data: Any = interaction.data or {}
        values = [str(v) for v in data.get("values", ())]
        try:
            await cls.handler(interaction, match, values)
        except Exception as exc:
            await cls.on_error(interaction, exc)
        finally:
            release(interaction)


class Routes:
    """Which of our item classes a custom_id is for, found with one dict lookup and one
    match (discord.py tries every registered template in turn, then starts a task per
    match). Every template begins with its own ``cb:?:`` prefix; two classes sharing a
    template (a game's buttons and selects) share a handler, and the last one registered
    takes the click, as in discord.py's registry."""

    def __init__(self, items: Items) -> None:
        self._by_prefix: dict[str, type[_Dispatching]] = {}
        for item in items.all():
            template = item.__discord_ui_compiled_template__.pattern
            prefix = template[:PREFIX]
            assert re.fullmatch(r"cb:[a-z]:", prefix), template
            self._by_prefix[prefix] = cast(type[_Dispatching], item)

    def find(self, custom_id: str) -> tuple[type[_Dispatching], re.Match[str]] | None:
        """The item class taking this custom_id, with its match (None: none of ours)."""
        item = self._by_prefix.get(custom_id[:PREFIX])
        if item is None:
            return None
        match = cast(Any, item).__discord_ui_compiled_template__.fullmatch(custom_id)
        return None if match is None else (item, match)


PREFIX = len("cb:g:")  # the part of a custom_id naming its kind of control

_ON_MESSAGE = "cafebot.on_message"  # the answer, kept in the interaction's extras


def on_message(interaction: discord.Interaction[Any], custom_id: str, component_type: Any) -> bool:
    """Is that component on the clicked message (a click may carry any custom_id)? Asked
    twice per click (the dispatch and CafeBot.on_interaction): looked for once."""
    key = (custom_id, component_type)
    known = interaction.extras.get(_ON_MESSAGE)
    if known is not None and known[0] == key:
        return bool(known[1])
    found = has_component(interaction, custom_id, component_type)
    interaction.extras[_ON_MESSAGE] = (key, found)
    return found


_rebuilding_dispatch = discord.ui.view.ViewStore.schedule_dynamic_item_call


async def _fast_dynamic_item_call(
    self: discord.ui.view.ViewStore,
    component_type: int,
    factory: type[discord.ui.DynamicItem[Any]],
    interaction: discord.Interaction[Any],
    custom_id: str,
    match: re.Match[str],
) -> None:
    """discord.py's dispatch of a DynamicItem first rebuilds the clicked message's whole view
    as discord.ui objects (every option of every select) to find the item: a twentieth of
    the bot's CPU. Ours need only the custom_id's match, so they are handed the click
    straight away; the same check as discord.py's keeps a custom_id that is not on the
    message away from them (CafeBot.on_interaction answers those)."""
    if not (isinstance(factory, type) and issubclass(factory, _Dispatching)):
        await _rebuilding_dispatch(self, component_type, factory, interaction, custom_id, match)
        return
    if on_message(interaction, custom_id, component_type):
        await factory.dispatch(interaction, match)


def install_fast_dispatch() -> None:
    """Route clicks on cafebot's DynamicItems without rebuilding views (other DynamicItems,
    e.g. the emulator tests' own bot's, keep discord.py's way)."""
    discord.ui.view.ViewStore.schedule_dynamic_item_call = _fast_dynamic_item_call  # type: ignore[method-assign]


def release(interaction: discord.Interaction[Any]) -> None:
    """Break the interaction's reference cycles once it is answered (its response and the
    original message each point back at it), so it is freed at once with the clicked message
    it carries (every component, option and emoji of it) instead of piling up for the cycle
    collector: most of the garbage it found, and its longest pauses."""
    for name in ("_cs_response", "_cs_followup"):
        if hasattr(interaction, name):  # (no exception raised for one never read)
            delattr(interaction, name)
    interaction._original_response = None


def _item_class(
    name: str, base: type[Any], template: str, handlers: Handlers, handler: Handler
) -> Any:
    def fill(namespace: dict[str, Any]) -> None:
        namespace["handler"] = staticmethod(handler)
        namespace["on_error"] = staticmethod(handlers.on_error)

    generic: Any = discord.ui.DynamicItem[base]  # type: ignore[valid-type]
    return types.new_class(name, (_Dispatching, generic), {"template": template}, fill)


def make_items(handlers: Handlers) -> Items:
    return Items(
        game_button=_item_class("GameButton", ButtonItem, GAME_ID, handlers, handlers.game_control),
        game_select=_item_class("GameSelect", SelectItem, GAME_ID, handlers, handlers.game_control),
        lobby_button=_item_class(
            "LobbyButton", ButtonItem, LOBBY_ID, handlers, handlers.lobby_button
        ),
        option_select=_item_class(
            "OptionSelect", SelectItem, OPTION_ID, handlers, handlers.option_select
        ),
        abandon_button=_item_class(
            "AbandonButton", ButtonItem, ABANDON_ID, handlers, handlers.abandon_button
        ),
        help_button=_item_class("HelpButton", ButtonItem, HELP_ID, handlers, handlers.help_page),
        rematch_button=_item_class(
            "RematchButton", ButtonItem, REMATCH_ID, handlers, handlers.rematch_button
        ),
        history_button=_item_class(
            "HistoryButton", ButtonItem, HISTORY_ID, handlers, handlers.history_page
        ),
        record_select=_item_class(
            "RecordSelect", SelectItem, RECORD_ID, handlers, handlers.record_select
        ),
        undo_button=_item_class("UndoButton", ButtonItem, UNDO_ID, handlers, handlers.undo_button),
        replay_button=_optional(
            "ReplayButton", ButtonItem, REPLAY_ID, handlers, handlers.replay_button
        ),
        replay_round=_optional(
            "ReplayRound", SelectItem, REPLAY_ROUND_ID, handlers, handlers.replay_round
        ),
        replay_pick=_optional(
            "ReplayPick", SelectItem, REPLAY_PICK_ID, handlers, handlers.replay_pick
        ),
    )


def _optional(
    name: str, base: type[Any], template: str, handlers: Handlers, handler: Handler | None
) -> Any:
    return None if handler is None else _item_class(name, base, template, handlers, handler)
