"""The SQLite store: one aiosqlite connection, pragmas, migrations, and one writer at a time.

Writes go through `transaction()`, which holds an asyncio lock so that two coroutines never interleave
statements inside one BEGIN IMMEDIATE ... COMMIT. Each statement is one hand-off to aiosqlite's thread,
exactly as before the backend seam: the wrapper adds a function call, not a round trip. A transaction
whose body awaits nothing but its own statements (`in_one_call`, `in_shared_call`: answer batches,
interview answers, new members) runs whole, under the same lock, on a third connection owned by the
event loop's thread (bot/store/sqlite_writer.py), within a CPU-time budget; what cannot run there goes
to aiosqlite's thread as one hand-off, as before.

Reads outside a transaction are mostly lookups by key (who clicked, which question, which post) that
SQLite answers in a few microseconds, while a hand-off to aiosqlite's thread and back costs 100-200 us
and wakes a second thread for the GIL. So a read first runs right here, on the event loop's thread, over
a second, query-only connection (WAL lets it read beside the writer, seeing what is committed), within
a time budget; a read over budget (its SQL then always goes there), a busy file, or any error goes to
aiosqlite's thread as before, so no read holds the event loop longer than the budget and every read
ends as it did.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.store.backend import SQLITE, Database, Result, Row, StoreError, StoreGone, Transaction
from bot.store.migrations import SchemaTooNew, migrate
from bot.store.sqlite_calls import _run_each_to_the_end, _run_to_the_end, violation
from bot.store.sqlite_reader import CACHED_STATEMENTS, LoopReader
from bot.store.sqlite_writer import Checkpointer, LoopWriter, NotHere

log = logging.getLogger(__name__)
T = TypeVar("T")
Here = TypeVar("Here", LoopReader, LoopWriter)
MAX_SHARED = 64  # bodies in one shared call: a bound on how long the first of them waits for its COMMIT
SLOW_REMEMBERED = 1_000  # SQL texts found over budget, sent straight to aiosqlite's thread from then on


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


async def _thread_ended(opening: aiosqlite.Connection | None) -> None:
    """aiosqlite stops a connection that failed to open without waiting for its thread, which then reports
    to a loop that may be closed by then: an 'Event loop is closed' traceback after our one clear line.
    Waiting for the thread here (aiosqlite exposes it only as `_thread`) ends it while the loop runs."""
    thread = getattr(opening, "_thread", None)
    if thread is not None and thread.is_alive():
        await asyncio.to_thread(thread.join, 5.0)


async def _check_writable(connection: aiosqlite.Connection) -> None:
    """Write the schema version back in a transaction that is rolled back: a read-only file or mount
    fails here, at start, instead of at the first answer someone gives."""
    [(version,)] = await connection.execute_fetchall("PRAGMA user_version")
    await connection.execute("BEGIN IMMEDIATE")
    try:
        await connection.execute(f"PRAGMA user_version = {int(version)}")
    finally:
        await connection.execute("ROLLBACK")


class SQLiteTransaction(Transaction):
    """Statements on the one connection, inside the BEGIN IMMEDIATE that `SQLiteDatabase.transaction` opened."""

    dialect = SQLITE

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self.connection = connection

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Result:
        try:
            cursor = await self.connection.execute(sql, tuple(parameters))
        except sqlite3.IntegrityError as error:
            raise violation(error) from error
        return Result(cursor.rowcount)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            await self.connection.executemany(sql, [tuple(row) for row in rows])
        except sqlite3.IntegrityError as error:
            raise violation(error) from error

    async def fetch_all(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        try:  # one hand-off, where execute + fetchall + close would take three
            return list(await self.connection.execute_fetchall(sql, tuple(parameters)))
        except sqlite3.IntegrityError as error:  # an INSERT ... RETURNING comes this way
            raise violation(error) from error


class SQLiteDatabase(Database):
    """An open store file."""

    dialect = SQLITE

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        super().__init__()
        self.connection = connection
        self.path = path
        self._write_lock = asyncio.Lock()
        self._identity = self._file_identity()
        self._transaction = SQLiteTransaction(connection)
        self._shared: list[tuple[Callable[[Transaction], Awaitable[Any]], asyncio.Future[Any]]] = []
        self._sharing: asyncio.Task[None] | None = None
        self._reader: LoopReader | None = None  # opened at the first read (fetch_all)
        self._reading_here = self._identity is not None  # not for :memory: (a second connection is another database)
        self._open_transactions = 0  # transaction() blocks open: reads then see them, on the one connection
        self._slow: set[str] = set()  # reads found over budget here (SLOW_REMEMBERED at most)
        self._writer: LoopWriter | None = None  # opened at the first one-call transaction
        self._writing_here = self._reading_here
        self._checkpointing: asyncio.Task[None] | None = None  # one at a time, beside the loop's writes
        self._checkpointer: Checkpointer | None = None  # made with the loop's writer

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
    async def open_file(cls, path: Path | str, *, migrate_to: int | None = None) -> SQLiteDatabase:
        """Open (creating the file and its folder on first run) and bring the schema up to date."""
        path = Path(path)
        opening: aiosqlite.Connection | None = None
        try:
            if str(path) != ":memory:":
                path.parent.mkdir(parents=True, exist_ok=True)
                if path.is_dir():
                    raise IsADirectoryError(path)
            opening = aiosqlite.connect(path, isolation_level=None, cached_statements=CACHED_STATEMENTS)
            connection = await opening
        except (OSError, sqlite3.Error) as error:
            await _thread_ended(opening)
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
        if self._sharing is not None and not self._sharing.done():
            await asyncio.wait([self._sharing])  # the shared calls already accepted are written first
        if self._checkpointing is not None and not self._checkpointing.done():
            await asyncio.wait([self._checkpointing])  # before the connection it runs on closes
        self._reading_here = self._writing_here = False
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._checkpointer is not None:
            await self._checkpointer.close()
            self._checkpointer = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        await self.connection.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SQLiteTransaction]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; nothing half-written survives."""
        async with self._write_lock:
            self._check_present()
            await self.connection.execute("BEGIN IMMEDIATE")
            self._open_transactions += 1  # a read meanwhile goes through the writer's connection, as it always did
            try:
                yield self._transaction
            except BaseException:
                await self.connection.rollback()
                raise
            finally:
                self._open_transactions -= 1
            await self.connection.commit()

    async def in_one_call(self, body: Callable[[Transaction], Awaitable[T]]) -> T:
        """The whole transaction in one go, where each statement used to be one hand-off to aiosqlite's
        thread (a daily answer batch took about ten; each costs more than the SQL it carries): on the event
        loop's own write connection, else as one hand-off (`_run`). aiosqlite has no public call for a
        hand-off: `_execute` is the one its own methods use, and without it the body runs statement by
        statement."""
        if not hasattr(self.connection, "_execute"):
            return await super().in_one_call(body)
        async with self._write_lock:
            self._check_present()
            return await self._run(_run_to_the_end, body)  # type: ignore[no-any-return]

    async def _run(self, work: Callable[..., T], argument: Any) -> T:
        """A one-call transaction (bot/store/sqlite_calls.py), under the write lock: right here on the
        event loop's write connection when it can run there (bot/store/sqlite_writer.py), else in
        aiosqlite's thread as one hand-off."""
        if self._writing_here:
            try:
                writer = self._writer or self._first_writer()
                result = writer.run(work, argument)
            except (NotHere, sqlite3.Error):
                pass
            else:
                if writer.checkpoint_due():
                    await self._checkpoint_after(writer)
                return result
        return await self.connection._execute(work, self.connection._conn, argument)

    def _first_writer(self) -> LoopWriter:
        """The loop's write connection (`_open_here`); writes stay on aiosqlite's thread without one."""
        writer = self._writer = self._open_here(LoopWriter)
        if writer is None:
            self._writing_here = False
            raise NotHere("no write connection on the event loop: writes stay on aiosqlite's thread")
        try:
            self._checkpointer = Checkpointer(self.path)
        except sqlite3.Error as error:
            writer.close()
            self._writer, self._writing_here = None, False
            raise NotHere(f"no connection for the checkpoints: writes stay on aiosqlite's thread ({error})") from error
        return writer

    def _open_here(self, kind: Callable[[Path], Here]) -> Here | None:
        """One of the event loop's own connections (LoopReader, LoopWriter), opened on the file this store
        opened; None when it cannot be opened or the file was replaced since (nothing is read from or
        written to another file than the store's)."""
        try:
            opened = kind(self.path)
        except sqlite3.Error:
            return None
        if self._file_identity() != self._identity:
            opened.close()
            return None
        return opened

    async def _checkpoint_after(self, writer: LoopWriter) -> None:
        """A checkpoint due after the loop's commits (bot/store/sqlite_writer.py): begun in a thread of its own
        while the writes go on, one at a time; waited for, under the write lock, when commits landed during
        the last one (so the WAL starts again from its beginning)."""
        if self._checkpointing is not None and not self._checkpointing.done():
            return  # its commits go on counting; the next commit asks again
        writer.checkpoint_begins()
        if writer.behind:
            await self._checkpoint(writer)
        else:
            self._checkpointing = asyncio.create_task(self._checkpoint(writer), name="wal-checkpoint")

    async def _checkpoint(self, writer: LoopWriter) -> None:
        """The WAL copied back into the database file, in a thread of its own (the loop's commits do not
        checkpoint: it syncs the file); passive, so readers and the loop's writer are not held up. The
        writer hears how many pages the WAL held and how many were copied."""
        assert self._checkpointer is not None, "made with the writer"
        try:
            pages, copied = await self._checkpointer.checkpoint()
        except sqlite3.Error as error:  # what was committed stands; the next checkpoint tries again
            log.warning("store %s: checkpoint failed: %s", self.path, error)
            pages, copied = 0, -1
        writer.checkpointed(pages, copied)

    async def in_shared_call(self, body: Callable[[Transaction], Awaitable[T]]) -> T:
        """`in_one_call` for bodies that may share one COMMIT: the bodies that arrive while a call is running
        go together in the next one (one transaction, one COMMIT), each standing or falling alone, run one
        after another as separate transactions would be. Concurrent interview answers are many small
        transactions; each used to pay its own hand-off and COMMIT."""
        if not hasattr(self.connection, "_execute"):
            return await super().in_shared_call(body)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._shared.append((body, future))
        if self._sharing is None or self._sharing.done():
            self._sharing = asyncio.create_task(self._share_all(), name="shared-calls")
        return await future  # type: ignore[no-any-return]

    async def _share_all(self) -> None:
        while self._shared:
            calls, self._shared = self._shared[:MAX_SHARED], self._shared[MAX_SHARED:]
            try:
                async with self._write_lock:
                    self._check_present()
                    outcomes = await self._run(_run_each_to_the_end, [body for body, _ in calls])
            except BaseException as error:  # BEGIN or COMMIT failed, or the store is gone: nothing was written
                for _, future in calls:
                    if not future.done():
                        future.set_exception(error)
                if not isinstance(error, Exception):
                    raise
                continue
            for (_, future), (ok, value) in zip(calls, outcomes):
                if future.done():  # its caller went away (cancelled); what it wrote stands
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

    async def fetch_all(self, sql: str, parameters: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        """Right here within the reader's budget (module docstring), else one hand-off to the database thread
        (execute + fetchall + close would take three). While a transaction() block is open the read goes
        through the writer's connection, so a coroutine reading outside its own open transaction still
        sees what it wrote, as before; so does a PRAGMA (it asks about the writer's connection)."""
        parameters = tuple(parameters)
        if (self._reading_here and not self._open_transactions and sql not in self._slow
                and sql.lstrip()[:6].upper() != "PRAGMA"):
            try:
                return (self._reader or self._first_reader()).fetch_all(sql, parameters)
            except sqlite3.OperationalError as error:  # over budget, the file busy, a write refused ...
                if str(error) == "interrupted" and len(self._slow) < SLOW_REMEMBERED:
                    self._slow.add(sql)
            except sqlite3.Error:
                pass  # ... or a real error: the usual way says which
        return list(await self.connection.execute_fetchall(sql, parameters))

    def _first_reader(self) -> LoopReader:
        """The loop's read connection (`_open_here`); reads stay on the writer's connection without one."""
        reader = self._reader = self._open_here(LoopReader)
        if reader is None:
            self._reading_here = False
            raise sqlite3.OperationalError("no read connection on the event loop: reads stay on the writer's")
        return reader

    async def schema_version(self) -> int:
        row = await self.fetch_one("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def table_parents(self) -> dict[str, set[str]]:
        rows = await self.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        parents: dict[str, set[str]] = {}
        for (name,) in rows:
            keys = await self.fetch_all(f'PRAGMA foreign_key_list("{name}")')
            parents[name] = {key["table"] for key in keys} - {name}
        return parents
