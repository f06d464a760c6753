"""Reads on the event loop's own SQLite connection: they see every committed write at once, never what
another coroutine has not committed, still see a coroutine's own open transaction, never hold the event
loop past their budget, and a read that is really a write still lands through the writer."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.domain import UserRef
from bot.store import Database
from bot.store.people import ensure_user
from tests.bot.store.hand_offs import hand_offs

LONG_READ = """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000)
               SELECT count(*) FROM n"""


@pytest.fixture
async def store(tmp_path: Path):
    db = await Database.open(tmp_path / "reads.sqlite3")
    yield db
    await db.close()


async def test_a_read_by_key_sees_the_committed_write_without_a_hand_off(store) -> None:
    person = await ensure_user(store, UserRef("telegram", "7", "Ada", "en"), 1.0)
    calls = hand_offs(store)
    again = await ensure_user(store, UserRef("telegram", "7", "Ada", "en"), 2.0)  # known: one read, no write
    assert again == person and calls == []
    row = await store.fetch_one("SELECT name FROM users WHERE id = ?", (person.id,))
    assert row["name"] == "Ada" and row[0] == "Ada"


async def test_reads_see_no_uncommitted_write_of_another_coroutine_but_the_writer_sees_its_own(store) -> None:
    inside = asyncio.Event()
    release = asyncio.Event()
    seen_inside: list[int] = []

    async def writer() -> None:
        async with store.transaction() as transaction:
            await transaction.execute("INSERT INTO users (platform, platform_user_id, name, created_at) "
                                      "VALUES ('t', 'w', 'W', 0)")
            seen_inside.append((await store.fetch_one("SELECT count(*) FROM users"))[0])  # its own, as before
            inside.set()
            await release.wait()

    task = asyncio.create_task(writer())
    await inside.wait()
    assert seen_inside == [1]
    release.set()
    await task
    calls = hand_offs(store)
    assert (await store.fetch_one("SELECT count(*) FROM users"))[0] == 1  # committed: seen at once, right here
    assert calls == []


async def test_a_long_read_leaves_the_event_loop_within_its_budget_and_still_answers(store) -> None:
    ticks: list[float] = []

    async def ticking() -> None:
        while True:
            ticks.append(time.perf_counter())
            await asyncio.sleep(0)

    ticker = asyncio.create_task(ticking())
    await asyncio.sleep(0)
    calls = hand_offs(store)
    started = time.perf_counter()
    assert (await store.fetch_one(LONG_READ))[0] == 3_000_000
    ticker.cancel()
    assert calls == ["_execute_fetchall"]  # interrupted here, answered by the database thread
    during = [t for t in ticks if t >= started]
    gaps = [later - earlier for earlier, later in zip(during, during[1:])]
    assert len(during) > 10 and max(gaps) < 0.25  # the loop kept turning while the read ran there
    assert LONG_READ in store._slow
    await store.fetch_one(LONG_READ)  # remembered: straight to the thread, not interrupted here again
    assert calls == ["_execute_fetchall", "_execute_fetchall"]


async def test_a_write_through_a_read_still_lands_through_the_writer(store) -> None:
    row = await store.fetch_one("INSERT INTO users (platform, platform_user_id, name, created_at) "
                                "VALUES ('t', 'r', 'R', 0) RETURNING id")
    assert row is not None
    assert (await store.fetch_one("SELECT name FROM users WHERE id = ?", (row[0],)))["name"] == "R"


async def test_a_store_in_memory_reads_through_its_one_connection() -> None:
    async with await Database.open(":memory:") as db:
        await ensure_user(db, UserRef("telegram", "1", "M"), 1.0)
        assert (await db.fetch_one("SELECT count(*) FROM users"))[0] == 1
