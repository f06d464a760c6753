"""The SQLite connection: opening, pragmas, migrations, and the one way to write (a transaction).

One aiosqlite connection per process. Writes go through `transaction()`, which holds an asyncio lock
so that two coroutines never interleave statements inside one BEGIN ... COMMIT.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sized
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bot.store.migrations import SchemaTooNew, migrate

log = logging.getLogger(__name__)


def placeholders(values: Sized) -> str:
    """The `?, ?, ...` of an SQL `IN (...)` list with one parameter per value."""
    return ",".join("?" * len(values))


class StoreError(Exception):
    """The store cannot be used as given (not a database, a folder, not writable); the text says which."""


def _explain(path: Path, error: Exception) -> StoreError:
    if isinstance(error, SchemaTooNew):
        return StoreError(f"{path}: {error}")
    text = str(error).lower()
    if path.is_dir():
        return StoreError(f"{path} is a folder, not a database file")
    if "not a database" in text or "malformed" in text:
        return StoreError(f"{path} is not an interview-bot database (the file was left untouched)")
    if "readonly" in text or "read-only" in text or isinstance(error, PermissionError):
        return StoreError(f"{path} is not writable: the bot needs to write its store")
    if "unable to open" in text or isinstance(error, OSError):
        return StoreError(f"cannot open the store {path}: {getattr(error, 'strerror', None) or error}")
    return StoreError(f"{path}: {error}")


async def _check_writable(connection: aiosqlite.Connection) -> None:
    """Write the schema version back in a transaction that is rolled back: a read-only file or mount
    fails here, at start, instead of at the first answer someone gives."""
    [(version,)] = await connection.execute_fetchall("PRAGMA user_version")
    await connection.execute("BEGIN IMMEDIATE")
    try:
        await connection.execute(f"PRAGMA user_version = {int(version)}")
    finally:
        await connection.execute("ROLLBACK")


class StoreGone(StoreError):
    """The store file was deleted or replaced while the bot ran: nothing more may be acknowledged."""


class Database:
    """An open store file. Use `async with Database.open(path) as db:` or open()/close()."""

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path
        self._write_lock = asyncio.Lock()
        self._identity = self._file_identity()
        self.gone = asyncio.Event()  # set once the file is found deleted or replaced; the runner exits on it

    def _file_identity(self) -> tuple[int, int] | None:
        if str(self.path) == ":memory:":
            return None
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def _check_present(self) -> None:
        """Writes go to an open handle: a deleted file would take them silently and a restart would find an
        empty store. So every write first checks that the file at the path is still the one opened."""
        if self._identity is None:
            return
        if self._file_identity() != self._identity:
            self.gone.set()
            raise StoreGone(f"the store {self.path} was deleted or replaced while running; stopping so that "
                            f"nothing more is acknowledged (restart to open it again)")

    @classmethod
    async def open(cls, path: Path | str, *, migrate_to: int | None = None) -> Database:
        """Open (creating the file and its folder on first run) and bring the schema up to date."""
        path = Path(path)
        try:
            if str(path) != ":memory:":
                path.parent.mkdir(parents=True, exist_ok=True)
                if path.is_dir():
                    raise IsADirectoryError(path)
            connection = await aiosqlite.connect(path, isolation_level=None)
        except (OSError, sqlite3.Error) as error:
            raise _explain(path, error) from error
        connection.row_factory = aiosqlite.Row
        try:  # the connection's thread must end whatever fails here, or the process never exits
            await connection.execute("PRAGMA busy_timeout = 10000")
            await connection.execute("PRAGMA journal_mode = WAL")
            await connection.execute("PRAGMA foreign_keys = ON")
            await connection.execute("PRAGMA synchronous = NORMAL")
            before = await (migrate(connection) if migrate_to is None else migrate(connection, migrate_to))
            await _check_writable(connection)
        except BaseException as error:
            await connection.close()
            if isinstance(error, (sqlite3.Error, OSError)):
                raise _explain(path, error) from error
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
            self._check_present()
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
