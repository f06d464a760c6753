"""One-call transactions on a plain sqlite3 connection: a whole BEGIN IMMEDIATE ... COMMIT run in one go,
where each statement would otherwise be one hand-off to aiosqlite's thread (bot/store/sqlite_backend.py).

They run wherever the connection lives: on aiosqlite's thread, or on the event loop's own write connection
(bot/store/sqlite_writer.py). `before_commit` lets that second one refuse to commit a transaction whose
statements it interrupted (over its time budget), whatever the body made of the interruption.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from bot.store.backend import SQLITE, IntegrityViolation, Result, Row, Transaction, UniqueViolation

T = TypeVar("T")
Body = Callable[[Transaction], Awaitable[Any]]
Outcome = tuple[bool, Any]  # (True, the body's result) or (False, the exception it raised)
Check = Callable[[], None] | None  # raises when the transaction must not be committed


def violation(error: sqlite3.IntegrityError) -> IntegrityViolation:
    """The engine's refusal as the store's own exception (a unique key, or another constraint)."""
    kind = UniqueViolation if "UNIQUE" in str(error) else IntegrityViolation
    return kind(str(error))


def _sequence(parameters: Sequence[Any]) -> Sequence[Any]:
    """The parameters as sqlite3 binds them: a tuple or list as it is, anything else (an iterator) copied."""
    return parameters if type(parameters) in (tuple, list) else tuple(parameters)


class DirectTransaction(Transaction):
    """Statements run directly on the sqlite3 connection, in the thread that owns it: its coroutine
    methods never suspend, so a body's coroutine runs to its end in one go there."""

    dialect = SQLITE

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Result:
        try:
            return Result(self.connection.execute(sql, _sequence(parameters)).rowcount)
        except sqlite3.IntegrityError as error:
            raise violation(error) from error

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:  # sqlite3 takes any iterable of sequences: no copy of the rows
            self.connection.executemany(sql, rows)
        except sqlite3.IntegrityError as error:
            raise violation(error) from error

    async def fetch_all(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        try:
            return self.connection.execute(sql, _sequence(parameters)).fetchall()
        except sqlite3.IntegrityError as error:
            raise violation(error) from error


def _drive(transaction: Transaction, body: Callable[[Transaction], Awaitable[T]]) -> T:
    """The body's coroutine driven to its end in one go: its statements never suspend."""
    coroutine = body(transaction)
    try:
        coroutine.send(None)  # type: ignore[attr-defined]
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]
    coroutine.close()  # type: ignore[attr-defined]
    raise RuntimeError("a one-call transaction awaited something other than its own statements")


def _immediate(connection: sqlite3.Connection, run: Callable[[], T], before_commit: Check) -> T:
    """BEGIN IMMEDIATE, `run`, the check, COMMIT (ROLLBACK on any error)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        result = run()
        if before_commit is not None:
            before_commit()
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return result


def _run_to_the_end(connection: sqlite3.Connection, body: Callable[[Transaction], Awaitable[T]],
                    before_commit: Check = None) -> T:
    """BEGIN IMMEDIATE, the body, COMMIT (ROLLBACK on any error)."""
    return _immediate(connection, lambda: _drive(DirectTransaction(connection), body), before_commit)


def _run_each_to_the_end(connection: sqlite3.Connection, bodies: list[Body],
                         before_commit: Check = None) -> list[Outcome]:
    """BEGIN IMMEDIATE, the bodies, one COMMIT for all (ROLLBACK of all if anything but a body fails).
    First all of them in one SAVEPOINT: mostly none fails, and a SAVEPOINT and its RELEASE per body were
    two statements more per answer than the answer's own INSERT. If one fails, that SAVEPOINT is rolled
    back and the bodies run again one by one, each in a SAVEPOINT of its own (an error then undoes that
    body's statements alone, as if it ran alone); running a body again after its rollback is what
    `Database.in_one_call` allows (PostgreSQL reruns one given up to a deadlock)."""
    transaction = DirectTransaction(connection)

    def run_all() -> list[Outcome]:
        connection.execute("SAVEPOINT shared_calls")
        try:
            outcomes: list[Outcome] = [(True, _drive(transaction, body)) for body in bodies]
        except Exception:
            connection.execute("ROLLBACK TO shared_calls")
            outcomes = [_run_alone(connection, transaction, body) for body in bodies]
        connection.execute("RELEASE shared_calls")
        return outcomes

    return _immediate(connection, run_all, before_commit)


def _run_alone(connection: sqlite3.Connection, transaction: Transaction, body: Body) -> Outcome:
    """One body of a shared call in a SAVEPOINT of its own: its error undoes its own statements only."""
    connection.execute("SAVEPOINT shared_call")
    try:
        outcome: Outcome = (True, _drive(transaction, body))
    except Exception as error:
        connection.execute("ROLLBACK TO shared_call")
        outcome = (False, error)
    connection.execute("RELEASE shared_call")
    return outcome
