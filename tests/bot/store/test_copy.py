"""Moving a deployment: SQLite -> PostgreSQL -> SQLite loses nothing (every row, every board)."""

from __future__ import annotations

import random
from zoneinfo import ZoneInfo

import pytest

from bot.core import Core
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.scores.boards import chat_board, groups_board
from bot.store import Database, StoreError
from bot.store.copy import copy_store, counts
from bot.store.people import ensure_user, find_chat
from tests.bot.scores.test_boards import TZ, _month, at
from tests.fakes import RecordingPort

ALICE = UserRef("test", "alice", "Alice")


async def _fill(db: Database, bank, clock) -> None:
    """A month of daily questions in a group, and an interview with a wrong answer (so a review card)."""
    await _month(db, bank, clock, members=3)
    core = Core(db, bank, clock, random.Random(3), scheduled=False)
    core.add_port(RecordingPort())
    first = await core.start_interview(ALICE, ChatRef("test", "alice", "private"), InterviewFilters(count=2))
    asked = await db.fetch_one("SELECT option_order, question_id FROM asked_questions WHERE id = ?", (first.asked_id,))
    wrong = next(p for p, i in enumerate(int(c) for c in asked[0]) if i != bank.questions[asked[1]].correct_index)
    await core.click(ALICE, ChatRef("test", "alice", "private"), f"a:{first.asked_id}:{'ABCD'[wrong]}")


async def _everything(db: Database) -> dict[str, list[tuple]]:
    tables = sorted(await db.table_parents())
    return {table: sorted((tuple(row) for row in await db.fetch_all(f'SELECT * FROM "{table}"')), key=repr)
            for table in tables}


async def _boards(db: Database, now: float):
    chat = await find_chat(db, "test", "g")
    return ([await chat_board(db, chat.id, period, now, ZoneInfo(TZ), user_id=None) for period in ("week", "all")],
            await groups_board(db, now, minimum=1))


async def test_sqlite_to_postgresql_and_back_loses_nothing(tmp_path, postgres_url, bank, clock) -> None:
    original = await Database.open(tmp_path / "original.sqlite3")
    moved = await Database.open(postgres_url)
    back = await Database.open(tmp_path / "back.sqlite3")
    try:
        await _fill(original, bank, clock)
        now = at("2026-06-30 23:00")
        copied = await copy_store(original, moved)
        assert copied.rows > 100 and dict(copied.tables) == await counts(original) == await counts(moved)
        await copy_store(moved, back)
        everything = await _everything(original)
        assert await _everything(moved) == everything and await _everything(back) == everything
        assert await _boards(moved, now) == await _boards(original, now) == await _boards(back, now)
        newcomer = await ensure_user(moved, UserRef("test", "new", "New"), now)  # ids go on after the copied ones
        assert newcomer.id == 1 + max(row[0] for row in everything["users"])
    finally:
        for db in (original, moved, back):
            await db.close()


async def test_a_long_table_goes_over_in_chunks(tmp_path, postgres_url, monkeypatch) -> None:
    from bot.store import copy

    monkeypatch.setattr(copy, "CHUNK", 7)
    async with await Database.open(tmp_path / "a.sqlite3") as source, await Database.open(postgres_url) as target:
        for number in range(30):
            await ensure_user(source, UserRef("test", f"u{number}", f"U{number}"), 1.0)
        copied = await copy_store(source, target)
        assert dict(copied.tables)["users"] == 30
        assert await _everything(target) == await _everything(source)


async def test_a_copy_into_a_store_with_rows_is_refused(tmp_path, postgres_store_url) -> None:
    async with await Database.open(tmp_path / "a.sqlite3") as source, await Database.open(postgres_store_url) as target:
        await ensure_user(source, ALICE, 1.0)
        await ensure_user(target, UserRef("test", "bob", "Bob"), 1.0)
        with pytest.raises(StoreError, match="already holds rows \\(users\\)"):
            await copy_store(source, target)
        assert (await target.fetch_one("SELECT count(*) FROM users"))[0] == 1
