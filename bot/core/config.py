"""Settings, from config.toml and the environment (CAFEBOT_*, DISCORD_TOKEN).

Precedence: environment over config.toml over defaults. The token is a SecretStr so it is never
printed by accident.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.core.errors import ConfigError

DEFAULT_CONFIG_PATH = Path("config.toml")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CAFEBOT_", extra="forbid")

    discord_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("DISCORD_TOKEN", "CAFEBOT_DISCORD_TOKEN", "discord_token"),
        description="The bot token from the Discord developer portal.",
    )
    database_path: Path = Field(default=Path("cafebot.sqlite3"), description="SQLite file.")
    default_turn_timeout: int = Field(
        default=86400, ge=60, le=604800, description="Seconds a game waits for a player by default."
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(default="INFO")
    dev_guild_id: int | None = Field(
        default=None, description="Sync slash commands to this guild only (instant)."
    )
    sqlite_synchronous: Literal["FULL", "NORMAL"] = Field(
        default="FULL", description="FULL: every acknowledged move survives power loss."
    )
    stats_path: Path | None = Field(
        default=None,
        description="For benchmarks: write the bot's counters (renders, clicks) here as JSON "
        "when it stops.",
    )
    # For tests against the local Discord emulator: where discord.py sends REST and gateway traffic.
    discord_api_base: str | None = Field(default=None)
    discord_gateway: str | None = Field(default=None)
    guild_ready_timeout: float = Field(default=2.0, ge=0)
    dm_edit_interval: float = Field(
        default=1.0,
        ge=0,
        le=60,
        description="Seconds between edits of one player's DM caused by other players' moves "
        "(a player's own clicks update their DM at once); changes in between are shown together.",
    )
    bot_player_delay: float = Field(
        default=2.0,
        ge=0,
        le=60,
        description="Seconds a bot player takes for a move, on average (it varies a little, "
        "as a person's would).",
    )
    playground_host: str = Field(
        default="127.0.0.1",
        description="Where `python -m bot play` serves its page (0.0.0.0: your whole network).",
    )
    playground_port: int = Field(default=8080, ge=0, le=65535)
    undo_wait: float = Field(
        default=60.0,
        ge=10,
        le=3600,
        description="Seconds the other players have to object to an undo (/game undo) that "
        "concerns them; without an objection it is granted then.",
    )
    table_edit_interval: float = Field(
        default=1.0,
        ge=0,
        le=60,
        description="Seconds between edits of a table message (Discord rate-limits channel "
        "message edits); changes in between are shown together.",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (env_settings, init_settings)


def load_settings(path: Path | None = None) -> Settings:
    """Load settings; raise ConfigError with one clear line on any bad value."""
    file_values: dict[str, Any] = {}
    config_path = path or DEFAULT_CONFIG_PATH
    if config_path.exists():
        try:
            raw = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{config_path}: not valid TOML ({exc})") from None
        file_values = dict(raw.get("cafebot", raw))
    try:
        return Settings(**file_values)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "config"
        where = f"{config_path}" if config_path.exists() else "environment"
        raise ConfigError(f"config error: {key}: {err['msg']} (from {where})") from None
