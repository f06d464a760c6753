"""A PostgreSQL transaction's held-back statements (bot/store/postgres_transaction.py): the BEGIN, key locks
and executemany rows go out with the next statement or the COMMIT, written as literals. Checked from the
outside: the values read back are the values given, an error among them still undoes the transaction,
a held-back lock is held before the next statement runs, and the round trips counted at the server's
door (through the latency proxy) are fewer."""

from __future__ import annotations

import asyncio
import math

import pytest

from benchmarks.pg_proxy import ProxyProcess
from bot.store import Database
from bot.store.backend import IntegrityViolation, StaleRead
from bot.store.postgres_transaction import inlined, literal, with_arrays

TRICKY_FLOATS = [0.1, 1 / 3, -2.5e-308, 5e-324, 1.7976931348623157e308, 123456789.12345679, -0.0, math.pi,
                 float("inf"), float("-inf")]
TRICKY_TEXTS = ["plain", "it's", "''; DROP TABLE users; --", "back\\slash", "?", "$1", "çğıöşü 日本", "\n\t", ""]


@pytest.mark.parametrize("value, text", [(None, "NULL"), (True, "TRUE"), (7, "7"), (-3, "-3"), (0.5, "'0.5'"),
                                         (float("nan"), "'NaN'"), ("it's", "'it''s'"), (b"x", None), ("a\x00b", None)])
def test_a_value_is_a_literal_or_is_left_as_a_parameter(value, text) -> None:
    assert literal(value) == text


@pytest.mark.parametrize("value, text", [([1, 22], "ARRAY[1,22]"), ([], "'{}'"), (["a'b", "c"], "ARRAY['a''b','c']"),
                                         ([1.5], None), ([True], None), ([None], None), (["a\x00"], None)])
def test_a_list_of_numbers_or_texts_is_an_array_literal(value, text) -> None:
    assert literal(value) == text


def test_placeholders_in_quotes_stay_and_a_missing_parameter_leaves_the_statement_as_it_was() -> None:
    assert inlined("SELECT '?', ? WHERE x = ?", (1, "a")) == "SELECT '?', 1 WHERE x = 'a'"
    assert inlined("SELECT ?, ?", (1,)) is None
    assert inlined("SELECT ?", (object(),)) is None


@pytest.mark.parametrize("sql, parameters, expected", [
    ("SELECT * FROM t WHERE a IN (?,?,?) AND b = ? AND c NOT IN (?)", (1, 2, 3, "x", 4),
     ("SELECT * FROM t WHERE a = ANY($1) AND b = $2 AND c <> ALL($3)", [[1, 2, 3], "x", [4]])),
    ("SELECT 'IN (?)', ? FROM t WHERE id in ( ?, ? )", (1, 2, 3), ("SELECT 'IN (?)', $1 FROM t WHERE id = ANY($2 )", [1, [2, 3]])),
    ("SELECT ? WHERE (a, b) IN ((?, ?)) AND c IN (?, 3)", (1, 2, 3, 4),
     ("SELECT $1 WHERE (a, b) IN (($2, $3)) AND c IN ($4, 3)", (1, 2, 3, 4))),
])
def test_an_in_list_becomes_one_array_parameter(sql, parameters, expected) -> None:
    assert with_arrays(sql, parameters) == expected


async def _db(url: str) -> Database:
    db = await Database.open(url)
    async with db.transaction() as connection:
        await connection.execute("CREATE TABLE IF NOT EXISTS held (id INTEGER PRIMARY KEY, x DOUBLE PRECISION, "
                                 "t TEXT, n INTEGER CHECK (n >= 0))")
        await connection.execute("DELETE FROM held")
    return db


async def test_held_back_rows_read_back_exactly_as_given(postgres_url) -> None:
    db = await _db(postgres_url)
    try:
        rows = [(number, TRICKY_FLOATS[number % len(TRICKY_FLOATS)], TRICKY_TEXTS[number % len(TRICKY_TEXTS)],
                 None if number % 4 == 0 else number) for number in range(40)]
        async with db.transaction() as connection:
            await connection.executemany("INSERT INTO held (id, x, t, n) VALUES (?, ?, ?, ?)", rows)
            await connection.executemany(  # an upsert over the same keys, held back behind the first
                "INSERT INTO held (id, x, t, n) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET t = excluded.t || '!'",
                rows[:5])
        read = [tuple(row) for row in await db.fetch_all("SELECT id, x, t, n FROM held ORDER BY id")]
        expected = [(i, x, t + "!" if i < 5 else t, n) for i, x, t, n in rows]
        assert read == expected
        assert math.copysign(1, read[6][1]) == -1.0  # -0.0 kept its sign
        assert len(await db.fetch_all("SELECT * FROM users")) == 0  # the injection attempt is only text
    finally:
        await db.close()


async def test_an_error_in_a_held_back_row_undoes_the_whole_transaction(postgres_url) -> None:
    db = await _db(postgres_url)
    try:
        with pytest.raises(IntegrityViolation):
            async with db.transaction() as connection:
                await connection.execute("INSERT INTO held (id, n) VALUES (1, 1)")
                await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(2, 2), (3, -1)])
        assert await db.fetch_all("SELECT * FROM held") == []
        async with db.transaction() as connection:  # the connection went back to the pool clean
            await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(4, 4)])
        assert [tuple(row) for row in await db.fetch_all("SELECT id, n FROM held")] == [(4, 4)]
    finally:
        await db.close()


async def test_a_held_back_lock_is_held_before_the_next_statement_runs(postgres_url) -> None:
    first, second = await _db(postgres_url), await Database.open(postgres_url)
    try:
        entered = asyncio.Event()
        order: list[str] = []

        async def holder() -> None:
            async with first.transaction() as connection:
                await connection.lock("person", [42])
                await connection.fetch_all("SELECT 1")  # the lock went out with this
                entered.set()
                await asyncio.sleep(0.3)
                order.append("first done")

        async def waiter() -> None:
            await entered.wait()
            async with second.transaction() as connection:
                await connection.lock("person", [42])
                await connection.fetch_all("SELECT 1")
                order.append("second ran")

        await asyncio.wait_for(asyncio.gather(holder(), waiter()), 10)
        assert order == ["first done", "second ran"]
    finally:
        await first.close()
        await second.close()


async def test_begin_locks_and_rows_cost_no_round_trips_of_their_own(postgres_server, postgres_url) -> None:
    await (await _db(postgres_url)).close()
    async with ProxyProcess(postgres_server.port) as proxy:
        url = postgres_url.replace(f":{postgres_server.port}/", f":{proxy.port}/")
        assert url != postgres_url
        db = await Database.open(url)
        try:
            async with db.transaction() as connection:  # a pooled connection made, statements prepared
                await connection.fetch_all("SELECT id FROM held WHERE id = ?", (0,))
            before = (await proxy.chunks())["to_server"]
            async with db.transaction() as connection:
                await connection.lock("person", [1, 2])  # with BEGIN, one message sent before the read
                await connection.fetch_all("SELECT id FROM held WHERE id = ?", (0,))
                await connection.lock("chat", [3])
                await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(1, 1), (2, 2)])
                await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(3, 3)])  # with the COMMIT
            flights = (await proxy.chunks())["to_server"] - before
            # BEGIN and the locks, the read, the second lock with the rows and COMMIT: 3 (sent one by one, 7)
            assert flights <= 3, f"{flights} messages to the server"
            assert len(await db.fetch_all("SELECT * FROM held")) == 3
        finally:
            await db.close()


async def test_reads_fetched_together_come_back_as_each_would_alone_in_one_round_trip(postgres_server,
                                                                                       postgres_url) -> None:
    """`fetch_together`: several queries (one of them locking what it reads, one finding nothing, one
    with an IN list) read in one statement; each one's rows are what it alone would give."""
    await (await _db(postgres_url)).close()
    async with ProxyProcess(postgres_server.port) as proxy:
        db = await Database.open(postgres_url.replace(f":{postgres_server.port}/", f":{proxy.port}/"))
        try:
            async with db.transaction() as connection:
                await connection.executemany("INSERT INTO held (id, x, t, n) VALUES (?, ?, ?, ?)",
                                             [(i, TRICKY_FLOATS[i], TRICKY_TEXTS[i], None) for i in range(5)])
            queries = [("SELECT id, x, t FROM held WHERE id IN (?, ?, ?) ORDER BY id FOR SHARE", (0, 1, 4)),
                       ("SELECT id FROM held WHERE t = ?", ("nobody",)),
                       ("SELECT 'kind', count(*), max(n) FROM held WHERE id > ?", (1,))]
            async with db.transaction() as connection:
                alone = [[tuple(row) for row in await connection.fetch_all(sql, values)] for sql, values in queries]
                await connection.fetch_together(queries)  # prepared once on this connection
                before = (await proxy.chunks())["to_server"]
                together = await connection.fetch_together(queries)
                assert (await proxy.chunks())["to_server"] - before == 1
            assert [[tuple(row) for row in rows] for rows in together] == alone
            assert together[0] == [(0, TRICKY_FLOATS[0], TRICKY_TEXTS[0]), (1, TRICKY_FLOATS[1], TRICKY_TEXTS[1]),
                                   (4, TRICKY_FLOATS[4], TRICKY_TEXTS[4])]
            assert together[1] == [] and together[2] == [("kind", 3, None)]
        finally:
            await db.close()


async def test_a_list_of_another_length_needs_no_statement_of_its_own(postgres_server, postgres_url) -> None:
    async with ProxyProcess(postgres_server.port) as proxy:
        db = await Database.open(postgres_url.replace(f":{postgres_server.port}/", f":{proxy.port}/"))
        try:
            await (await _db(postgres_url)).close()
            async with db.transaction() as connection:
                await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(i, i) for i in range(9)])
            async with db.transaction() as connection:  # one connection: its statements prepared once
                query = "SELECT id FROM held WHERE id IN ({}) AND n NOT IN ({}) ORDER BY id"
                await connection.fetch_all(query.format("?, ?", "?"), (1, 2, 3))
                before = (await proxy.chunks())["to_server"]
                rows = await connection.fetch_all(query.format("?, ?, ?, ?", "?, ?"), (1, 2, 3, 4, 3, 9))
                assert [row[0] for row in rows] == [1, 2, 4]
                assert (await proxy.chunks())["to_server"] - before == 1, "one round trip, nothing new to prepare"
        finally:
            await db.close()


async def test_a_session_that_reads_backslashes_as_escapes_still_stores_them_as_given(postgres_url) -> None:
    """With standard_conforming_strings off a backslash in a literal starts an escape: the rows must then go
    as parameters, or 'back\\slash' would be stored as 'backslash'."""
    db = await _db(postgres_url)
    try:
        rows = [(number, 0.5, text, 1) for number, text in enumerate(["back\\slash", "\\'; SELECT 1; --", "\\n"])]
        async with db.transaction() as connection:
            await connection.execute("SET LOCAL standard_conforming_strings = off")
            await connection.executemany("INSERT INTO held (id, x, t, n) VALUES (?, ?, ?, ?)", rows)
        read = [tuple(row) for row in await db.fetch_all("SELECT id, x, t, n FROM held ORDER BY id")]
        assert read == rows
    finally:
        await db.close()


async def _run(db: Database, sql: str) -> None:
    async with db.transaction() as connection:
        await connection.execute(sql)


CHECK = ("SELECT count(*) || '.' || coalesce(sum(xmin::text::bigint), 0) FROM held WHERE id = ANY(?::integer[])", ([1],))


async def test_a_read_ahead_of_the_locks_commits_when_nothing_changed_and_keeps_nothing_when_something_did(
        postgres_url) -> None:
    """Read ahead, locked, checked, written: committed as one when the rows read are as they were; when another
    transaction changed one in between, StaleRead, and none of the writes held back with the check is kept."""
    db, other = await _db(postgres_url), await Database.open(postgres_url)
    try:
        await _run(db, "INSERT INTO held (id, n) VALUES (1, 1)")
        async with db.transaction() as connection:
            (rows,), seen = await connection.read_ahead([("SELECT n FROM held WHERE id = ?", (1,))], CHECK)
            assert [tuple(row) for row in rows] == [(1,)]
            await connection.lock("person", [1])
            await connection.expect_unchanged(CHECK, seen)
            await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(2, rows[0][0] + 1)])
        assert [tuple(row) for row in await db.fetch_all("SELECT id, n FROM held ORDER BY id")] == [(1, 1), (2, 2)]

        with pytest.raises(StaleRead):
            async with db.transaction() as connection:
                (rows,), seen = await connection.read_ahead([("SELECT n FROM held WHERE id = ?", (1,))], CHECK)
                await _run(other, "UPDATE held SET n = 5 WHERE id = 1")  # committed between the read and the lock
                await connection.lock("person", [1])
                await connection.expect_unchanged(CHECK, seen)
                await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(3, rows[0][0] + 1)])
        assert [tuple(row) for row in await db.fetch_all("SELECT id, n FROM held ORDER BY id")] == [(1, 5), (2, 2)]
    finally:
        await db.close()
        await other.close()


async def test_a_check_waits_for_the_lock_and_sees_what_its_holder_committed(postgres_url) -> None:
    """The check runs once the held-back lock is granted, on a snapshot taken then: a writer holding the lock
    when the read ahead ran, committing after it, fails the check (the read missed its write)."""
    db, other = await _db(postgres_url), await Database.open(postgres_url)
    try:
        await _run(db, "INSERT INTO held (id, n) VALUES (1, 1)")
        holding, release = asyncio.Event(), asyncio.Event()

        async def holder() -> None:
            async with other.transaction() as connection:
                await connection.lock("person", [1])
                await connection.execute("UPDATE held SET n = 9 WHERE id = 1")
                holding.set()
                await release.wait()

        task = asyncio.create_task(holder())
        await holding.wait()
        with pytest.raises(StaleRead):
            async with db.transaction() as connection:
                _, seen = await connection.read_ahead([], CHECK)  # the update is not committed yet: not seen
                await connection.lock("person", [1])
                await connection.expect_unchanged(CHECK, seen)
                asyncio.get_running_loop().call_later(0.2, release.set)  # the holder commits while the check waits
                await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(3, 3)])
        await task
        assert [tuple(row) for row in await db.fetch_all("SELECT id, n FROM held ORDER BY id")] == [(1, 9)]
    finally:
        await db.close()
        await other.close()


async def test_a_read_ahead_then_the_writes_cost_two_round_trips(postgres_server, postgres_url) -> None:
    await (await _db(postgres_url)).close()
    async with ProxyProcess(postgres_server.port) as proxy:
        db = await Database.open(postgres_url.replace(f":{postgres_server.port}/", f":{proxy.port}/"))
        try:
            for round_ in range(2):  # the first prepares the read on a new pooled connection
                before = (await proxy.chunks())["to_server"]
                async with db.transaction() as connection:
                    _, seen = await connection.read_ahead([("SELECT id FROM held WHERE id = ?", (0,))], CHECK)
                    await connection.lock("person", [1, 2])
                    await connection.expect_unchanged(CHECK, seen)
                    await connection.executemany("INSERT INTO held (id, n) VALUES (?, ?)", [(10 + round_, 1)])
            flights = (await proxy.chunks())["to_server"] - before
            assert flights <= 2, f"{flights} messages to the server"  # the read; BEGIN to COMMIT
            assert len(await db.fetch_all("SELECT * FROM held")) == 2
        finally:
            await db.close()
