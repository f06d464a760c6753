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


async def test_concurrent_bodies_share_calls_and_each_stands_or_falls_alone(db) -> None:
    """Twenty people's transactions at once: the good ones are all written, the one that breaks leaves
    nothing of its own and its caller hears why, and (on SQLite) they went in fewer calls than bodies."""
    calls = 0
    if db.dialect.name == "sqlite":
        run = db._run  # each one-call transaction, on the event loop's connection or in aiosqlite's thread

        async def counted(work, argument):
            nonlocal calls
            calls += 1
            return await run(work, argument)

        db._run = counted

    def body_for(person: int):
        async def body(transaction: Transaction) -> str:
            await transaction.execute(USER, (f"p{person}",))
            if person == 7:
                await transaction.execute(USER, ("p7",))  # a second row for the same person: refused
            return f"p{person}"
        return body

    outcomes = await asyncio.gather(*(db.in_shared_call(body_for(n)) for n in range(20)), return_exceptions=True)
    assert isinstance(outcomes[7], UniqueViolation)
    assert [o for n, o in enumerate(outcomes) if n != 7] == [f"p{n}" for n in range(20) if n != 7]
    rows = await db.fetch_all("SELECT platform_user_id FROM users ORDER BY id")
    assert sorted(row[0] for row in rows) == sorted(f"p{n}" for n in range(20) if n != 7)
    if db.dialect.name == "sqlite":
        assert 1 <= calls < 20


async def test_a_shared_body_that_waits_for_something_else_is_refused_alone_on_sqlite(db) -> None:
    async def waits(transaction: Transaction) -> None:
        await transaction.execute(USER, ("w",))
        await asyncio.sleep(0)

    async def fine(transaction: Transaction) -> None:
        await transaction.execute(USER, ("f",))

    outcomes = await asyncio.gather(db.in_shared_call(waits), db.in_shared_call(fine), return_exceptions=True)
    if db.dialect.name != "sqlite":
        assert outcomes == [None, None] and await count(db) == 2
        return
    assert isinstance(outcomes[0], RuntimeError) and outcomes[1] is None
    assert [row[0] for row in await db.fetch_all("SELECT platform_user_id FROM users")] == ["f"]


async def test_closing_writes_the_shared_calls_already_accepted(tmp_path) -> None:
    from bot.store import Database

    db = await Database.open(tmp_path / "shared.sqlite3")

    async def body(transaction: Transaction) -> None:
        await transaction.execute(USER, ("late",))

    pending = asyncio.ensure_future(db.in_shared_call(body))
    await asyncio.sleep(0)  # accepted, not yet written
    await db.close()
    await pending
    db = await Database.open(tmp_path / "shared.sqlite3")
    try:
        assert await count(db) == 1
    finally:
        await db.close()
