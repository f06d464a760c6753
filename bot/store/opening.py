"""Opening the store: a path (or sqlite:///path) is a SQLite file, postgresql://... a PostgreSQL database.

This is the one module that knows both engines; it sits above them (and above bot.store.backend, the
interface they implement) and registers `open_store` as `Database.open`, so that nothing below looks up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.store.backend import Database, StoreError

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"


@dataclass(frozen=True)
class Target:
    """Where a store lives: a SQLite file path, or a PostgreSQL URL."""

    dialect: str  # 'sqlite' or 'postgresql'
    location: str


def parse_target(target: str | Path) -> Target:
    """What INTERVIEW_BOT_DB or --db names. sqlite:///relative/file and sqlite:////absolute/file follow
    the usual URL convention; any other text is a file path."""
    text = str(target)
    if text.startswith(POSTGRES_SCHEMES):
        return Target("postgresql", text)
    if text.startswith(SQLITE_SCHEME):
        text = text[len(SQLITE_SCHEME):]
        if not text:
            raise StoreError("sqlite:/// needs a file path after it")
    elif "://" in text:
        raise StoreError(f"{text.split('://', 1)[0]}:// is not a store this bot knows: "
                         f"give a file path, sqlite:///path or postgresql://user@host:port/database")
    return Target("sqlite", text)


async def open_store(target: str | Path, migrate_to: int | None = None) -> Database:
    """Open the store named by `target` and bring its schema up to date. Each engine is imported when
    first asked for (a SQLite deployment never loads asyncpg)."""
    where = parse_target(target)
    if where.dialect == "postgresql":
        from bot.store.postgres_backend import PostgresDatabase

        return await PostgresDatabase.open_url(where.location, migrate_to=migrate_to)
    from bot.store.sqlite_backend import SQLiteDatabase

    return await SQLiteDatabase.open_file(Path(where.location), migrate_to=migrate_to)


Database.opener = open_store
