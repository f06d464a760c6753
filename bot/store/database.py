"""The SQLite connection: opening, pragmas, migrations, and the one way to write (a transaction).

One aiosqlite connection per process. Writes go through `transaction()`, which holds an asyncio lock
so that two coroutines never interleave statements inside one BEGIN ... COMMIT.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bot.store.migrations import migrate

log = logging.getLogger(__name__)


class Database:
    """An open store file. Use `async with Database.open(path) as db:` or open()/close()."""

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path | str, *, migrate_to: int | None = None) -> Database:
        """Open (creating the file and its folder on first run) and bring the schema up to date."""
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        connection = await aiosqlite.connect(path, isolation_level=None)
        connection.row_factory = aiosqlite.Row
        await connection.execute("PRAGMA journal_mode = WAL")
        await connection.execute("PRAGMA foreign_keys = ON")
        await connection.execute("PRAGMA synchronous = NORMAL")
        await connection.execute("PRAGMA busy_timeout = 10000")
        try:
            before = await (migrate(connection) if migrate_to is None else migrate(connection, migrate_to))
        except BaseException:
            await connection.close()
            raise
        log.info("store %s opened (schema was version %d)", path, before)
        return cls(connection, path)

    async def close(self) -> None:
        await self.connection.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; nothing half-written survives."""
        async with self._write_lock:
            await self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self.connection
            except BaseException:
                await self.connection.rollback()
                raise
            await self.connection.commit()

    async def fetch_one(self, sql: str, parameters: Iterable[Any] = ()) -> aiosqlite.Row | None:
        rows = await self.fetch_all(sql, parameters)
        return rows[0] if rows else None

    async def fetch_all(self, sql: str, parameters: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        """One hand-off to the database thread (execute + fetchall + close would take three)."""
        return list(await self.connection.execute_fetchall(sql, tuple(parameters)))

    async def schema_version(self) -> int:
        row = await self.fetch_one("PRAGMA user_version")
        return int(row[0]) if row else 0
