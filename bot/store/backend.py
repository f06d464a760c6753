"""The seam between the store modules and a database engine: one interface, SQLite or PostgreSQL behind it.

Store modules write `?` placeholders and portable SQL (upserts with ON CONFLICT, INSERT ... RETURNING id),
and reach the engine only through `Database` (reads outside a transaction) and `Transaction` (everything
inside one). What must differ between engines is named in `Dialect`, so no store module tests an engine
by name.
"""

from __future__ import annotations

import asyncio
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence, Sized
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

T = TypeVar("T")
Row = Any  # sqlite3.Row or asyncpg.Record: both answer row["name"] and row[0]


def placeholders(values: Sized) -> str:
    """The `?, ?, ...` of an SQL `IN (...)` list with one parameter per value."""
    return ",".join("?" * len(values))


class StoreError(Exception):
    """The store cannot be used as given (not a database, a folder, not writable, unreachable); the text says which."""


class StoreGone(StoreError):
    """The store file was deleted or replaced while the bot ran: nothing more may be acknowledged."""


class FailedAfterSaving(StoreError):
    """The store failed after an answer's transaction had committed (while what follows it was read): the
    answer is kept, and the one line a person sees must say so rather than 'not saved'."""

    answer_saved = True


def is_store_failure(error: BaseException) -> bool:
    """The store itself failed (locked, damaged, unreachable, gone) rather than the program: a user is told
    in one line, never shown a traceback. Both backends' own exceptions count (sqlite3's, asyncpg's)."""
    if isinstance(error, (StoreError, sqlite3.Error, OSError, ConnectionError)):
        return True
    return type(error).__module__.split(".")[0] == "asyncpg"


class IntegrityViolation(Exception):
    """A constraint refused a write (a foreign key, a check, a unique key); the transaction is void."""


class UniqueViolation(IntegrityViolation):
    """A unique key or index refused a second row with the same key."""


class StaleRead(Exception):
    """What a transaction read ahead of its locks had changed by the time it held them
    (`Transaction.expect_unchanged`): nothing of it was kept; run it again, reading under the locks."""


@dataclass(frozen=True)
class Result:
    """What a write statement did: how many rows it changed."""

    rowcount: int


@dataclass(frozen=True)
class Dialect:
    """Where the engines' SQL differs, for the few statements that cannot be written once.

    `same` compares two values treating NULL as equal to NULL (SQLite's IS, PostgreSQL's IS NOT
    DISTINCT FROM); `row_locks` says whether a SELECT can lock the rows it reads (PostgreSQL's
    FOR UPDATE / FOR SHARE; SQLite has none, and needs none: its writers take turns);
    `writes_in_with` whether a read through `Database.fetch_all` may hold an INSERT in a WITH (so a
    find-or-add is one round trip: PostgreSQL; SQLite's WITH cannot, and its reads may go to a
    read-only connection)."""

    name: str
    same: str
    row_locks: bool
    writes_in_with: bool = False

    def locking(self, mode: str, *tables: str) -> str:
        """The clause that ends a SELECT locking the rows it reads (mode 'UPDATE' or 'SHARE', of the
        given table aliases only, when named); empty where the engine has no row locks."""
        if not self.row_locks:
            return ""
        return f" FOR {mode}" + (f" OF {', '.join(tables)}" if tables else "")


SQLITE = Dialect("sqlite", "IS", False)
POSTGRESQL = Dialect("postgresql", "IS NOT DISTINCT FROM", True, writes_in_with=True)


class Transaction(ABC):
    """One open transaction: every statement in it commits together or not at all."""

    dialect: Dialect

    @abstractmethod
    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Result:
        """Run one statement; the result says how many rows it changed."""

    @abstractmethod
    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""

    @abstractmethod
    async def fetch_all(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """Rows of a query, as seen inside this transaction."""

    async def fetch_one(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        rows = await self.fetch_all(sql, parameters)
        return rows[0] if rows else None

    async def lock(self, kind: str, keys: Iterable[int | str]) -> None:
        """Hold, until this transaction ends, one lock per key of `kind` ('person', 'chat', 'item_fold'): for a
        read-then-write whose rows no single row lock covers (a person's beliefs and cards, a chat's
        board totals; rows that may not exist yet). Keys are taken in ascending order, and kinds in the
        order person, chat wherever both are taken, so two transactions never wait on each other in a
        circle. SQLite: nothing to do, its writers already take turns."""

    async def fetch_together(self, queries: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        """The rows of several queries (each row read by position), read in this transaction. Here one after
        another; PostgreSQL reads them in one statement (one round trip with the database a network away)."""
        return [await self.fetch_all(sql, parameters) for sql, parameters in queries]

    async def read_ahead(self, queries: Sequence[tuple[str, Sequence[Any]]],
                         check: tuple[str, Sequence[Any]]) -> tuple[list[list[Any]], Any]:
        """The rows of `queries`, read ahead of the transaction's locks, and what `check` (a query of one
        value: a digest of the rows the body relies on) gave then, for `expect_unchanged` under the locks.
        Here the writers take turns, so nothing can change in between: the rows are read in the
        transaction, and the check is not run."""
        return await self.fetch_together(queries), None

    async def expect_unchanged(self, check: tuple[str, Sequence[Any]], seen: Any) -> None:
        """Fail the transaction with StaleRead unless `check` gives now what it gave in `read_ahead`; called
        once the locks that keep those rows still are taken. Here: nothing to check (see `read_ahead`)."""

    async def insert_returning_id(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run an `INSERT ... RETURNING id` and give the new row's id."""
        row = await self.fetch_one(sql, parameters)
        assert row is not None, "INSERT ... RETURNING id returned nothing"
        return int(row[0])


Opener = Callable[[Any, "int | None"], Awaitable["Database"]]  # (target, migrate_to) -> an open store


class Database(ABC):
    """An open store. `async with await Database.open(target) as db:`; a path or sqlite:///path is a
    SQLite file, postgresql://... a PostgreSQL database (see bot.store.database.open_store)."""

    dialect: Dialect
    path: Any  # what was opened, for messages: a file path, or the URL without its password

    def __init__(self) -> None:
        self.gone = asyncio.Event()  # set once the store is found deleted or replaced; the runner exits on it
        self._claimed: set[tuple[str, int]] = set()  # claims held by this process's coroutines

    opener: ClassVar[Opener | None] = None  # set by bot.store.opening, the layer above the engines

    @classmethod
    async def open(cls, target: Any, *, migrate_to: int | None = None) -> Database:
        """Open (creating a SQLite file on first run) and bring the schema up to date. Which engine
        opens what is known above this module (bot.store.opening registers itself here on import),
        so that this interface never reaches up to its own implementations."""
        if Database.opener is None:
            raise StoreError("no store engine is registered: import bot.store (bot.store.opening) first")
        return await Database.opener(target, migrate_to)

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """BEGIN ... COMMIT, rolled back on any error. Concurrent transactions are each safe by their own
        means (unique keys, conditional updates, row and key locks: docs/architecture.md); a body that
        may meet a deadlock goes through `in_one_call`, which PostgreSQL retries."""

    async def in_one_call(self, body: Callable[[Transaction], Awaitable[T]]) -> T:
        """Run `body` as one transaction, as `transaction()` would. `body` awaits nothing but its
        transaction's statements; an engine that can then run it in one hand-off does (SQLite: the whole
        transaction in its thread), the others run it statement by statement, and run it again when the
        engine gave up the transaction to a deadlock or a serialization failure (PostgreSQL)."""
        async with self.transaction() as transaction:
            return await body(transaction)

    async def in_shared_call(self, body: Callable[[Transaction], Awaitable[T]]) -> T:
        """`in_one_call` for a body that may share its COMMIT with the bodies running at the same moment
        (each still all or nothing, as if alone). An engine that cannot share runs it alone."""
        return await self.in_one_call(body)

    async def upsert_row(self, upsert: str, parameters: Sequence[Any], read: str, key: Sequence[Any]) -> Row | None:
        """One row written by `upsert` (an INSERT ... ON CONFLICT DO UPDATE) and then read back by `read`, as
        one transaction of its own, its COMMIT shared where the engine shares. An engine that can return
        the row from the write itself does so in one statement (PostgreSQL: RETURNING *, one round trip
        instead of BEGIN, write, read, COMMIT)."""

        async def body(connection: Transaction) -> Row | None:
            await connection.execute(upsert, parameters)
            return await connection.fetch_one(read, key)

        return await self.in_shared_call(body)

    @abstractmethod
    async def fetch_all(self, sql: str, parameters: Iterable[Any] = ()) -> list[Row]:
        """Rows of a read outside any transaction."""

    async def fetch_one(self, sql: str, parameters: Iterable[Any] = ()) -> Row | None:
        rows = await self.fetch_all(sql, parameters)
        return rows[0] if rows else None

    @abstractmethod
    async def schema_version(self) -> int:
        """How many migrations the store has seen."""

    @abstractmethod
    async def table_parents(self) -> dict[str, set[str]]:
        """Every table of the schema (the version bookkeeping aside), with the tables its foreign keys name."""

    @asynccontextmanager
    async def claim(self, kind: str, key: int) -> AsyncIterator[bool]:
        """Whether this worker may do one piece of due work (kind 'reveal' or 'post', key its id) that
        several workers on one database, or two tasks of one worker, may both find due: True for exactly
        one of them at a time, the others are told False and skip it. Held until the block ends; a
        worker that dies lets go. The holder should check that the work is still to do."""
        mark = (kind, key)
        if mark in self._claimed:
            yield False
            return
        self._claimed.add(mark)
        try:
            async with self._claim_across_workers(kind, key) as mine:
                yield mine
        finally:
            self._claimed.discard(mark)

    @asynccontextmanager
    async def _claim_across_workers(self, kind: str, key: int) -> AsyncIterator[bool]:
        """On SQLite one process owns the file: no other worker to ask."""
        yield True

    async def restart_ids(self, connection: Transaction, tables: Iterable[str]) -> None:
        """After rows came in with their ids given (a copy), the next id of each table follows the
        largest one. SQLite's INTEGER PRIMARY KEY does so by itself."""

    @abstractmethod
    async def close(self) -> None: ...

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

