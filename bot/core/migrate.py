"""Copy a cafebot database to another (``python -m bot migrate-db --from … --to …``), typically
an existing SQLite file to PostgreSQL when the bot grows past one process.

The source is only read (SQLite: ``mode=ro``, never created nor written, its file left byte
for byte as it was; PostgreSQL: read-only transactions); a missing one is refused, and so is a
bot still running on it (stop it first: moves made after the copy would be lost). The target must be empty; its schema is created by
the same migrations. Every row is copied with its id, in one transaction. Then the copy is
checked: the same number of rows in every table, every session's stored state the same as the
source's, and every started session replayed from its seed and action log to that state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.core.errors import UserError
from bot.core.sessions import SessionService
from bot.core.store import Store, open_store
from bot.core.store.base import DATA_TABLES as TABLES  # schema_version: the target's own


class MigrationRefused(Exception):
    """The copy cannot start (e.g. the target is not empty); ``str()`` says why."""


@dataclass
class CopyReport:
    rows: dict[str, int] = field(default_factory=dict)
    replayed: int = 0  # sessions replayed to their stored state
    not_started: int = 0  # lobbies: nothing to replay
    damaged: list[str] = field(default_factory=list)  # could not be loaded in the source either
    problems: list[str] = field(default_factory=list)  # the copy differs: must be empty

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        copied = ", ".join(f"{count} {table}" for table, count in self.rows.items())
        out = [f"copied {copied}"]
        out.append(
            f"checked: {self.replayed} session(s) replayed to their stored state, "
            f"{self.not_started} lobby(ies) with nothing to replay"
        )
        out += [f"damaged in the source too (copied as is): {d}" for d in self.damaged]
        out += [f"PROBLEM: {p}" for p in self.problems]
        return out


async def migrate_database(
    source_url: str, target_url: str, progress: Callable[[str], None] = lambda _: None
) -> CopyReport:
    source = await open_store(source_url, read_only=True)
    try:
        target = await open_store(target_url)
        try:
            return await _copy_and_check(source, target, progress)
        finally:
            await target.close()
    finally:
        await source.close()


async def _copy_and_check(
    source: Store, target: Store, progress: Callable[[str], None]
) -> CopyReport:
    existing = await target.count_rows("sessions")
    if existing:
        raise MigrationRefused(
            f"the target database already holds {existing} session(s): migrate into an empty one"
        )
    report = CopyReport()
    tables = {table: await source.dump_table(table) for table in TABLES}
    progress("copying " + ", ".join(f"{len(rows)} {t}" for t, rows in tables.items()))
    await target.load_tables(tables)
    for table in TABLES:
        report.rows[table] = await target.count_rows(table)
        if report.rows[table] != len(tables[table]):
            report.problems.append(
                f"{table}: {len(tables[table])} rows in the source, {report.rows[table]} copied"
            )
    progress("replaying every session")
    copied, kept = SessionService(target), SessionService(source)
    originals = {int(r["id"]): r for r in tables["sessions"]}
    for session_id, original in originals.items():
        row = await target.get_session(session_id)
        if row is None or row.state != original["state"] or row.version != original["version"]:
            report.problems.append(f"session #{session_id} differs after the copy")
            continue
        if row.state is None:
            report.not_started += 1
            continue
        try:
            stored = await copied.load(session_id)
        except UserError as exc:
            report.damaged.append(f"#{session_id}: {exc.message}")
            continue
        try:
            replayed = await copied.replay(session_id)
        except Exception as exc:  # a log that no longer replays is a finding, not a crash
            report.problems.append(f"session #{session_id} does not replay: {exc}")
            continue
        if replayed == stored.state:
            report.replayed += 1
        elif await _replays_alike(kept, session_id, replayed):
            report.damaged.append(f"#{session_id}: its log does not replay in the source either")
        else:
            report.problems.append(f"session #{session_id} replays to another state")
    return report


async def _replays_alike(source: SessionService, session_id: int, replayed: object) -> bool:
    try:
        return await source.replay(session_id) == replayed
    except Exception:
        return False
