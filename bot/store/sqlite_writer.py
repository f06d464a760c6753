"""The event loop's own write connection beside aiosqlite's (see bot/store/sqlite_backend.py): a one-call
transaction (an answer batch, a group of shared calls) run right on the loop's thread, within a CPU-time
budget, so that it costs no hand-off to aiosqlite's thread and back.

Why: a hand-off wakes a second thread and passes the GIL twice; on a loaded machine each wake-up also
waits for the scheduler to give that thread a core, and a batch of answers spent more time between the
two threads than in SQLite (measured in docs/benchmarks.md). A transaction that cannot run here leaves
nothing behind and runs in aiosqlite's thread as before: the file busy (another process writing; this
connection never waits for a lock), the budget spent (SQLite asks every BUDGET_CHECK_STEPS steps), or any
SQLite error (the thread then meets it, or not, and reports it as it always did).

The WAL is not checkpointed by this connection's commits (that writes and syncs the database file, which
would hold the event loop): about as often as SQLite's own cadence would (every WAL_PAGES pages, judged
from the pages the last checkpoint found per commit) the store asks for a passive checkpoint in
another thread. The writes go on beside it (WAL lets a checkpoint and a writer work at once, and the
thread's copying and syncing leave the loop's core free); but the WAL can start again from its beginning
only after a checkpoint that copied all of it with no commit landing meanwhile, so when commits did land
during the last one, the next is waited for, as a commit that checkpoints would be: a busy store's WAL
stays within about twice WAL_PAGES instead of growing for as long as the burst lasts. The checkpoints
run on a connection of their own in a thread of their own (`Checkpointer`): aiosqlite's connection may be
inside a `transaction()` block when one gets its turn, and SQLite refuses a checkpoint there.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from bot.store.sqlite_reader import loop_connection

T = TypeVar("T")
WRITE_BUDGET_S = 0.01  # CPU time a transaction may take on the event loop's thread (a batch of 8 answers: ~1 ms)
BUDGET_CHECK_STEPS = 50_000  # SQLite VM steps between two looks at the CPU clock (~0.5-1 ms of SQL; at every
# 1,000, as a read checks, the look itself took a sixth of an answer batch's time)
COOL_DOWN = 32  # transactions sent straight to aiosqlite's thread after one that went over the budget
WAL_PAGES = 1_000  # SQLite's own wal_autocheckpoint: a checkpoint once the WAL holds this many pages
CHECKPOINT_EVERY = 100  # commits between two checkpoints until the first one says how many pages a commit writes
PRAGMAS = ("PRAGMA busy_timeout = 0", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL",
           "PRAGMA wal_autocheckpoint = 0")


class NotHere(Exception):
    """The transaction could not run on the event loop's thread; nothing of it was kept."""


class LoopWriter:
    """A write connection owned by the event loop's thread; `run` gives a one-call transaction's result
    (or the body's own exception), or raises NotHere after rolling back whatever it began."""

    def __init__(self, path: Path) -> None:
        self.started: float | None = None  # this thread's CPU clock when SQLite first asked in this transaction
        self.interrupted = False
        self.commits = 0  # every commit on this connection
        self.every = CHECKPOINT_EVERY  # commits between two checkpoints, from the pages a commit writes
        self.cooling = 0  # transactions still to send to the thread after one over the budget
        self.in_wal = 0  # commits since the WAL last started again from its beginning
        self.behind = False  # commits landed during the last checkpoint: the WAL could not start again
        self._at_start = (0, 0)  # (commits, commits in the WAL) when the last checkpoint began
        self.connection = loop_connection(path, PRAGMAS, self._over_budget, BUDGET_CHECK_STEPS)

    def _over_budget(self) -> bool:
        now = time.thread_time()
        if self.started is None:
            self.started = now
        elif now - self.started > WRITE_BUDGET_S:
            self.interrupted = True
        return self.interrupted

    def _still_within_budget(self) -> None:
        """Before COMMIT: a statement interrupted on the way (whatever the body made of it) undoes it all."""
        if self.interrupted:
            raise NotHere("over the event loop's budget")

    def run(self, work: Callable[[sqlite3.Connection, Any, Any], T], argument: Any) -> T:
        """`work(connection, argument, before_commit)` (bot/store/sqlite_calls.py) on this connection."""
        if self.cooling:
            self.cooling -= 1
            raise NotHere("cooling down after a transaction over the budget")
        self.started, self.interrupted = None, False
        try:
            result = work(self.connection, argument, self._still_within_budget)
        except BaseException as error:
            if not (self.interrupted or isinstance(error, (sqlite3.Error, NotHere))):
                raise  # the body's own error, rolled back: what the thread would have given
            if self.connection.in_transaction:
                self.connection.rollback()
            if self.interrupted:
                self.cooling = COOL_DOWN
            if isinstance(error, NotHere):
                raise
            raise NotHere(str(error)) from error
        self.commits += 1
        self.in_wal += 1
        return result

    def checkpoint_due(self) -> bool:
        """Whether enough commits went by since the last checkpoint began to ask for another."""
        return self.commits - self._at_start[0] >= self.every

    def checkpoint_begins(self) -> None:
        """A checkpoint is asked for now: the commits from here on count towards the next one."""
        self._at_start = (self.commits, self.in_wal)

    def checkpointed(self, pages: int, copied: int) -> None:
        """The checkpoint begun last found `pages` pages of WAL and copied `copied` of them (-1: it failed):
        the next one after as many commits as fill WAL_PAGES at the rate those pages were written; and
        whether the WAL starts again at the next commit (all of it copied, no commit landed meanwhile)."""
        seen, in_wal = self._at_start
        if pages > 0 and in_wal > 0:
            self.every = max(1, min(WAL_PAGES, round(WAL_PAGES * in_wal / pages)))
        self.behind = self.commits != seen or copied < pages
        if not self.behind:
            self.in_wal = 0

    def close(self) -> None:
        self.connection.close()


class Checkpointer:
    """The WAL's checkpoints, on a connection of their own in a thread of their own (see the module's
    docstring): passive, so neither readers nor the writers wait for them."""

    def __init__(self, path: Path) -> None:
        self._connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)  # used in that thread
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wal-checkpoint")

    def _checkpoint(self) -> tuple[int, int]:
        row = self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return (int(row[1]), int(row[2])) if row else (0, -1)

    async def checkpoint(self) -> tuple[int, int]:
        """How many pages the WAL held, and how many of them were copied into the database file."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._checkpoint)

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._executor, self._connection.close)
        self._executor.shutdown(wait=False)
