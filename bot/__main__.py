"""Entry point: `python -m bot` runs the bot (without a token: the playground); `python -m bot
play` serves the local playground; `python -m bot simulate …` plays games offline; `python -m
bot verify RECORD.json` checks a game's record; `python -m bot migrate-db --from … --to …`
copies a database (e.g. SQLite to PostgreSQL); `python -m bot arena …` plays bot levels against
each other; `python -m bot rebuild-ratings` computes every rating again from the stored results."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from bot.core.config import Settings, load_settings
from bot.core.errors import ConfigError

NO_TOKEN = (
    "No Discord token, so here is the local playground instead (to play in Discord: "
    "export DISCORD_TOKEN=… or set discord_token in config.toml; README.md says how)."
)


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
    play = sub.add_parser(
        "play", help="play every game in your browser: the real bot with a local Discord"
    )
    play.add_argument("--host", default=None, help="address to serve on (default 127.0.0.1)")
    play.add_argument("--port", type=int, default=None, help="port to serve on (default 8080)")
    play.add_argument(
        "--users", default="Alice,Bob,Carol,Dave", help="local users, comma-separated"
    )
    check = sub.add_parser(
        "verify",
        help="check a game's record (from /game history): the sealed deal and every move",
    )
    check.add_argument("record", type=Path, help="the record's JSON file")
    copy = sub.add_parser(
        "migrate-db",
        help="copy every game to another database (stop the bot first), then check the copy",
    )
    copy.add_argument("--from", dest="source", required=True, help="e.g. sqlite:///cafebot.sqlite3")
    copy.add_argument("--to", dest="target", required=True, help="e.g. postgresql://user@host/db")
    arena = sub.add_parser("arena", help="bot levels play each other: win share by level")
    arena.add_argument("--game", required=True, help="a game id")
    arena.add_argument("--players", type=int, default=2, help="players per game")
    arena.add_argument("--seats", default="hard,normal", help="levels by seat, e.g. hard,normal")
    arena.add_argument("--games", type=int, default=40, help="games to play")
    arena.add_argument(
        "--mode", default=None, help="the game's named player that plays normal (e.g. greedy-L2)"
    )
    arena.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option (repeatable), e.g. mode=full-pancake",
    )
    arena.add_argument("--simulations", type=int, default=100, help="a hard move's simulations")
    arena.add_argument("--workers", type=int, default=2, help="worker processes")
    arena.add_argument("--seed", type=int, default=1)
    rebuild = sub.add_parser(
        "rebuild-ratings", help="compute every rating again from the stored results"
    )
    rebuild.add_argument(
        "--database", default=None, help="a database URL (default: the configured one)"
    )
    args = parser.parse_args(argv)

    if args.command == "simulate":
        return _simulate(args)
    if args.command == "verify":
        return _verify(args.record)
    if args.command == "arena":
        return _arena(args)
    if args.command == "migrate-db":
        return _migrate_db(args.source, args.target)
    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "rebuild-ratings":
        return _rebuild_ratings(args.database or settings.database)
    if args.command == "play":
        return _play(settings, args.host, args.port, args.users)
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print(NO_TOKEN, file=sys.stderr, flush=True)
        return _play(settings, None, None, "Alice,Bob,Carol,Dave")
    from bot.app import run_bot  # imported late: discord.py is slow to import

    return run_bot(settings)


def _play(settings: Settings, host: str | None, port: int | None, users: str) -> int:
    names = tuple(dict.fromkeys(n.strip()[:32] for n in users.split(",") if n.strip()))
    if not names:
        print("--users needs at least one name", file=sys.stderr)
        return 2
    if port is not None and not 0 <= port <= 65535:
        print("--port must be between 0 and 65535", file=sys.stderr)
        return 2
    from bot.playground.run import run_playground  # imported late: discord.py is slow to import

    return run_playground(settings, host=host, port=port, users=names)


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


def _arena(args: argparse.Namespace) -> int:
    from bot.core.arena import parse_seats, run_arena
    from games import REGISTRY

    game = REGISTRY.get(args.game)
    if game is None:
        print(f"unknown game {args.game!r}; known: {', '.join(REGISTRY)}", file=sys.stderr)
        return 2
    if not game.min_players <= args.players <= game.max_players:
        print(f"{game.title} takes {game.min_players}–{game.max_players} players", file=sys.stderr)
        return 2
    if args.games < 1 or args.simulations < 1 or args.workers < 1:
        print("--games, --simulations and --workers must be at least 1", file=sys.stderr)
        return 2
    if args.mode is not None and args.mode not in game.strategies():
        known = ", ".join(game.strategies()) or "none"
        print(f"{game.title} has no player {args.mode!r}; known: {known}", file=sys.stderr)
        return 2
    try:
        seats = parse_seats(args.seats)
        options = _game_options(game, args.option)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    result = run_arena(
        game.id,
        args.players,
        seats,
        games=args.games,
        seed=args.seed,
        mode=args.mode,
        simulations=args.simulations,
        workers=args.workers,
        options=options,
    )
    print("\n".join(result.lines()))
    return 0


def _game_options(game: Any, pairs: list[str]) -> dict[str, Any]:
    """``--option KEY=VALUE`` pairs, as the game's options check them (ValueError: why not)."""
    from games.engine import IllegalAction

    raw: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option needs KEY=VALUE, e.g. mode=full-pancake (got {pair!r})")
        raw[key.strip()] = value.strip()
    try:
        game.parse_options(raw)
    except IllegalAction as exc:
        raise ValueError(f"{game.title}: {exc}") from None
    return raw


def _verify(path: Path) -> int:
    """0: the record checks out; 1: it does not (the first thing wrong is printed); 2: it
    cannot be read."""
    from bot.core.record import RecordError, parse_record, scores_line, verify
    from games import REGISTRY

    try:
        record = parse_record(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 2
    game = REGISTRY.get(record.game)
    title = game.title if game is not None else record.game
    who = ", ".join(record.names.get(p, p) for p in record.players)
    print(f"{title}, game #{record.session} ({record.status}), seed {record.seed}: {who}")
    verdict = verify(record)
    for line in verdict.lines:
        print(line)
    if not verdict.ok:
        return 1
    if verdict.outcome is not None:
        print("Final scores: " + scores_line(verdict.outcome, record.names))
    else:
        print(f"The game was {record.status} before its end: no final scores.")
    return 0


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


def _rebuild_ratings(url: str) -> int:
    from bot.core.store import StorageUnusable, check_url, open_store, sqlite_path

    try:
        path = sqlite_path(check_url(url))
    except ValueError as exc:
        print(f"{url}: {exc}", file=sys.stderr)
        return 2
    if path is not None and not path.exists():
        print(f"rebuild-ratings: there is no database at {path}", file=sys.stderr)
        return 2

    async def rebuild() -> int:
        # As the owner: refused while the bot serves this SQLite file (stop it first).
        store = await open_store(url, owner=True)
        try:
            return await store.rebuild_ratings()
        finally:
            await store.close()

    try:
        rated = asyncio.run(rebuild())
    except StorageUnusable as exc:
        print(f"rebuild-ratings: {exc}", file=sys.stderr)
        return 2
    print(f"{rated} game(s) rated again from their results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
