"""One-call transactions on the event loop's own write connection (bot/store/sqlite_writer.py): they commit
without a hand-off to aiosqlite's thread, and whatever cannot run there (the file busy, the budget spent)
runs in that thread as before, with nothing of the first try kept."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.store import Database
from bot.store import sqlite_writer
from bot.store.backend import Transaction
from tests.bot.store.hand_offs import hand_offs

USER = "INSERT INTO users (platform, platform_user_id, name, created_at) VALUES ('t', ?, 'N', 0)"
LONG = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) "
        "SELECT count(*) FROM c")


@pytest.fixture
async def store(tmp_path: Path):
    db = await Database.open(tmp_path / "writes.sqlite3")
    yield db
    await db.close()


async def names(db) -> list[str]:
    return [row[0] for row in await db.fetch_all("SELECT platform_user_id FROM users ORDER BY id")]


async def test_a_one_call_transaction_commits_without_a_hand_off(store) -> None:
    calls = hand_offs(store)

    async def body(transaction: Transaction) -> int:
        await transaction.execute(USER, ("ada",))
        return len(await transaction.fetch_all("SELECT id FROM users"))

    assert await store.in_one_call(body) == 1
    shared = await asyncio.gather(*(store.in_shared_call(lambda t, n=n: t.execute(USER, (f"p{n}",)))
                                    for n in range(3)))
    assert [result.rowcount for result in shared] == [1, 1, 1]
    assert calls == []
    async with store.transaction() as transaction:  # the thread's connection sees them committed
        assert len(await transaction.fetch_all("SELECT id FROM users")) == 4
    assert await names(store) == ["ada", "p0", "p1", "p2"]


async def test_a_busy_file_sends_the_transaction_to_the_thread_which_waits_its_turn(store) -> None:
    other = sqlite3.connect(store.path, isolation_level=None)  # another process, writing
    other.execute("BEGIN IMMEDIATE")
    other.execute(USER, ("first",))
    calls = hand_offs(store)
    pending = asyncio.ensure_future(store.in_one_call(lambda t: t.execute(USER, ("second",))))
    await asyncio.sleep(0.05)
    assert not pending.done() and calls == ["_run_to_the_end"]  # waiting in the thread, the loop free
    other.execute("COMMIT")
    other.close()
    await pending
    assert await names(store) == ["first", "second"]


async def test_a_transaction_over_the_budget_runs_again_in_the_thread_and_is_written_once(store, monkeypatch) -> None:
    monkeypatch.setattr(sqlite_writer, "WRITE_BUDGET_S", 0.0)
    monkeypatch.setattr(sqlite_writer, "BUDGET_CHECK_STEPS", 100)
    calls = hand_offs(store)
    runs = []

    async def body(transaction: Transaction) -> int:
        runs.append(1)
        await transaction.execute(USER, ("long",))
        try:
            rows = await transaction.fetch_all(LONG)
        except sqlite3.OperationalError:  # a body that swallows the interruption commits nothing here
            return -1
        return int(rows[0][0])

    assert await store.in_one_call(body) == 20000
    assert len(runs) == 2 and calls == ["_run_to_the_end"]
    assert await names(store) == ["long"]
    await store.in_one_call(lambda t: t.execute(USER, ("next",)))  # cooling down: straight to the thread
    assert calls == ["_run_to_the_end", "_run_to_the_end"] and len(runs) == 2
    assert await names(store) == ["long", "next"]


async def test_a_bodys_own_error_is_not_run_again(store) -> None:
    calls = hand_offs(store)
    runs = []

    async def body(transaction: Transaction) -> None:
        runs.append(1)
        await transaction.execute(USER, ("x",))
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await store.in_one_call(body)
    assert runs == [1] and calls == [] and await names(store) == []


def counted_checkpoints(monkeypatch) -> tuple[list[tuple[int, int]], asyncio.Event]:
    """Every checkpoint the stores run from now on, with what it found (pages, copied); each held until
    the event is set (set at first: not held), as a large WAL on a slow disk would hold it."""
    found: list[tuple[int, int]] = []
    gate = asyncio.Event()
    gate.set()
    checkpoint = sqlite_writer.Checkpointer.checkpoint

    async def counted(self) -> tuple[int, int]:
        await gate.wait()
        found.append(await checkpoint(self))
        return found[-1]

    monkeypatch.setattr(sqlite_writer.Checkpointer, "checkpoint", counted)
    return found, gate


async def write(db, *names: str) -> None:
    await asyncio.gather(*(db.in_one_call(lambda t, name=name: t.execute(USER, (name,))) for name in names))


def wal_frames(path: Path) -> int:
    """How many frames the WAL holds from its beginning (a checkpoint from another connection says)."""
    other = sqlite3.connect(path)
    try:
        return int(other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
    finally:
        other.close()


async def test_the_wal_is_checkpointed_in_a_thread_at_sqlites_own_cadence(store, monkeypatch) -> None:
    """The loop's commits do not checkpoint (it syncs the file); the store asks a thread of its own (not
    aiosqlite's), first after CHECKPOINT_EVERY commits, then after as many as fill WAL_PAGES pages at the
    rate it found."""
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY", 5)
    monkeypatch.setattr(sqlite_writer, "WAL_PAGES", 20)
    calls = hand_offs(store)
    found, _ = counted_checkpoints(monkeypatch)
    for n in range(5):
        await store.in_one_call(lambda t, n=n: t.execute(USER, (f"p{n}",)))
    await store._checkpointing  # begun after the 5th commit, which did not wait for it
    assert len(found) == 1 and found[0][0] == found[0][1] > 0  # the whole WAL copied
    every = store._writer.every
    assert 1 <= every < 20  # each commit wrote at least one page: fewer than 20 commits fill 20 pages
    for n in range(every - 1):
        await store.in_one_call(lambda t, n=n: t.execute(USER, (f"q{n}",)))
    assert len(found) == 1
    await store.in_one_call(lambda t: t.execute(USER, ("last",)))
    await store._checkpointing
    assert len(found) == 2 and calls == []  # nothing went to aiosqlite's thread
    assert len(await names(store)) == 5 + every


async def test_a_checkpoint_whose_turn_comes_inside_a_transaction_block_still_copies_the_wal(
        store, monkeypatch, caplog) -> None:
    """A checkpoint begun beside the writes gets its turn when it can; aiosqlite's connection may be inside
    a `transaction()` block by then (SQLite refuses a checkpoint there: "database table is locked"). It
    runs on a connection of its own and copies the WAL all the same."""
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY", 5)
    found, _ = counted_checkpoints(monkeypatch)
    await write(store, *(f"p{n}" for n in range(5)))
    async with store.transaction() as transaction:  # begun before the checkpoint's first turn
        await transaction.execute(USER, ("inside",))
        await store._checkpointing
    assert "checkpoint failed" not in caplog.text
    assert len(found) == 1 and found[0][0] == found[0][1] > 0
    assert len(await names(store)) == 6


async def test_answers_are_written_while_the_wal_is_checkpointed(store, monkeypatch) -> None:
    """A checkpoint copies and syncs up to WAL_PAGES pages (milliseconds on a real disk): the members whose
    answers come while it runs are written meanwhile, not after it."""
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY", 5)
    found, gate = counted_checkpoints(monkeypatch)
    gate.clear()
    await asyncio.wait_for(write(store, *(f"p{n}" for n in range(5))), timeout=5)  # the 5th's did not wait
    checkpoint = store._checkpointing
    assert checkpoint is not None and not checkpoint.done()
    await asyncio.wait_for(write(store, *(f"q{n}" for n in range(20))), timeout=5)
    assert not checkpoint.done() and len(await names(store)) == 25  # committed while it waited
    gate.set()
    await checkpoint
    assert len(found) == 1


async def test_after_commits_during_a_checkpoint_the_next_is_waited_for_and_the_wal_starts_again(
        store, monkeypatch) -> None:
    """Commits landing during a checkpoint keep the WAL from starting again at its beginning (it would grow
    for as long as a burst lasts, and a restart would read it all back): the next checkpoint is waited
    for, with no commit beside it, and the WAL then starts again."""
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY", 5)
    found, gate = counted_checkpoints(monkeypatch)
    gate.clear()
    await write(store, *(f"p{n}" for n in range(5)))
    await asyncio.sleep(0)
    await write(store, *(f"q{n}" for n in range(10)))  # during the first checkpoint
    gate.set()
    await store._checkpointing
    assert store._writer.behind
    written = 0
    while len(found) < 2:  # the commits go on until the next checkpoint is due
        await write(store, f"r{written}")
        written += 1
        assert written <= 1000
    assert store._checkpointing.done() and not store._writer.behind  # waited for, within the last commit
    await write(store, "after")
    assert wal_frames(store.path) <= 3  # the WAL started again: only the last commit's pages in it
    assert len(await names(store)) == 16 + written
