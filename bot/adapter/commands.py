"""The /game slash commands. They translate; the session service decides."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.adapter.history import PER_PAGE, history_screen
from bot.adapter.mine import seated_games_embed
from bot.adapter.render import jump_link, names_in
from bot.adapter.replies import NotHere, Replies, committed, in_time
from bot.adapter.screens import Rendered, Screens
from bot.adapter.stats import (
    leaderboard_embed,
    rating_board_embed,
    rating_history_embed,
    record_embed,
)
from bot.adapter.tables import TableSync
from bot.core.errors import NotAllowed, NotFound, UserError
from bot.core.options import parse_setting, setting_suggestions
from bot.core.sessions import Session, SessionService
from bot.core.store import SessionRow
from games import REGISTRY
from games.engine import PrivatePanel
from games.kit import TIMEOUT_CHOICES as TIMEOUTS

T = TypeVar("T")

GAME_CHOICES = [app_commands.Choice(name=g.title, value=g.id) for g in REGISTRY.values()]
TIMEOUT_CHOICES = [
    app_commands.Choice(name=label, value=seconds) for label, seconds in TIMEOUTS.items()
]


# Discord sets where a command may be used per top-level command: the group is offered in DMs
# with the bot too, for /game mine (and the rules); the rest refuse DMs when run.
DM_COMMANDS = frozenset({"mine", "rules", "help"})


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
@app_commands.allowed_installs(guilds=True, users=False)
class GameCommands(app_commands.Group):
    def __init__(
        self, service: SessionService, screens: Screens, tables: TableSync, replies: Replies
    ) -> None:
        super().__init__(name="game", description="Play café board games with friends")
        self.service = service
        self.screens = screens
        self.tables = tables
        self.replies = replies

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        command = interaction.command
        name = command.name if command is not None else ""
        if name in DM_COMMANDS:
            return True
        if interaction.guild_id is None or interaction.channel_id is None:
            raise NotHere(
                f"`/game {name}` works in a server channel or thread, not in a DM. Here, "
                "`/game mine` lists your games and `/game rules` explains them."
            )
        return True

    # -- helpers ---------------------------------------------------------------------------------
    async def _open_session(self, interaction: discord.Interaction[Any]) -> Session:
        s = await self._soon(interaction, self.service.open_in_channel(_channel_id(interaction)))
        if s is None:
            raise NotFound("There's no game in this channel. Start one with `/game new`.")
        return s

    async def _soon(self, interaction: discord.Interaction[Any], work: Awaitable[T]) -> T:
        """``work``, deferring the (private) answer if it takes long."""
        return await in_time(
            interaction, work, lambda: interaction.response.defer(ephemeral=True, thinking=True)
        )

    async def _say(self, interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
        await self.replies.reply(interaction, text, **kwargs)

    # -- commands --------------------------------------------------------------------------------
    @app_commands.command(name="new", description="Open a lobby for a new game in this channel")
    @app_commands.describe(
        game="Which game to play",
        timeout="How long the table waits for each player (each round, in real-time games) before moving on",
        setting="A game option, e.g. no_repeats=on (more can be set in the lobby)",
    )
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.choices(timeout=TIMEOUT_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str],
        timeout: app_commands.Choice[int] | None = None,
        setting: str | None = None,
    ) -> None:
        chosen = REGISTRY.get(game.value)
        if chosen is None:
            raise NotFound("I don't know that game.")
        options: dict[str, Any] = {}
        if timeout is not None:
            field = chosen.timer_option
            if field is None:
                raise UserError(f"{chosen.title} has no timer to set.")
            options[field] = timeout.value
        if setting:
            try:
                name, value = parse_setting(chosen, setting)
            except ValueError as exc:
                raise UserError(str(exc)) from None
            options[name] = value

        async def open_lobby() -> tuple[Session, Rendered]:
            existing = await self.service.open_row_in_channel(_channel_id(interaction))
            if existing is not None:
                link = _message_link(interaction, existing.channel_id, existing.table_message_id)
                title = REGISTRY[existing.game_id].title if existing.game_id in REGISTRY else "game"
                raise NotAllowed(
                    f"This channel already has a game of {title}{link}. Finish it, "
                    "`/game abandon` it, or start a new one in a thread."
                )
            s = await self.service.create(
                game_id=chosen.id,
                channel_id=_channel_id(interaction),
                guild_id=interaction.guild_id,
                host_id=str(interaction.user.id),
                host_name=interaction.user.display_name,
                options=options,
            )
            return s, await self.screens.table_payload(s)

        s, lobby = await in_time(
            interaction, open_lobby(), lambda: interaction.response.defer(thinking=True)
        )
        async with committed(f"Game #{s.id} ({chosen.title}) is open in this channel."):
            if interaction.response.is_done():
                message = await self.replies.show(interaction, lobby, ephemeral=False)
                message_id = message.id if message is not None else None
            else:
                response = await interaction.response.send_message(**lobby.message())
                message_id = response.message_id
            if message_id is not None:
                await self.service.record_table_message(s.id, message_id)
            self.tables.note_table_digest(s.id, lobby.digest)
            if chosen.private_panel is PrivatePanel.DM:
                await self.replies.check_dms(interaction, s)

    @new.autocomplete("setting")
    async def _setting_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        game_id = getattr(interaction.namespace, "game", None)
        games = [REGISTRY[game_id]] if game_id in REGISTRY else list(REGISTRY.values())
        seen: list[str] = []
        for g in games:
            seen.extend(s for s in setting_suggestions(g, current) if s not in seen)
        return [app_commands.Choice(name=s, value=s) for s in seen[:25]]

    @app_commands.command(name="join", description="Take a seat at the game in this channel")
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        s = await self._open_session(interaction)
        s = await self._soon(
            interaction,
            self.service.join(s.id, str(interaction.user.id), interaction.user.display_name),
        )
        async with committed(f"You joined game #{s.id} ({s.game.title})."):
            await self._say(
                interaction,
                f"🪑 You joined {s.game.title} ({len(s.players)}/{s.game.max_players} seated).",
            )
            if s.game.private_panel is PrivatePanel.DM:
                await self.replies.check_dms(interaction, s)

    @app_commands.command(name="bot", description="Seat a bot player in the lobby (host only)")
    @app_commands.describe(level="How well it plays (normal: the game's own player)")
    @app_commands.choices(
        level=[app_commands.Choice(name=level, value=level) for level in ("easy", "normal", "hard")]
    )
    async def bot(
        self, interaction: discord.Interaction[Any], level: app_commands.Choice[str] | None = None
    ) -> None:
        s = await self._open_session(interaction)
        chosen = level.value if level is not None else "normal"
        s = await self._soon(
            interaction, self.service.add_robot(s.id, str(interaction.user.id), chosen)
        )
        await self._say(
            interaction,
            f"{s.players[-1].name} took a seat ({len(s.players)}/{s.game.max_players}).",
        )

    @app_commands.command(name="leave", description="Leave the lobby in this channel")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        s = await self._open_session(interaction)
        await self._soon(interaction, self.service.leave(s.id, str(interaction.user.id)))
        async with committed(f"You left game #{s.id} ({s.game.title})."):
            await self._say(interaction, "👋 You left the table.")

    @app_commands.command(name="start", description="Start the game in this channel (host only)")
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        s = await self._open_session(interaction)
        s = await self._soon(interaction, self.service.start(s.id, str(interaction.user.id)))
        async with committed(f"Game #{s.id} ({s.game.title}) has started."):
            await self._say(interaction, f"🎲 {s.game.title} has started!")

    @app_commands.command(name="status", description="Show the table of the game in this channel")
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        # After the end, the last game's result (the table as it ended).
        s = await self._soon(interaction, self.service.latest_in_channel(_channel_id(interaction)))
        if s is None:
            raise NotFound("There's no game in this channel. Start one with `/game new`.")
        table = await self._soon(interaction, self.screens.table_payload(s))
        link = _message_link(interaction, s.row.channel_id, s.row.table_message_id)
        text = f"The table message{link} is kept up to date." if link else None
        await self.replies.show(interaction, table, text)

    @app_commands.command(name="hand", description="Show your private hand here, just for you")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        s = await self._soon(interaction, self.service.open_in_channel(_channel_id(interaction)))
        uid = str(interaction.user.id)
        if s is None or s.player(uid) is None:
            mine = await self._soon(interaction, self.service.open_sessions_of(uid))
            where = ", ".join(f"<#{r.channel_id}>" for r in mine)
            hint = f" You're playing in {where} — use `/game hand` there." if where else ""
            raise NotFound(f"You're not playing a game in this channel.{hint}")
        if s.game.private_panel is PrivatePanel.NEVER:
            raise UserError(f"{s.game.title} has no hidden hand: everything is on the table.")
        await self.replies.send_private_view(interaction, s.id)

    @app_commands.command(name="undo", description="Ask to take back your last move")
    async def undo(self, interaction: discord.Interaction[Any]) -> None:
        s = await self._open_session(interaction)
        answer = await self._soon(
            interaction, self.service.ask_undo(s.id, str(interaction.user.id))
        )
        text = names_in(answer.text, s.names())
        async with committed(text):
            await self._say(interaction, text)

    @app_commands.command(
        name="mine", description="Every game you're seated in, across servers (works in DMs too)"
    )
    async def mine(self, interaction: discord.Interaction[Any]) -> None:
        games = await self._soon(interaction, self.service.seated_games(str(interaction.user.id)))

        def place(row: SessionRow) -> str:
            guild = interaction.client.get_guild(row.guild_id) if row.guild_id else None
            channel = guild.get_channel_or_thread(row.channel_id) if guild else None
            label = f"#{channel.name}" if channel is not None else "the table"
            if guild is not None:
                label += f" in {guild.name}"
            link = jump_link(row.guild_id, row.channel_id, row.table_message_id)
            return f"[{label}]({link})"

        await self.replies.reply(interaction, None, embed=seated_games_embed(games, place))

    @app_commands.command(name="rules", description="How to play a game, in a few screens")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(
        self, interaction: discord.Interaction[Any], game: app_commands.Choice[str]
    ) -> None:
        chosen = REGISTRY.get(game.value)
        if chosen is None:
            raise NotFound("I don't know that game.")
        embed, view = self.screens.help_page(chosen, 0)
        await self.replies.reply(interaction, None, embed=embed, view=view)

    @app_commands.command(name="help", description="What cafebot does, and how to play each game")
    @app_commands.choices(game=GAME_CHOICES)
    async def help(
        self, interaction: discord.Interaction[Any], game: app_commands.Choice[str] | None = None
    ) -> None:
        if game is not None:
            chosen = REGISTRY.get(game.value)
            if chosen is None:
                raise NotFound("I don't know that game.")
            embed, view = self.screens.help_page(chosen, 0)
            await self.replies.reply(interaction, None, embed=embed, view=view)
            return
        await self.replies.reply(interaction, None, embed=help_overview())

    @app_commands.command(name="abandon", description="End the game in this channel (host or mods)")
    async def abandon(self, interaction: discord.Interaction[Any]) -> None:
        # The stored row, not the loaded game: a damaged session must still be abandonable.
        row = await self._soon(
            interaction, self.service.open_row_in_channel(_channel_id(interaction))
        )
        if row is None:
            raise NotFound("There's no game in this channel. Start one with `/game new`.")
        allowed = str(interaction.user.id) == row.host_id or interaction.permissions.manage_channels
        if not allowed:
            raise NotAllowed("Only the host or someone with Manage Channels can abandon the game.")
        title = REGISTRY[row.game_id].title if row.game_id in REGISTRY else "game"
        await self.replies.reply(
            interaction,
            f"Abandon this game of {title} (#{row.id})? Nobody can continue it afterwards.",
            view=self.screens.abandon_view(row.id),
        )

    @app_commands.command(
        name="history", description="Games played in this server, with each game's record"
    )
    async def history(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None:
            raise UserError("Use this in a server.")
        page = await in_time(
            interaction,
            self.service.history(interaction.guild_id, 0, PER_PAGE),
            lambda: interaction.response.defer(thinking=True),
        )
        embed, view = history_screen(page, self.screens.items)
        # In the channel, for everyone at the table; the records come privately on request.
        if interaction.response.is_done():
            await interaction.followup.send(embed=embed, view=view)
        else:
            await interaction.response.send_message(embed=embed, view=view)

    @app_commands.command(
        name="stats", description="This server's leaderboard, or one player's record"
    )
    @app_commands.describe(
        game="One game: its ratings, this season and all time",
        player="This player's record instead (with a game: their rating history)",
    )
    @app_commands.choices(game=GAME_CHOICES)
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str] | None = None,
        player: discord.User | None = None,
    ) -> None:
        guild = interaction.guild
        if interaction.guild_id is None:
            raise UserError("Use this in a server.")
        guild_id = interaction.guild_id
        guild_name = guild.name if guild is not None else "this server"
        game_id = game.value if game is not None else None
        if game_id is not None and game_id not in REGISTRY:
            raise NotFound("I don't know that game.")
        if player is not None and game_id is not None and not REGISTRY[game_id].cooperative:
            history = await self._soon(
                interaction, self.service.rating_history(guild_id, game_id, str(player.id))
            )
            lines = await self.service.player_record(guild_id, str(player.id), game_id)
            name = await self._name_of(guild, player)
            embed = rating_history_embed(name, history, lines, guild_name)
        elif player is not None:
            lines = await self._soon(
                interaction, self.service.player_record(guild_id, str(player.id), game_id)
            )
            name = await self._name_of(guild, player)
            embed = record_embed(name, lines, guild_name, game_id)
        elif game_id is not None:
            rated = await self._soon(interaction, self.service.rating_board(guild_id, game_id))
            embed = rating_board_embed(rated, guild_name)
        else:
            board = await self._soon(interaction, self.service.leaderboard(guild_id, game_id))
            embed = leaderboard_embed(board, guild_name)
        await self.replies.reply(interaction, None, embed=embed)

    season = app_commands.Group(
        name="season", description="This server's seasons: ratings that start afresh"
    )

    @season.command(name="start", description="Start a season (Manage Server)")
    @app_commands.describe(name="The season's name (default: Season 1, 2, …)")
    async def season_start(
        self, interaction: discord.Interaction[Any], name: str | None = None
    ) -> None:
        guild_id = _manager_guild(interaction)
        started = await self.service.start_season(guild_id, name, str(interaction.user.id))
        text = (
            f"🏁 **{started.name}** has begun! Every game finished from now on counts for it "
            "as well as for all time: `/game stats` with a game shows both."
        )
        await interaction.response.send_message(text)

    @season.command(name="end", description="End the season and post its final table")
    async def season_end(self, interaction: discord.Interaction[Any]) -> None:
        guild_id = _manager_guild(interaction)
        ended = await self.service.end_season(guild_id, _channel_id(interaction))
        await self.replies.reply(
            interaction,
            f"**{ended.name}** is over: its final table is posted here (once it has games).",
        )

    async def _name_of(self, guild: discord.Guild | None, user: discord.abc.Snowflake) -> str:
        """A user option's name. Discord may send the option without its resolved user (an id
        the client did not resolve: discord.py then gives a bare ``discord.Object``): the
        server's member, else the name of the user's latest game, else their id."""
        name = getattr(user, "display_name", None)
        if isinstance(name, str):
            return name
        member = guild.get_member(user.id) if guild is not None else None
        if member is not None:
            return member.display_name
        known = await self.service.known_name(str(user.id))
        return known if known is not None else f"User {user.id}"


def help_overview() -> discord.Embed:
    embed = discord.Embed(
        title="☕ cafebot — café board games in your server",
        description=(
            "`/game new` opens a lobby here; friends press **Join**, the host presses **Start**. "
            "Secret hands come by DM (or `/game hand`); the table stays up to date in one "
            "message, and the play-by-play goes to its thread. When it is your move the thread "
            "says so; it pings you only if you have been away from that game for a few minutes."
        ),
        colour=0xC8814B,
    )
    embed.add_field(
        name="Commands",
        value=(
            "`/game new` · `/game join` · `/game bot` · `/game leave` · `/game start`\n"
            "`/game status` · `/game hand` · `/game undo` · `/game abandon`\n"
            "`/game mine` (works in DMs) · `/game history` (and **Replay**) · `/game stats` · "
            "`/game help`\n"
            "`/game bot level:…`: the host seats a bot player (easy, normal or hard)\n"
            "`/game season start` / `end` (Manage Server): ratings that start afresh\n"
            "`/game rules game:…` (or `/game help game:…`, or **How to play** in a lobby): "
            "the rules, page by page"
        ),
        inline=False,
    )
    for g in REGISTRY.values():
        embed.add_field(
            name=f"{g.title} · {g.min_players}–{g.max_players} players",
            value=g.summary[:1024],
            inline=False,
        )
    return embed


def _channel_id(interaction: discord.Interaction[Any]) -> int:
    if interaction.channel_id is None:
        raise UserError("Use this in a server channel or thread.")
    return interaction.channel_id


def _message_link(
    interaction: discord.Interaction[Any], channel_id: int, message_id: int | None
) -> str:
    if message_id is None or interaction.guild_id is None:
        return ""
    return f" (https://discord.com/channels/{interaction.guild_id}/{channel_id}/{message_id})"


def _manager_guild(interaction: discord.Interaction[Any]) -> int:
    """The server, if the user may manage it (seasons are the server's admins' to run)."""
    if interaction.guild_id is None:
        raise UserError("Use this in a server.")
    if not interaction.permissions.manage_guild:
        raise NotAllowed(
            "Only someone with Manage Server can start or end a season — ask a server admin."
        )
    return interaction.guild_id
