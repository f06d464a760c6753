"""The event loop's own read connection beside the SQLite store's writer (see bot/store/sqlite_backend.py):
reads by key answered on the loop's thread within a CPU-time budget, so they cost no hand-off to
aiosqlite's thread; a read over budget is interrupted and the store sends it there instead."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

# Prepared statements kept per connection (sqlite3's default is 128): an answer batch's statements name
# each key (IN lists, VALUES rows), so each size (and mix of people and questions) has five of its own; past
# the cache each one would be parsed and planned again, in the database thread, on every batch.
CACHED_STATEMENTS = 1024
READ_BUDGET_S = 0.001  # CPU time a read may take on the event loop's thread before it moves to aiosqlite's
BUDGET_CHECK_STEPS = 1_000  # SQLite VM steps between two looks at the thread's CPU clock while a read runs here
READ_PRAGMAS = ("PRAGMA foreign_keys = ON",  # as the writer's, though a read never needs it
                "PRAGMA query_only = ON", "PRAGMA busy_timeout = 0")


def loop_connection(path: Path, pragmas: Iterable[str], over_budget: Callable[[], bool],
                    steps: int) -> sqlite3.Connection:
    """A connection for the event loop's own thread (this reader, and bot/store/sqlite_writer.py's writer):
    rows by name, its PRAGMAs, and its budget asked every `steps` SQLite steps."""
    connection = sqlite3.connect(path, isolation_level=None, cached_statements=CACHED_STATEMENTS)
    try:
        connection.row_factory = sqlite3.Row
        for pragma in pragmas:
            connection.execute(pragma)
        connection.set_progress_handler(over_budget, steps)
    except BaseException:
        connection.close()
        raise
    return connection


class LoopReader:
    """The event loop's own connection for reads: query-only (a write through it is refused, and then
    goes the usual way), never waiting for a lock (busy: the read goes to aiosqlite's thread), and
    interrupted once a read has taken READ_BUDGET_S of this thread's CPU time (SQLite asks every
    BUDGET_CHECK_STEPS steps). CPU time, not wall time: on a busy machine a point read may be descheduled
    for milliseconds, and it must not count as long, or every read by key would move to the thread."""

    def __init__(self, path: Path) -> None:
        self.started: float | None = None  # this thread's CPU clock when SQLite first asked during this read
        self.connection = loop_connection(path, READ_PRAGMAS, self._over_budget, BUDGET_CHECK_STEPS)

    def _over_budget(self) -> bool:
        """The clock is first read when SQLite first asks (most reads by key finish before it does)."""
        now = time.thread_time()
        if self.started is None:
            self.started = now
            return False
        return now - self.started > READ_BUDGET_S

    def fetch_all(self, sql: str, parameters: tuple[Any, ...]) -> list[sqlite3.Row]:
        self.started = None
        return self.connection.execute(sql, parameters).fetchall()

    def close(self) -> None:
        self.connection.close()
