"""Buttons and selects that survive restarts: DynamicItems whose custom_ids carry all they need.

custom_id formats (≤ 100 characters):
- ``cb:g:{session}:{seat}:{key}:{index}`` a game control; seat is ``t`` for the table message or
  the seat number of the private panel it belongs to; key names the button's move in its step
  (render.action_key), index keeps custom_ids unique; a select option's value is its move's key.
  A click is applied only if that move is still offered, in the same step, to that viewer.
- ``cb:l:{session}:{verb}`` lobby and table buttons (join, leave, start, hand).
- ``cb:o:{session}`` the lobby's option selects (value: ``{option}:{index}``).
- ``cb:a:{session}:{verb}`` the abandon confirmation (yes / no).

Every handler answers the interaction on every path (an error becomes an ephemeral message), so
Discord never shows "This interaction failed".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, cast

import discord

from bot.errors import NotAllowed, StaleVersion, UserError
from bot.options import choices_of, option_fields
from bot.render import content_digest, find_action
from bot.sessions import Session
from games.engine import PrivatePanel
from games.presentation import Select

if TYPE_CHECKING:
    from bot.app import CafeBot

log = logging.getLogger(__name__)

GAME_ID = r"cb:g:(?P<sid>\d{1,18}):(?P<seat>t|\d{1,2}):(?P<key>[0-9a-f]{10}):(?P<idx>\d{1,2})"
LOBBY_ID = r"cb:l:(?P<sid>\d{1,18}):(?P<verb>join|leave|start|hand)"
OPTION_ID = r"cb:o:(?P<sid>\d{1,18}):(?P<n>\d)"
ABANDON_ID = r"cb:a:(?P<sid>\d{1,18}):(?P<verb>yes|no)"

ButtonItem = discord.ui.Button[discord.ui.View]
SelectItem = discord.ui.Select[discord.ui.View]

Handler = Callable[[discord.Interaction[Any], "re.Match[str]", list[str]], Awaitable[None]]


async def _dispatch(interaction: discord.Interaction[Any], match: re.Match[str], name: str) -> None:
    bot = cast("CafeBot", interaction.client)
    data: dict[str, Any] = dict(interaction.data or {})
    values = [str(v) for v in data.get("values", [])]
    handler: Handler = getattr(bot.controls, name)
    try:
        await handler(interaction, match, values)
    except Exception as exc:
        await bot.answer_error(interaction, exc)


class _Dispatching:
    """What every dynamic component does: rebuild itself from any custom_id matching its
    template (never raising: an exception there would leave the click unanswered) and hand the
    click to the Controls method named ``handler``."""

    handler: ClassVar[str]

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
        item = cast(discord.ui.DynamicItem[Any], self)
        match = item.template.fullmatch(item.custom_id)
        assert match is not None
        await _dispatch(interaction, match, self.handler)


class GameButton(_Dispatching, discord.ui.DynamicItem[ButtonItem], template=GAME_ID):
    handler = "game_control"


class GameSelect(_Dispatching, discord.ui.DynamicItem[SelectItem], template=GAME_ID):
    handler = "game_control"


class LobbyButton(_Dispatching, discord.ui.DynamicItem[ButtonItem], template=LOBBY_ID):
    handler = "lobby_button"


class OptionSelect(_Dispatching, discord.ui.DynamicItem[SelectItem], template=OPTION_ID):
    handler = "option_select"


class AbandonButton(_Dispatching, discord.ui.DynamicItem[ButtonItem], template=ABANDON_ID):
    handler = "abandon_button"


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    GameButton,
    GameSelect,
    LobbyButton,
    OptionSelect,
    AbandonButton,
)


def _button(
    custom_id: str, label: str, style: discord.ButtonStyle, row: int = 0, emoji: str | None = None
) -> discord.ui.Button[discord.ui.View]:
    return discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row, emoji=emoji)


def hand_button(session_id: int) -> discord.ui.Item[discord.ui.View]:
    return LobbyButton(  # type: ignore[return-value]
        _button(
            f"cb:l:{session_id}:hand", "Show my hand", discord.ButtonStyle.secondary, emoji="✋"
        )
    )


def lobby_view(session_id: int, option_selects: list[Select]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        LobbyButton(_button(f"cb:l:{session_id}:join", "Join", discord.ButtonStyle.success))
    )
    view.add_item(
        LobbyButton(_button(f"cb:l:{session_id}:leave", "Leave", discord.ButtonStyle.secondary))
    )
    view.add_item(
        LobbyButton(_button(f"cb:l:{session_id}:start", "Start", discord.ButtonStyle.primary))
    )
    for n, select in enumerate(option_selects[:4]):
        item: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"cb:o:{session_id}:{n}",
            placeholder=select.placeholder[:150],
            row=n + 1,
            options=[
                discord.SelectOption(
                    label=o.label[:100],
                    value=f"{o.action['option']}:{o.action['index']}",
                    default=o.default,
                )
                for o in select.options[:25]
            ],
        )
        view.add_item(OptionSelect(item))
    return view


def abandon_view(session_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        AbandonButton(
            _button(f"cb:a:{session_id}:yes", "Yes, abandon it", discord.ButtonStyle.danger)
        )
    )
    view.add_item(
        AbandonButton(
            _button(f"cb:a:{session_id}:no", "Keep playing", discord.ButtonStyle.secondary)
        )
    )
    return view


def _synced_message(interaction: discord.Interaction[Any], s: Session) -> bool:
    """Is the clicked message one the sync worker keeps up to date (the channel's table
    message or a player's DM), rather than an ephemeral copy?"""
    message = interaction.message
    if message is None:
        return False
    return message.id == s.row.table_message_id or any(
        p.dm_message_id == message.id for p in s.players
    )


class Controls:
    """What each kind of component does; the bot owns one."""

    def __init__(self, bot: CafeBot) -> None:
        self.bot = bot

    async def game_control(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        bot = self.bot
        sid, seat, key = int(match["sid"]), match["seat"], match["key"]
        clicker = str(interaction.user.id)

        def choose(s: Session) -> Any:
            """Runs under the session's lock: the click must match what the message showed."""
            if s.state is None or s.status == "lobby":
                raise NotAllowed("The game hasn't started yet.")
            if s.status != "active":
                raise NotAllowed("This game has ended — `/game status` shows the result.")
            viewer: str | None = None
            if seat != "t":
                me = s.player(clicker)
                if me is None:
                    raise NotAllowed("You're not playing in this game.")
                if str(me.seat) != seat:
                    raise NotAllowed("Those controls belong to another player.")
                viewer = clicker
            panel = s.game.panel(s.state, viewer)
            # The clicked move must still be offered (in this step) to whoever it was shown to.
            if values:
                action = find_action(panel, values[0], in_select=True) if len(values) == 1 else None
            else:
                action = find_action(panel, key, in_select=False)
            if action is None:
                raise StaleVersion()
            return action

        try:
            result = await bot.service.act_with(sid, clicker, choose)
        except StaleVersion:
            await bot.send_fresh_view(interaction, sid, seat)
            return
        s = result.session
        if seat == "t":
            await self._show_update(interaction, s, lambda: self._table(s))
        else:
            await self._show_update(interaction, s, lambda: self._private(s, clicker))

    async def _show_update(
        self,
        interaction: discord.Interaction[Any],
        s: Session,
        render: Callable[[], Awaitable[tuple[list[discord.Embed], discord.ui.View | None]]],
    ) -> None:
        """Show the new state on the clicked message.

        The table message and each player's DM have a single writer, the sync worker, so a
        render of an older state can never land after a newer one: a click on them is only
        acknowledged (deferred update) and the worker edits them, coalescing bursts. Any other
        copy (an ephemeral from /game hand or /game status) is edited by the response itself.
        """
        self.bot.after_change(s.id)
        if _synced_message(interaction, s):
            await interaction.response.defer()
        else:
            embeds, view = await render()
            await interaction.response.edit_message(embeds=embeds, view=view)

    async def _table(self, s: Session) -> tuple[list[discord.Embed], discord.ui.View | None]:
        embeds, view, _ = await self.bot.tables.table_payload(s)
        return embeds, view

    async def _private(
        self, s: Session, user_id: str
    ) -> tuple[list[discord.Embed], discord.ui.View | None]:
        embed, view, _ = self.bot.tables.private_payload(s, user_id)
        return [embed], view

    async def lobby_button(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        bot = self.bot
        sid, verb = int(match["sid"]), match["verb"]
        user = interaction.user
        uid = str(user.id)
        if verb == "hand":
            await bot.send_private_view(interaction, sid)
            return
        if verb == "join":
            s = await bot.service.join(sid, uid, user.display_name)
        elif verb == "leave":
            s = await bot.service.leave(sid, uid)
        else:
            s = await bot.service.start(sid, uid)
        await self._show_update(interaction, s, lambda: self._table(s))
        if verb == "join" and s.game.private_panel is PrivatePanel.DM:
            await bot.check_dms(interaction, s)

    async def option_select(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        bot = self.bot
        sid = int(match["sid"])
        s = await bot.service.load(sid)
        name, _, index = (values[0] if values else "").partition(":")
        info = option_fields(s.game).get(name)
        if info is None or not index.isdigit() or int(index) >= len(choices_of(info)):
            raise UserError("That option isn't offered.")
        value = choices_of(info)[int(index)][1]
        s = await bot.service.set_option(sid, str(interaction.user.id), name, value)
        await self._show_update(interaction, s, lambda: self._table(s))

    async def abandon_button(
        self, interaction: discord.Interaction[Any], match: re.Match[str], values: list[str]
    ) -> None:
        bot = self.bot
        sid, verb = int(match["sid"]), match["verb"]
        if verb == "no":
            await interaction.response.edit_message(content="Carry on! 🍽️", view=None)
            return
        perms = interaction.permissions
        s = await bot.service.abandon(sid, str(interaction.user.id), bool(perms.manage_channels))
        bot.after_change(sid)
        await interaction.response.edit_message(
            content=f"🧹 {s.game.title} (game #{sid}) was abandoned.", view=None
        )
        await bot.tables.post_notice(
            s.row.channel_id,
            f"🧹 {interaction.user.display_name} abandoned this game of "
            f"{s.game.title}. `/game new` starts another.",
        )


__all__ = [
    "DYNAMIC_ITEMS",
    "Controls",
    "abandon_view",
    "content_digest",
    "hand_button",
    "lobby_view",
]
