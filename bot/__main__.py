"""Entry point: `python -m bot` runs the bot; `python -m bot simulate …` plays games offline;
`python -m bot migrate-db --from … --to …` copies a database (e.g. SQLite to PostgreSQL)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.core.config import load_settings
from bot.core.errors import ConfigError

NO_TOKEN_HELP = """\
cafebot has no Discord token, so it cannot connect to Discord.

To add one:
  1. Create an application and a bot at https://discord.com/developers/applications
     (Bot → Reset Token), and invite it with the link shown in README.md ("Deploying").
  2. Either export it:            export DISCORD_TOKEN=your-token
     or copy the example config:  cp config.example.toml config.toml  (and set discord_token)
  3. Run `make run` again.

Meanwhile, see every game work without Discord:
  .venv/bin/python -m bot simulate --game all --players 4 --games 20 --seed 1
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="cafebot")
    parser.add_argument("--config", type=Path, default=None, help="path to config.toml")
    sub = parser.add_subparsers(dest="command")
    sim = sub.add_parser("simulate", help="play full games with random players, no Discord")
    sim.add_argument("--game", default="all", help="a game id, or 'all'")
    sim.add_argument("--players", type=int, default=None, help="players per game (default: all)")
    sim.add_argument("--games", type=int, default=20, help="games per game type")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument(
        "--strategy", default="random", help="'random', a game's own strategy, or 'all'"
    )
    copy = sub.add_parser(
        "migrate-db",
        help="copy every game to another database (stop the bot first), then check the copy",
    )
    copy.add_argument("--from", dest="source", required=True, help="e.g. sqlite:///cafebot.sqlite3")
    copy.add_argument("--to", dest="target", required=True, help="e.g. postgresql://user@host/db")
    args = parser.parse_args(argv)

    if args.command == "simulate":
        return _simulate(args)
    if args.command == "migrate-db":
        return _migrate_db(args.source, args.target)
    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    from bot.app import run_bot  # imported late: discord.py is slow to import

    return run_bot(settings)


def _simulate(args: argparse.Namespace) -> int:
    from bot.core.simulate import run_simulation
    from games import REGISTRY

    if args.game != "all" and args.game not in REGISTRY:
        print(f"unknown game {args.game!r}; known: {', '.join(REGISTRY)}, all", file=sys.stderr)
        return 2
    if args.games < 1 or (args.players is not None and args.players < 1):
        print("--games and --players must be at least 1", file=sys.stderr)
        return 2
    game_ids = list(REGISTRY) if args.game == "all" else [args.game]
    summaries = asyncio.run(
        run_simulation(
            game_ids,
            players=args.players,
            games=args.games,
            seed=args.seed,
            strategy=args.strategy,
        )
    )
    for summary in summaries:
        print(summary.line())
    failed = [s for s in summaries if not s.ok]
    for summary in failed:
        if summary.first_error:
            print(f"\nfirst error in {summary.game_id}:\n{summary.first_error}", file=sys.stderr)
    return 1 if failed else 0


def _migrate_db(source: str, target: str) -> int:
    from bot.core.migrate import MigrationRefused, migrate_database
    from bot.core.store import StorageUnusable, check_url

    for url in (source, target):
        try:
            check_url(url)
        except ValueError as exc:
            print(f"{url}: {exc}", file=sys.stderr)
            return 2
    try:
        report = asyncio.run(migrate_database(source, target, progress=print))
    except (StorageUnusable, MigrationRefused) as exc:
        print(f"migrate-db: {exc}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    if not report.ok:
        print("the copy is NOT faithful: keep using the source database", file=sys.stderr)
        return 1
    print("the copy is complete: point database_url at the target and start the bot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
