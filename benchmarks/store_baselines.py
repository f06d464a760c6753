"""Store benchmark's baselines: the answers every side writes, and raw sqlite3 writing them.

Why a module of its own: benchmarks/store.py measures the bot's store; what it is compared with (bare
sqlite3 in a plain loop, at per-row commits, at the store's batch sizes, running the store's own
transaction body, or replaying the statements the store ran) is a separate concern, and so is the
recorder at the store's seam that captures those statements. The one-hop prototype (not the bot's
code: one thread hop per answer over a raw connection) lives here too. Nothing here imports
benchmarks/store.py.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bot.domain import RecordedAnswer
from bot.learner.items import Item
from bot.store.answer_batch import AnswerWriter, _Pending
from bot.store.sqlite_calls import _run_to_the_end
from bot.store.backend import SQLITE, Transaction

PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL",
           "PRAGMA busy_timeout = 10000")
INSERT = """INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
            VALUES (?, ?, ?, ?, ?, ?, ?)"""
T0 = 1_750_000_000.0


def answer_for(index: int, user_id: int) -> RecordedAnswer:
    """The index-th answer of a writer: a distinct daily question per index, one user per writer."""
    correct = index % 4 == 0
    return RecordedAnswer(index + 1, user_id, index % 4, correct, 1000 + index % 5000, T0 + index,
                          2 if correct else 0)


def row_of(answer: RecordedAnswer) -> tuple[Any, ...]:
    """The same parameters insert_answer binds, for the raw side."""
    return (answer.asked_id, answer.user_id, answer.option_index, int(answer.correct), answer.latency_ms,
            answer.answered_at, answer.points)


def connect_raw(path: Path, check_same_thread: bool = True) -> sqlite3.Connection:
    """A bare sqlite3 connection with the store's PRAGMAs and explicit transactions."""
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=check_same_thread)
    for pragma in PRAGMAS:
        connection.execute(pragma)
    return connection


def raw_round(path: Path, writers: int, per_writer: int) -> float:
    """Seconds for bare sqlite3 to insert the same rows, interleaved as the writers would be."""
    rows = [row_of(answer_for(index, user)) for index in range(per_writer) for user in range(1, writers + 1)]
    connection = connect_raw(path)
    try:
        started = time.perf_counter()
        for row in rows:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(INSERT, row)
            connection.execute("COMMIT")
        return time.perf_counter() - started
    finally:
        connection.close()


def raw_batched_round(path: Path, writers: int, per_writer: int, sizes: list[int]) -> float:
    """Seconds for bare sqlite3 to insert the same rows in transactions of the sizes the writer used:
    the baseline at equal batching (BEGIN IMMEDIATE; executemany; COMMIT per batch)."""
    rows = [row_of(answer_for(index, user)) for index in range(per_writer) for user in range(1, writers + 1)]
    connection = connect_raw(path)
    try:
        started, at = time.perf_counter(), 0
        for size in sizes:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(INSERT, rows[at:at + size])
            connection.execute("COMMIT")
            at += size
        return time.perf_counter() - started
    finally:
        connection.close()


def _record_in_one_hop(connection: sqlite3.Connection, row: tuple[Any, ...]) -> None:
    """The whole transaction in the database thread: what a one-round-trip store write would run."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(INSERT, row)
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


async def one_hop_round(path: Path, writers: int, per_writer: int) -> float:
    """Prototype, not the bot's code: the same concurrent writers, one thread hop per answer."""
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-sqlite") as executor:
        connection = await loop.run_in_executor(executor, connect_raw, path, False)

        async def writer(user: int) -> None:
            for index in range(per_writer):
                await loop.run_in_executor(executor, _record_in_one_hop, connection,
                                           row_of(answer_for(index, user)))

        started = time.perf_counter()
        await asyncio.gather(*(writer(user) for user in range(1, writers + 1)))
        elapsed = time.perf_counter() - started
        await loop.run_in_executor(executor, connection.close)
    return elapsed


Call = tuple[str, str, Any]  # ("execute" | "executemany" | "fetch_all", sql, parameters)


class RecordingTransaction(Transaction):
    """The store's transaction, with every statement kept (with its parameters) for the raw replay."""

    dialect = SQLITE

    def __init__(self, inner: Transaction, calls: list[Call]) -> None:
        self.inner, self.calls = inner, calls

    # The statements are kept as given (the store builds fresh parameter lists and never changes them
    # afterwards): a copy here would be the benchmark's own work counted against the store.
    async def execute(self, sql: str, parameters: Any = ()) -> Any:
        self.calls.append(("execute", sql, parameters))
        return await self.inner.execute(sql, parameters)

    async def executemany(self, sql: str, rows: Any) -> None:
        rows = rows if isinstance(rows, list) else list(rows)
        self.calls.append(("executemany", sql, rows))
        await self.inner.executemany(sql, rows)

    async def fetch_all(self, sql: str, parameters: Any = ()) -> list[Any]:
        self.calls.append(("fetch_all", sql, parameters))
        return await self.inner.fetch_all(sql, parameters)


def record_calls(database: Any, transactions: list[list[Call]]) -> None:
    """Keep every statement the store's one-call transactions run (at the seam, with their parameters),
    one list per transaction, so that raw sqlite3 can run exactly the same work afterwards."""
    original = database.in_one_call

    async def recorded(body: Any) -> Any:
        calls: list[Call] = []
        transactions.append(calls)
        return await original(lambda transaction: body(RecordingTransaction(transaction, calls)))

    database.in_one_call = recorded


def raw_same_body_round(path: Path, writers: int, per_writer: int, sizes: list[int]) -> float:
    """Seconds for bare sqlite3, in a plain loop with no event loop and no thread hand-off, to run the
    AnswerWriter's own transaction body (the open-question check, answers, review cards and the learner
    model's Python steps) over the same answers in batches of the same sizes: equal SQL and equal
    computation, so what is left between it and the store is the store's path (queue, futures, hand-off)."""
    answers = [(answer_for(index, user), user) for index in range(per_writer) for user in range(1, writers + 1)]
    loop = asyncio.new_event_loop()  # only to make the futures a _Pending holds; it never runs
    writer = AnswerWriter(None)  # type: ignore[arg-type]  # its body needs no database of its own
    batches, at = [], 0
    for size in sizes:
        batch = []
        for answer, _ in answers[at:at + size]:
            question_id = f"q-{answer.asked_id % 500}"
            batch.append(_Pending(answer, question_id, loop.create_future(), Item(question_id, "bench", "bench", 2)))
        batches.append(batch)
        at += size
    connection = connect_raw(path)
    try:
        started = time.perf_counter()
        for batch in batches:
            _run_to_the_end(connection, lambda transaction, batch=batch: writer._record(transaction, batch))
        return time.perf_counter() - started
    finally:
        connection.close()
        loop.close()


def raw_equal_work_round(path: Path, transactions: list[list[Call]]) -> float:
    """Seconds for bare sqlite3 to run the store's recorded transactions: the same statements with the same
    parameters (the open-question check, the answers, review cards, the learner's rows), committed in the
    same batches, in a plain loop with no thread hand-off: the baseline at equal work."""
    connection = connect_raw(path)
    try:
        started = time.perf_counter()
        for calls in transactions:
            connection.execute("BEGIN IMMEDIATE")
            for method, sql, parameters in calls:
                if method == "executemany":
                    connection.executemany(sql, parameters)
                elif method == "fetch_all":
                    connection.execute(sql, tuple(parameters)).fetchall()
                else:
                    connection.execute(sql, tuple(parameters))
            connection.execute("COMMIT")
        return time.perf_counter() - started
    finally:
        connection.close()
