"""The store: pragmas, constraints, and upgrading an older database in place."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import sqlite3
from pathlib import Path

import pytest

from bot.domain import ChatRef, InterviewFilters, RecordedAnswer, UserRef
from bot.store import Database, StoreError, StoreGone
from bot.store.database import IntegrityViolation, UniqueViolation
from bot.store import interviews as records
from bot.store.migrations import LATEST, SchemaTooNew, statements
from bot.store.people import ensure_chat, ensure_user, move_chat, set_chat_language


REPO = Path(__file__).parents[3]


async def test_new_file_gets_wal_foreign_keys_and_latest_schema(tmp_path) -> None:
    path = tmp_path / "deep" / "folder" / "bot.sqlite3"
    async with await Database.open(path) as db:
        assert (await db.fetch_one("PRAGMA journal_mode"))[0] == "wal"
        assert (await db.fetch_one("PRAGMA foreign_keys"))[0] == 1
        assert await db.schema_version() == LATEST
    assert path.exists()


async def _answer_setup(db: Database):
    user = await ensure_user(db, UserRef("t", "u1", "U"), 1.0)
    chat = await ensure_chat(db, ChatRef("t", "c1"), 1.0)
    interview_id = await records.create_interview(db, user.id, chat.id, InterviewFilters(), ["fx-001"], "en", 1.0)
    asked = await records.ask(db, "fx-001", chat.id, interview_id, 0, (1, 0, 2, 3), 1.0, None)
    return user, chat, asked


async def test_one_answer_per_user_per_asked_question(db: Database) -> None:
    user, _, asked = await _answer_setup(db)
    answer = RecordedAnswer(asked.id, user.id, 0, True, 100, 2.0)
    async with db.transaction() as connection:
        await records.insert_answer(connection, answer)
    with pytest.raises(records.AlreadyAnswered):
        async with db.transaction() as connection:
            await records.insert_answer(connection, answer)
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 1


async def test_foreign_keys_are_enforced(db: Database) -> None:
    with pytest.raises(IntegrityViolation):
        async with db.transaction() as connection:
            await records.insert_answer(connection, RecordedAnswer(12345, 999, 0, True, 1, 1.0))


async def test_a_failed_transaction_leaves_nothing(db: Database) -> None:
    user, chat, _ = await _answer_setup(db)
    with pytest.raises(RuntimeError):
        async with db.transaction() as connection:
            await connection.execute("UPDATE users SET name = 'changed' WHERE id = ?", (user.id,))
            raise RuntimeError("crash between two writes")
    assert (await db.fetch_one("SELECT name FROM users WHERE id = ?", (user.id,)))[0] == "U"


async def test_only_one_active_interview_per_user(db: Database) -> None:
    user, chat, _ = await _answer_setup(db)
    with pytest.raises(UniqueViolation):
        async with db.transaction() as connection:
            await connection.execute(
                "INSERT INTO interviews (user_id, chat_id, status, filters, plan, language, started_at)"
                " VALUES (?, ?, 'active', '{}', '[]', 'en', 0)", (user.id, chat.id))


async def test_a_moved_chat_keeps_its_record(db: Database) -> None:
    chat = await ensure_chat(db, ChatRef("telegram", "-100", "group"), 1.0)
    await set_chat_language(db, chat.id, "tr")
    await move_chat(db, "telegram", "-100", "-100200")
    moved = await ensure_chat(db, ChatRef("telegram", "-100200", "group"), 2.0)
    assert moved.id == chat.id and moved.language == "tr"


async def _columns(db: Database, table: str) -> list[str]:
    if db.dialect.name == "sqlite":
        return [row[1] for row in await db.fetch_all(f"PRAGMA table_info({table})")]
    return [row[0] for row in await db.fetch_all(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?", (table,))]


async def test_an_older_database_is_upgraded_in_place(empty_store) -> None:
    path = empty_store
    async with await Database.open(path, migrate_to=1) as old:
        assert await old.schema_version() == 1
        async with old.transaction() as connection:  # rows as version 1 of the program wrote them
            for statement in statements("""
                INSERT INTO users (id, platform, platform_user_id, name, created_at) VALUES (1, 't', 'u1', 'U', 1);
                INSERT INTO chats (id, platform, platform_chat_id, kind, created_at) VALUES (1, 't', 'c1', 'private', 1);
                INSERT INTO interviews (id, user_id, chat_id, status, filters, plan, language, started_at)
                    VALUES (1, 1, 1, 'active', '{"count": 1}', '["fx-001"]', 'en', 1);
                INSERT INTO asked_questions (id, question_id, chat_id, interview_id, position, option_order, asked_at)
                    VALUES (1, 'fx-001', 1, 1, 0, '1023', 1);
                INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at)
                    VALUES (1, 1, 0, 1, 900, 2);"""):
                await connection.execute(statement)
        assert "message_ref" not in await _columns(old, "asked_questions")
    async with await Database.open(path) as db:
        assert await db.schema_version() == LATEST
        kept = await records.get_asked(db, 1)
        assert kept is not None and kept.option_order == (1, 0, 2, 3), "rows written under the old schema survive"
        interview = await records.get_interview(db, 1)
        assert interview is not None and interview.plan == ("fx-001",)
        answer = await records.get_answer(db, 1, 1)
        assert answer is not None and answer.points == 0 and answer.latency_ms == 900
        await records.set_message_ref(db, 1, "chat:1/message:2")
        assert await records.message_ref(db, 1) == "chat:1/message:2"
        row = await db.fetch_one("SELECT kind FROM interviews WHERE id = 1")
        assert row["kind"] == "interview"


async def test_a_newer_database_is_refused_untouched(tmp_path) -> None:
    path = tmp_path / "future.sqlite3"
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {LATEST + 5}")
    connection.close()
    with pytest.raises(StoreError, match="newer than this program") as refused:
        await Database.open(path)
    assert isinstance(refused.value.__cause__, SchemaTooNew)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == LATEST + 5


@pytest.mark.parametrize("make, words", [
    (lambda p: p.write_bytes(b"\x00garbage" * 500), "not an interview-bot database"),
    (lambda p: p.write_text("hello, this is a text file\n" * 50), "not an interview-bot database"),
    (lambda p: p.mkdir(), "is a folder"),
])
async def test_a_file_that_is_not_a_store_gets_one_line_and_stays_untouched(tmp_path, make, words) -> None:
    path = tmp_path / "store.sqlite3"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(StoreError, match=words):
        await asyncio.wait_for(Database.open(path), 10)  # and it returns: no thread left hanging
    assert (path.read_bytes() if path.is_file() else None) == before


async def test_a_read_only_store_is_refused_at_start(tmp_path, monkeypatch) -> None:
    """Read-only as SQLite sees it (a read-only mount, a file the user may not write): opened read-only
    here, since file modes do not stop root."""
    import aiosqlite

    path = tmp_path / "store.sqlite3"
    await (await Database.open(path)).close()
    connect = aiosqlite.connect
    monkeypatch.setattr(aiosqlite, "connect", lambda target, **kw: connect(f"file:{target}?mode=ro", uri=True, **kw))
    with pytest.raises(StoreError, match="not writable"):
        await Database.open(path)


def test_two_processes_starting_on_one_fresh_file_take_turns_to_migrate(tmp_path) -> None:
    path = tmp_path / "fresh.sqlite3"
    script = ("import asyncio, sys; from bot.store import Database\n"
              "async def main():\n    db = await Database.open(sys.argv[1]); await db.close()\n"
              "asyncio.run(main())\n")
    starts = [subprocess.Popen([sys.executable, "-c", script, str(path)], cwd=REPO, stderr=subprocess.PIPE, text=True)
              for _ in range(4)]
    errors = [process.communicate(timeout=60)[1] for process in starts]
    assert [process.returncode for process in starts] == [0, 0, 0, 0], errors
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == LATEST


async def test_moving_a_chat_onto_a_known_id_merges_the_two(db: Database) -> None:
    from bot.store.daily import create_post, get_subscription, save_subscription

    old = await ensure_chat(db, ChatRef("telegram", "-1", "group"), 1.0)
    new = await ensure_chat(db, ChatRef("telegram", "-1001", "group"), 1.0)  # someone used the supergroup first
    await save_subscription(db, old.id, "09:00", "UTC", None, None, None, 3600, 1.0, 32400.0)
    await create_post(db, old.id, "fx-001", (0, 1, 2, 3), "scheduled", "2026-05-04", 10.0, 1.0)
    await create_post(db, new.id, "fx-002", (0, 1, 2, 3), "scheduled", "2026-05-04", 10.0, 1.0)
    await move_chat(db, "telegram", "-1", "-1001")
    merged = await ensure_chat(db, ChatRef("telegram", "-1001", "group"), 2.0)
    assert merged.id == new.id
    assert (await get_subscription(db, new.id)).post_time == "09:00"
    rows = await db.fetch_all("SELECT chat_id, kind FROM daily_posts ORDER BY id")
    assert [(row["chat_id"], row["kind"]) for row in rows] == [(new.id, "manual"), (new.id, "scheduled")]
    assert (await db.fetch_one("SELECT count(*) FROM chats WHERE platform_chat_id = '-1'"))[0] == 0


async def test_a_store_deleted_while_running_refuses_writes(tmp_path) -> None:
    folder = tmp_path / "data"
    db = await Database.open(folder / "store.sqlite3")
    try:
        await ensure_user(db, UserRef("test", "a", "A"), 1.0)
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()
        with pytest.raises(StoreGone, match="deleted or replaced"):
            await ensure_user(db, UserRef("test", "b", "B"), 2.0)
        assert db.gone.is_set()
    finally:
        await db.close()


async def test_migration_7_puts_history_in_its_utc_week_on_both_backends(empty_store) -> None:
    from bot.store.scores import utc_week_start

    sunday_evening = 1_780_263_000.0  # late in a UTC week: rounding instead of flooring would pick the next
    async with await Database.open(empty_store, migrate_to=6) as old:
        async with old.transaction() as connection:
            for statement in statements(f"""
                INSERT INTO users (id, platform, platform_user_id, name, created_at) VALUES (1, 't', 'u1', 'U', 1);
                INSERT INTO chats (id, platform, platform_chat_id, kind, created_at) VALUES (1, 't', 'g', 'group', 1);
                INSERT INTO asked_questions (id, question_id, chat_id, position, option_order, asked_at)
                    VALUES (1, 'fx-001', 1, 0, '0123', {sunday_evening});
                INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
                    VALUES (1, 1, 0, 1, 900, {sunday_evening + 5}, 2);"""):
                await connection.execute(statement)
    async with await Database.open(empty_store) as db:
        rows = await db.fetch_all("SELECT week_start, chat_id, active, points FROM group_weeks")
        assert [tuple(row) for row in rows] == [(utc_week_start(sunday_evening), 1, 1, 2)]
