"""What each message of a session shows: the lobby, the table, a player's private panel.

Builds discord.py embeds and views from the core's sessions and the game's panels; decides
nothing about the rules.
"""

from __future__ import annotations

import collections
import hashlib
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.adapter.items import Items
from bot.adapter.late_tables import RESTART_HELP
from bot.adapter.mine import waiting_note
from bot.adapter.pictures import PictureRef
from bot.adapter.render import (
    PanelKeys,
    PanelLayout,
    PanelView,
    PrivateDrawing,
    draw_private,
    embed_of,
    game_view,
    layout_view,
    merged_controls,
    names_in,
    plain_data,
    sendable,
    with_image,
)
from bot.adapter.results import ResultMessage, result_message
from bot.core.options import describe_options, lobby_option_controls
from bot.core.record import short
from bot.core.seats import ROBOT_LABEL, is_robot
from bot.core.sessions import Change, Session, SessionService
from bot.core.store import SessionStatus
from games.engine import Game, PrivatePanel
from games.presentation import Panel, PanelField, Picture, Select

DM_CLOSED_HELP = (
    "I couldn't send you a direct message. To get your hand by DM, open **Server menu → Privacy "
    "Settings → Direct Messages** and allow them. Meanwhile, **Show my hand** on the table "
    "message or `/game hand` shows it to you privately here."
)
# Said to the table, once a game, with a ping to the player whose DMs refused the bot.
DM_CLOSED_TABLE_HELP = (
    "**Show my hand** on the table message or `/game hand` shows it privately; to get it by "
    "DM next game, allow **Direct Messages** in this server's **Privacy Settings**."
)
COFFEE = 0xC8814B
LOBBY_OPTION_ROWS = 3  # a lobby's selects, under its two rows of buttons


class Rendered:
    """One message as Discord will show it: embeds and a view, or a Components V2 layout;
    the pictures it attaches; a digest that changes with anything it shows. A private panel
    comes drawn straight as Discord's JSON (``data``: see render.PrivateDrawing), which a
    click's answer sends as it is; its embeds and view are built only if asked for."""

    def __init__(
        self,
        embeds: list[discord.Embed] | None,
        view: discord.ui.View | discord.ui.LayoutView | None,
        digest: str,
        game: Game[Any, Any] | None = None,
        pictures: list[PictureRef] | None = None,
        panel: Panel | None = None,  # a private panel: the one its controls come from
        # Shows no picture where the message may have had some (a closed step's notice): an
        # edit removes them (they would show as loose files).
        drops_pictures: bool = False,
        *,
        data: dict[str, Any] | None = None,
    ) -> None:
        self._embeds = embeds
        self._view = view
        self.digest = digest
        self.game = game
        self.pictures = pictures if pictures is not None else []
        self.panel = panel
        self.drops_pictures = drops_pictures
        self.data = data  # the edit's embeds and components as Discord's JSON, if drawn so

    @property
    def embeds(self) -> list[discord.Embed]:
        if self._embeds is None:
            assert self.data is not None
            embeds = plain_data(self.data).get("embeds", [])
            self._embeds = [discord.Embed.from_dict(e) for e in embeds]
        return self._embeds

    @property
    def view(self) -> discord.ui.View | discord.ui.LayoutView | None:
        if self._view is None and self.data is not None and self.data["components"]:
            components = plain_data(self.data)["components"]
            if self.v2:
                self._view = PanelLayout(components)
            else:
                self._view = PanelView([row["components"] for row in components])
        return self._view

    @property
    def v2(self) -> bool:
        if self.data is not None:
            return "flags" in self.data
        return isinstance(self._view, discord.ui.LayoutView)

    def message(self, note: str | None = None, *, edit: bool = False) -> dict[str, Any]:
        """Keyword arguments for send (or ``edit``; files come apart). A V2 message has no
        content or embeds: a note then goes first in its own text. No view: a new message has
        no components; an edited one loses its old ones (None, where MISSING would keep them)."""
        if self.v2:
            return {"view": self.view}
        view = self.view if edit else sendable(self.view)
        return {"content": note, "embeds": self.embeds, "view": view}


@dataclass
class TableParts:
    """What a table message shows, before it is drawn as embeds and components."""

    panels: list[Panel]
    extra: list[PanelField]
    digest: str
    skippable: bool = False  # the host may end the step (its absent players' defaults played)
    keys: PanelKeys = field(default_factory=lambda: PanelKeys([], [], {}, {}))
    # The session's version, state and row it was drawn from, once kept (see
    # Screens.table_parts_drawn).
    version: int = -1
    state: object = None
    row: object = None


def content_digest(*panels: Panel, extra: str = "") -> str:
    """Changes whenever anything visible in the panels changes."""
    h = hashlib.sha1(extra.encode())
    for panel in panels:
        h.update(panel.__pydantic_serializer__.to_json(panel))
    return h.hexdigest()[:16]


PARTS_KEPT = 1024  # tables kept (the newest drawn of each session)
PANELS_KEPT = 1024  # private panels kept (the newest by session and player)
TOUCHED_KEPT = 8192  # moves whose untouched views are remembered (a few bytes each)
# How many versions back a private panel is still used while its player's view did not change
# (a simultaneous step: the other players' picks since this player's last click).
UNTOUCHED_LOOKBACK = 32


@dataclass(slots=True)  # not frozen: see render.PanelKeys
class _Kept:
    """A player's newest private panel, with the version, state and row it is good for."""

    version: int
    state: object
    row: object
    entry: PrivateDrawing


class Screens:
    def __init__(self, service: SessionService, items: Items) -> None:
        self.service = service
        self.items = items
        # How many messages were drawn as discord.py objects, by kind (for benchmarks).
        self.renders: collections.Counter[str] = collections.Counter()
        # What each session's table shows at the newest version drawn, with the state and row
        # it was drawn from (a reloaded session must not get the old drawing). Only the
        # newest: a click's answer and the sync both draw the newest version, and the parts
        # of older ones (their panels, fields, lists) lived on, young, for the collector to
        # walk at every pass.
        self._parts: collections.OrderedDict[int, TableParts] = collections.OrderedDict()
        # Each player's newest private panel, by (session, player): one each, however many
        # versions the others' moves made since (none of which may push it out).
        self._panels: collections.OrderedDict[tuple[int, str], _Kept] = collections.OrderedDict()
        # The players' views each move touched (a game's ``views_touched``; the others it left
        # as they were), by session and version it made (``_version_key``): a player's panel
        # drawn before such moves is theirs after them too. Each as one str (``_players``):
        # an int key and a str are nothing the collector walks, where a tuple and a frozenset
        # per move were (young, thousands of them, at every pass).
        self._touched: collections.OrderedDict[int, str] = collections.OrderedDict()
        service.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        if change.version is None or change.views is None:
            return  # not said which, or any view: nothing carries over this version
        self._touched[_version_key(change.session_id, change.version)] = _players(change.views)
        while len(self._touched) > TOUCHED_KEPT:
            self._touched.popitem(last=False)

    # -- the lobby -------------------------------------------------------------------------------
    def lobby_payload(self, s: Session) -> tuple[discord.Embed, discord.ui.View]:
        game = s.game
        names = s.names()
        seated = "\n".join(
            f"{'👑' if p.user_id == s.row.host_id else '🪑'} {p.name}" for p in s.players
        )
        embed = discord.Embed(
            title=f"☕ {game.title} — lobby",
            description=f"{game.summary}\n\nPress **Join** to take a seat. The host starts the "
            f"game when {game.min_players}–{game.max_players} players are seated, and may fill "
            f"empty seats with bot players ({ROBOT_LABEL}): easy, normal or hard.",
            colour=COFFEE,
        )
        embed.add_field(name="Host", value=names.get(s.row.host_id, "?"), inline=True)
        embed.add_field(
            name=f"Players ({len(s.players)}/{game.max_players})", value=seated or "—", inline=True
        )
        embed.add_field(name="Options", value=describe_options(game, s.options), inline=False)
        embed.set_footer(text=f"Game #{s.id} · /game rules {game.id} explains how to play")
        controls = lobby_option_controls(game, s.options)
        robots = sum(1 for p in s.players if is_robot(p.user_id))
        return embed, self.lobby_view(s.id, controls, robots=robots)

    def lobby_view(
        self, session_id: int, option_selects: list[Select], *, robots: int = 0
    ) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        for verb, label, style, emoji in (
            ("join", "Join", discord.ButtonStyle.success, None),
            ("leave", "Leave", discord.ButtonStyle.secondary, None),
            ("start", "Start", discord.ButtonStyle.primary, None),
            ("help", "How to play", discord.ButtonStyle.secondary, None),
            # Bot players by level: normal (the game's own player), easy, hard (it searches).
            ("bot", "Add a bot player", discord.ButtonStyle.secondary, ROBOT_LABEL),
            ("easybot", "Easy bot", discord.ButtonStyle.secondary, None),
            ("hardbot", "Hard bot", discord.ButtonStyle.secondary, None),
            ("unbot", "Remove a bot", discord.ButtonStyle.secondary, None),
        ):
            button = _button(f"cb:l:{session_id}:{verb}", label, style, emoji=emoji)
            button.disabled = verb == "unbot" and not robots
            button.row = 1 if verb.endswith("bot") else 0  # two rows of buttons
            view.add_item(self.items.lobby_button(button))
        for n, select in enumerate(option_selects[:LOBBY_OPTION_ROWS]):
            item: discord.ui.Select[discord.ui.View] = discord.ui.Select(
                custom_id=f"cb:o:{session_id}:{n}",
                placeholder=select.placeholder[:150],
                row=n + 2,
                options=[
                    discord.SelectOption(
                        label=o.label[:100],
                        value=f"{o.action['option']}:{o.action['index']}",
                        default=o.default,
                    )
                    for o in select.options[:25]
                ],
            )
            view.add_item(self.items.option_select(item))
        return view

    def help_page(self, game: Game[Any, Any], page: int) -> tuple[discord.Embed, discord.ui.View]:
        """One screen of a game's rules (its help text, paged by its ``## `` headings)."""
        # A game whose clock a restart gives the downtime back: how its table tells it.
        pages = help_pages(game.help_text + (RESTART_HELP if game.refund_downtime else ""))
        page = max(0, min(page, len(pages) - 1))
        heading, text = pages[page]
        if heading.casefold() == game.title.casefold():
            heading = "How to play"  # not "Café Carnage — Café Carnage"
        embed = discord.Embed(title=f"📖 {game.title} — {heading}"[:256], description=text[:4096])
        embed.colour = COFFEE
        embed.set_footer(
            text=f"Page {page + 1}/{len(pages)} · {game.min_players}–{game.max_players} players"
        )
        view = discord.ui.View(timeout=None)
        for target, way, label, emoji in (
            (page - 1, "b", "Back", "◀️"),
            (page + 1, "n", "Next", "▶️"),
        ):
            exists = 0 <= target < len(pages)
            style = discord.ButtonStyle.primary if way == "n" else discord.ButtonStyle.secondary
            button = _button(
                f"cb:h:{game.id}:{target if exists else page}:{way}", label, style, emoji
            )
            button.disabled = not exists
            view.add_item(self.items.help_button(button))
        return embed, view

    def result(
        self, payload: dict[str, Any], names: dict[str, str], session_id: int
    ) -> ResultMessage:
        """A finished game's final message (standings, chart, Rematch)."""
        return result_message(payload, names, session_id, self.items)

    def undo_view(self, session_id: int, seq: int) -> discord.ui.View:
        """Agree / Object under a request to take back move ``seq``."""
        view = discord.ui.View(timeout=None)
        for verb, label, style, emoji in (
            ("yes", "Agree", discord.ButtonStyle.success, "👍"),
            ("no", "Object", discord.ButtonStyle.danger, "✋"),
        ):
            button = _button(f"cb:u:{session_id}:{seq}:{verb}", label, style, emoji)
            view.add_item(self.items.undo_button(button))
        return view

    def abandon_view(self, session_id: int) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        view.add_item(
            self.items.abandon_button(
                _button(f"cb:a:{session_id}:yes", "Yes, abandon it", discord.ButtonStyle.danger)
            )
        )
        view.add_item(
            self.items.abandon_button(
                _button(f"cb:a:{session_id}:no", "Keep playing", discord.ButtonStyle.secondary)
            )
        )
        return view

    def skip_button(self, session_id: int) -> discord.ui.Item[discord.ui.View]:
        button = _button(
            f"cb:l:{session_id}:skip", "Go on without them", discord.ButtonStyle.secondary, "⏩"
        )
        return self.items.lobby_button(button)  # type: ignore[return-value]

    def hand_button(self, session_id: int) -> discord.ui.Item[discord.ui.View]:
        button = _button(
            f"cb:l:{session_id}:hand", "Show my hand", discord.ButtonStyle.secondary, emoji="✋"
        )
        return self.items.lobby_button(button)  # type: ignore[return-value]

    # -- the table -------------------------------------------------------------------------------
    async def table_payload(self, s: Session) -> Rendered:
        """The channel's table message: the public panels plus who we wait for and until when."""
        parts = await self.table_parts(s)
        return self.render_table(s, parts)

    async def table_parts(self, s: Session) -> TableParts:
        """What the table shows, with its digest: cheap next to drawing it (no discord.py
        objects), so an unchanged table is recognised before anything is built. Once per
        version of the session (a click's answer and the sync share it)."""
        drawn = self.table_parts_drawn(s)
        if drawn is not None:
            return drawn
        parts = await self._table_parts(s)
        self._remember(s, parts)
        return parts

    def table_parts_drawn(self, s: Session) -> TableParts | None:
        """What the table shows at this version, if table_parts drew it already."""
        found = self._parts.get(s.id)
        # Only if drawn from this very state (a session read again from the database, e.g.
        # after ``forget``, is a new state).
        if found is None or found.state is not s.state or found.row is not s.row:
            return None
        return found

    async def _table_parts(self, s: Session) -> TableParts:
        if s.state is None:
            return TableParts([], [], f"lobby:{s.status}:{s.version}")
        game, names = s.game, s.names()
        panels = game.table(s.state)
        extra: list[PanelField] = []
        skippable = False
        if s.status is SessionStatus.ACTIVE:
            waiting = [p for p in s.state.players if p in game.active_players(s.state)]
            deadline = await self.service.deadline(s.id)
            if waiting:
                text = ", ".join(names.get(p, "?") for p in waiting)
                if deadline is not None:
                    text += f"\nTime runs out <t:{int(deadline.due_at)}:R>"
                extra.append(PanelField(name="⏳ Waiting for", value=text[:1024]))
            clock = game.clock(s.state)
            skippable = clock is not None and clock.host_may_skip and bool(waiting)
            if len(waiting) == 1 and is_robot(waiting[0]):
                # A bot player's move: nobody may click the table meanwhile (the field above
                # says whom it waits for). Not for a person awaited: a disabled button is
                # disabled for everyone, and where the table has controls (Monster Café,
                # Breakfast vs Aliens) the awaited person plays on them; the other games'
                # tables have none (each player plays on their own panel).
                panels = [
                    p.model_copy(
                        update={
                            "controls": [
                                c.model_copy(update={"disabled": True}) for c in p.controls
                            ]
                        }
                    )
                    for p in panels
                ]
        if s.status is not SessionStatus.ACTIVE:
            panels = [p.model_copy(update={"controls": []}) for p in panels]
        if s.status is SessionStatus.ABANDONED:
            # Say so first: the panel below still reads as the game was left ("It's X's turn").
            first = panels[0]
            panels[0] = first.model_copy(
                update={
                    "title": f"🧹 Abandoned — {first.title}"[:256],
                    "description": (
                        "🧹 **This game was abandoned** — this is the table as it was "
                        "left. `/game new` starts another.\n\n" + first.description
                    )[:4096],
                }
            )
        # Players' names in the pictures and their alt text (a game writes player tokens).
        panels = [
            p.model_copy(update={"image": named_picture(p.image, names)}) if p.image else p
            for p in panels
        ]
        digest = content_digest(
            *panels, extra=repr([[f.model_dump() for f in extra], s.status, skippable])
        )
        return TableParts(panels, extra, digest, skippable, PanelKeys.of(merged_controls(panels)))

    def render_table(self, s: Session, parts: TableParts) -> Rendered:
        self.renders["table"] += 1
        if s.state is None:
            if s.status is SessionStatus.LOBBY:
                lobby_embed, lobby_view = self.lobby_payload(s)
                return Rendered([lobby_embed], lobby_view, parts.digest)
            closed = discord.Embed(
                title=f"☕ {s.game.title} — lobby closed",
                description="This lobby was abandoned before the game started. "
                "`/game new` opens another.",
            )
            return Rendered([closed], None, parts.digest)
        game, names, panels = s.game, s.names(), parts.panels
        last = len(panels) - 1
        # The deal is sealed from the start: the seed's commitment, checked at the end.
        footer = f"🔒 sealed {short(s.commitment)} · Game #{s.id}"
        buttons: list[discord.ui.Item[discord.ui.View]] = []
        if s.status is SessionStatus.ACTIVE and game.private_panel is not PrivatePanel.NEVER:
            buttons.append(self.hand_button(s.id))
        if parts.skippable:
            buttons.append(self.skip_button(s.id))
        embeds = [
            with_image(
                embed_of(
                    panel,
                    names,
                    footer=footer if i == last else "",
                    extra_fields=parts.extra if i == last else None,
                ),
                panel,
            )
            for i, panel in enumerate(panels)
        ]
        view = game_view(
            merged_controls(panels),
            names,
            session_id=s.id,
            seat="t",
            extra=buttons,
            keys=parts.keys,
        )
        pictures = [PictureRef.of(p.image) for p in panels if p.image is not None]
        return Rendered(embeds, view, parts.digest, game, pictures)

    # -- a player's private panel ----------------------------------------------------------------
    def private_parts(self, s: Session, user_id: str) -> tuple[Panel, str]:
        """A player's private panel and its digest (nothing drawn yet)."""
        entry = self.private_entry(s, user_id)
        return entry.panel, entry.digest

    def private_entry(self, s: Session, user_id: str) -> PrivateDrawing:
        """A player's private panel, its digest and its controls' keys: once per version of
        the session (checking a click, answering it and the sync share it), and kept while
        the moves since leave that player's view as it was."""
        key = (s.id, user_id)
        kept = self._panels.get(key)
        if kept is not None:
            if kept.version == s.version and kept.state is s.state and kept.row is s.row:
                return kept.entry
            if kept.version < s.version and self._untouched(s, user_id, kept.version):
                self._keep(key, s, kept.entry)
                return kept.entry
        assert s.state is not None
        entry = self._private_entry(s, user_id)
        if kept is None or kept.version <= s.version:  # not for an older state (a late sync)
            self._keep(key, s, entry)
        return entry

    def _keep(self, key: tuple[int, str], s: Session, entry: PrivateDrawing) -> None:
        kept = self._panels.get(key)
        if kept is None:
            self._panels[key] = _Kept(s.version, s.state, s.row, entry)
        else:  # changed in place: no new young object each time a panel carries over
            kept.version, kept.state, kept.row, kept.entry = s.version, s.state, s.row, entry
            self._panels.move_to_end(key)
        while len(self._panels) > PANELS_KEPT:
            self._panels.popitem(last=False)

    def _private_entry(self, s: Session, user_id: str) -> PrivateDrawing:
        assert s.state is not None
        panel = s.game.panel(s.state, user_id)
        if s.status is not SessionStatus.ACTIVE:
            panel = panel.model_copy(update={"controls": []})
        return self._draw(s, user_id, panel)  # keyed as it is drawn

    @staticmethod
    def _draw(
        s: Session, user_id: str, panel: Panel, keys: PanelKeys | None = None
    ) -> PrivateDrawing:
        player = s.player(user_id)
        assert player is not None
        return draw_private(panel, s.names(), session_id=s.id, seat=str(player.seat), keys=keys)

    def _untouched(self, s: Session, user_id: str, since: int) -> bool:
        """Did every move after version ``since`` (each seen by this process) leave the
        player's view as it was? Then their panel drawn then is theirs now, not drawn again."""
        if s.version - since > UNTOUCHED_LOOKBACK:
            return False
        touched = self._touched
        player = f"{_SEP}{user_id}{_SEP}"
        first = _version_key(s.id, 0)
        for version in range(since + 1, s.version + 1):
            players = touched.get(first + version)
            if players is None or player in players:
                return False
        return True

    def keys_now(self, s: Session, viewer: str | None) -> PanelKeys:
        """The keys of the controls ``viewer`` is shown now (None: the table's), to check a
        click against (under the session's lock, so without awaiting anything)."""
        if viewer is not None:
            return self.private_entry(s, viewer).keys
        drawn = self.table_parts_drawn(s)
        if drawn is not None:
            return drawn.keys
        assert s.state is not None
        return PanelKeys.of(merged_controls(s.game.table(s.state)))

    def _remember(self, s: Session, parts: TableParts) -> None:
        kept = self._parts.get(s.id)
        if kept is not None and kept.version > s.version:
            return  # drawn for an older state (a late pass): the newer one stays
        parts.version, parts.state, parts.row = s.version, s.state, s.row
        self._parts[s.id] = parts
        self._parts.move_to_end(s.id)
        while len(self._parts) > PARTS_KEPT:
            self._parts.popitem(last=False)

    async def view_of(self, s: Session, viewer: str | None, note: str = "") -> Rendered:
        """What ``viewer`` is shown of the session: their private view, or the table (for None,
        the table's view, and for a viewer who has none: not seated, or before the start).
        The one drawing a click's answer asks for."""
        if viewer is not None and s.state is not None and s.player(viewer) is not None:
            return self.private_payload(s, viewer, note)
        return await self.table_payload(s)

    def private_payload(self, s: Session, user_id: str, note: str = "") -> Rendered:
        entry = self.private_entry(s, user_id)
        return self.render_private(s, user_id, entry.panel, entry.digest, note, entry.keys)

    def render_private(
        self,
        s: Session,
        user_id: str,
        panel: Panel,
        digest: str,
        note: str = "",
        keys: PanelKeys | None = None,
        *,
        elsewhere: int = 0,
    ) -> Rendered:
        """``elsewhere``: how many other games wait for this player (said in the footer)."""
        kept = self._panels.get((s.id, user_id))
        if kept is not None and kept.entry.panel is panel:
            return self.render_entry(s, user_id, kept.entry, note, elsewhere=elsewhere)
        drawing = self._draw(s, user_id, panel, keys)
        return self.render_entry(s, user_id, drawing, note, elsewhere=elsewhere)

    def render_entry(
        self, s: Session, user_id: str, entry: PrivateDrawing, note: str = "", *, elsewhere: int = 0
    ) -> Rendered:
        """A player's private message from their panel as drawn once (see private_entry)."""
        self.renders["private"] += 1
        panel, drawing = entry.panel, entry
        if drawing.names != s.names():  # a player renamed since it was drawn
            drawing = self._draw(s, user_id, panel, entry.keys)
        where = f"<#{s.row.channel_id}>"
        footer = f"{s.game.title} · game #{s.id}"
        if elsewhere and s.status is SessionStatus.ACTIVE:
            footer += " · " + waiting_note(elsewhere, markdown=False)
        pictures = [PictureRef.of(panel.image)] if panel.image is not None else []
        if drawing.v2 and note:  # the note goes first in the message's text
            player = s.player(user_id)
            assert player is not None
            shown = panel.model_copy(update={"description": f"{note}\n\n{panel.description}"})
            view = layout_view(
                shown,
                s.names(),
                session_id=s.id,
                seat=str(player.seat),
                footer=f"Your private view · table in {where} · {footer}",
                keys=entry.keys,
            )
            return Rendered([], view, entry.digest, s.game, pictures, panel)
        data = drawing.data(where, footer)
        return Rendered(None, None, entry.digest, s.game, pictures, panel, data=data)

    @staticmethod
    def abandoned_dm(s: Session, *, v2: bool) -> Rendered:
        """A player's last DM once the game was abandoned (no controls)."""
        title = f"🧹 {s.game.title} — abandoned"
        text = (
            f"This game was abandoned in <#{s.row.channel_id}>. `/game new` there starts another."
        )
        if v2:
            view = discord.ui.LayoutView(timeout=None)
            view.add_item(discord.ui.TextDisplay(f"### {title}\n{text}"))
            return Rendered([], view, "abandoned", s.game, drops_pictures=True)
        embed = discord.Embed(title=title, description=text, colour=0x9E9E9E)
        return Rendered([embed], None, "abandoned", s.game, drops_pictures=True)

    @staticmethod
    def closed_step(s: Session, *, v2: bool) -> Rendered:
        """What a private message of a step that is over shows (its controls gone)."""
        where = f"<#{s.row.channel_id}>"
        title = f"✅ {s.game.title} — done here"
        text = (
            f"That step is over: the table in {where} shows what happened, and your next view "
            "is in a newer message."
        )
        if v2:
            view = discord.ui.LayoutView(timeout=None)
            view.add_item(discord.ui.TextDisplay(f"### {title}\n{text}"))
            return Rendered([], view, "closed", s.game)
        return Rendered(
            [discord.Embed(title=title, description=text, colour=0x7A9E7E)], None, "closed"
        )


_SEP = "\x00"  # between the players' ids in ``_players`` (none holds it)


def _version_key(session_id: int, version: int) -> int:
    """One int for a session's version (versions stay far below 2**32)."""
    return session_id << 32 | version


def _players(views: frozenset[str | None]) -> str:
    """The players among ``views`` (not the table: only players' panels are kept) as one str,
    each between two ``_SEP``: ``f"{_SEP}{player}{_SEP}" in`` it asks for one."""
    players = _SEP.join(v for v in views if v is not None)
    return f"{_SEP}{players}{_SEP}" if players else ""


def named_picture(picture: Picture, names: dict[str, str]) -> Picture:
    """``picture`` with the player tokens of its spec's strings and of its alt text replaced
    by the players' names (its content changes with a name: it is drawn again)."""

    def named(value: Any) -> Any:
        if isinstance(value, str):
            return names_in(value, names)
        if isinstance(value, list):
            return [named(v) for v in value]
        if isinstance(value, dict):
            return {k: named(v) for k, v in value.items()}
        return value

    return Picture(name=picture.name, alt=names_in(picture.alt, names), spec=named(picture.spec))


def help_pages(text: str) -> list[tuple[str, str]]:
    """A help text as (heading, text) pages, one per ``## `` section (the text before the
    first heading, if any, is the first page, "How to play")."""
    pages: list[tuple[str, list[str]]] = [("How to play", [])]
    for line in text.splitlines():
        if line.startswith("## "):
            pages.append((line[3:].strip() or "…", []))
        else:
            pages[-1][1].append(line)
    out = [(title, "\n".join(lines).strip()) for title, lines in pages]
    return [(t, body) for t, body in out if body] or [("How to play", text.strip() or "…")]


def _button(
    custom_id: str, label: str, style: discord.ButtonStyle, emoji: str | None = None
) -> discord.ui.Button[discord.ui.View]:
    return discord.ui.Button(label=label, style=style, custom_id=custom_id, emoji=emoji, row=0)
