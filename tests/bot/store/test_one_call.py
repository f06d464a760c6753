"""A transaction run in one call: it commits what its body wrote, rolls back on any error, and refuses a
body that awaits anything but its own statements (on SQLite it runs in the database's thread)."""

from __future__ import annotations

import asyncio

import pytest

from bot.store.backend import Transaction, UniqueViolation

USER = "INSERT INTO users (platform, platform_user_id, name, created_at) VALUES ('t', ?, 'N', 0)"


async def count(db) -> int:
    return (await db.fetch_one("SELECT count(*) FROM users"))[0]


async def test_the_body_commits_and_returns_its_value(db) -> None:
    async def body(transaction: Transaction) -> int:
        await transaction.executemany(USER, [("1",), ("2",)])
        return len(await transaction.fetch_all("SELECT id FROM users"))

    assert await db.in_one_call(body) == 2
    assert await count(db) == 2


async def test_an_error_in_the_body_rolls_back_everything(db) -> None:
    async def body(transaction: Transaction) -> None:
        await transaction.execute(USER, ("1",))
        await transaction.execute(USER, ("1",))  # the same person twice: the unique key refuses it

    with pytest.raises(UniqueViolation):
        await db.in_one_call(body)
    assert await count(db) == 0


async def test_a_body_that_waits_for_something_else_is_refused_on_sqlite(db) -> None:
    async def body(transaction: Transaction) -> None:
        await transaction.execute(USER, ("1",))
        await asyncio.sleep(0)  # on SQLite the body runs in the database's thread, where nothing else may run

    if db.dialect.name != "sqlite":
        await db.in_one_call(body)  # statement by statement: waiting is allowed
        assert await count(db) == 1
        return
    with pytest.raises(RuntimeError, match="awaited something other"):
        await db.in_one_call(body)
    assert await count(db) == 0
