"""Settings, from config.toml and the environment (CAFEBOT_*, DISCORD_TOKEN).

Precedence: environment over config.toml over defaults. The token is a SecretStr so it is never
printed by accident.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AliasChoices,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from bot.core.errors import ConfigError
from bot.core.store import check_url, sqlite_path

DEFAULT_CONFIG_PATH = Path("config.toml")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CAFEBOT_", extra="forbid")

    discord_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("DISCORD_TOKEN", "CAFEBOT_DISCORD_TOKEN", "discord_token"),
        description="The bot token from the Discord developer portal.",
    )
    database_path: Path = Field(default=Path("cafebot.sqlite3"), description="SQLite file.")
    database_url: str | None = Field(
        default=None,
        description="sqlite:///path (one process) or postgresql://user:password@host/db "
        "(several); unset: sqlite:///<database_path>.",
    )
    database_pool_size: int = Field(default=10, ge=1, le=100, description="PostgreSQL only.")
    session_cache_size: int = Field(
        default=1000,
        ge=1,
        le=1_000_000,
        description="Games kept loaded in memory (the most recently played); an idle one is "
        "read from the database again at its next move.",
    )
    # Cluster mode: this process runs these shards of the bot (several processes need
    # PostgreSQL). cluster_index/cluster_count derive them: shards i with i % count == index.
    shard_count: int | None = Field(default=None, ge=1, le=10000)
    shard_ids: Annotated[list[int] | None, NoDecode] = Field(default=None)
    cluster_index: int | None = Field(default=None, ge=0)
    cluster_count: int | None = Field(default=None, ge=1, le=10000)
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
    bot_think_seconds: float = Field(
        default=0.3,
        ge=0.01,
        le=10,
        description="How long a hard bot player searches for a move, from when it is asked (in "
        "a worker process, within its pause); it plays the best it found by then.",
    )
    bot_think_workers: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Worker processes for hard bot players' searches (at most one core each, "
        "at idle priority; at most one fewer than the cores, so one stays the bot's).",
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
    post_coalesce_interval: float = Field(
        default=3.0,
        ge=0,
        le=60,
        description="In a quick game, seconds a play-by-play post waits so that the moves made "
        "meanwhile share its message (0: every move's post goes at once).",
    )
    ping_after_idle: float = Field(
        default=180.0,
        ge=0,
        le=86400,
        description="A turn notice pings the players it awaits only if they made no move in "
        "that game for this many seconds: a player at the table sees the notice without a "
        "ping, one who stepped away is called back (0: always ping).",
    )
    table_edit_interval: float = Field(
        default=1.0,
        ge=0,
        le=60,
        description="Seconds between edits of a table message (Discord rate-limits channel "
        "message edits); changes in between are shown together.",
    )
    rest_budget: int = Field(
        default=50,
        ge=0,
        le=100000,
        description="REST requests per second the bot allows itself in all (Discord's global "
        "limit is 50 per second, more for a bot Discord granted more): table and DM edits wait "
        "for room and are shown together, a click's own answer never waits (0: not paced).",
    )
    # For tests and benchmarks against the emulator with its windows scaled down: the window
    # the budget is counted over (Discord's: one second).
    rest_budget_window: float = Field(default=1.0, gt=0, le=60)

    metrics_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="Serve Prometheus metrics (/metrics) and a health check (/healthz) on this "
        "port (unset: off; 0: any free port).",
    )
    metrics_host: str = Field(
        default="127.0.0.1",
        description="Where the metrics are served (0.0.0.0: every interface, e.g. in Docker).",
    )

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        return None if value is None else check_url(value)

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_list(cls, value: Any) -> Any:
        if isinstance(value, str):  # from the environment: "0,1" or "[0, 1]"
            return [int(part) for part in value.strip("[] ").split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _cluster(self) -> Self:
        if self.cluster_count is not None or self.cluster_index is not None:
            if self.cluster_count is None or self.cluster_index is None:
                raise ValueError("cluster_index and cluster_count go together")
            if self.shard_ids is not None:
                raise ValueError("set shard_ids, or cluster_index and cluster_count, not both")
            if self.cluster_index >= self.cluster_count:
                raise ValueError("cluster_index must be below cluster_count (it counts from 0)")
            if self.shard_count is None:
                self.shard_count = self.cluster_count
            if self.shard_count < self.cluster_count:
                raise ValueError("shard_count must be at least cluster_count")
            self.shard_ids = list(range(self.cluster_index, self.shard_count, self.cluster_count))
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("shard_ids needs shard_count (all the bot's shards)")
            if not self.shard_ids or len(set(self.shard_ids)) != len(self.shard_ids):
                raise ValueError("shard_ids must list each shard once")
            if not all(0 <= s < self.shard_count for s in self.shard_ids):
                raise ValueError(f"shard_ids must be between 0 and {self.shard_count - 1}")
        several = self.cluster_count is not None and self.cluster_count > 1
        if several and sqlite_path(self.database) is not None:
            raise ValueError(
                "several bot processes (cluster_count > 1) need PostgreSQL: set database_url "
                "to postgresql://… (see README, Deploying)"
            )
        return self

    @property
    def database(self) -> str:
        """The database URL: database_url, else the SQLite file database_path."""
        return self.database_url or f"sqlite:///{self.database_path}"

    @property
    def sharded(self) -> bool:
        return self.shard_count is not None

    @property
    def syncs_commands(self) -> bool:
        """Slash commands are synced once for the whole bot: by the process running shard 0."""
        return self.shard_ids is None or 0 in self.shard_ids

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
