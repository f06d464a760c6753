"""One PostgreSQL transaction on a pooled connection, sending as few round trips as its statements allow.

With the database a network away every message that waits for an answer costs a round trip, and a
transaction's statements run one after another. Three kinds of statement give nothing back that the
body waits for: the BEGIN, a key lock, and the rows of an `executemany` (upserts whose outcome is only
success). Those are held back and sent, joined into one simple-protocol message, in front of the next
statement that does answer (or with the COMMIT): BEGIN goes with the first lock, a batch's upserts go
with its COMMIT. Each stays where it was in the order of the transaction, so what the body reads is
what it would have read; an error in one of them is raised by the next statement (or the COMMIT) and
rolls the whole transaction back, as it would have anyway. Held-back rows are written into the SQL as
literals (numbers, text quoted, NULL, arrays of numbers or texts); a value of another type, or a long
executemany, is sent as before, after what was held back.

A body can go one round trip shorter still by reading ahead of BEGIN and its locks (`read_ahead`) and
having the read checked under them (`expect_unchanged`, held back too): the whole transaction is then
the read and one message, and fails with StaleRead when what it read had changed.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

import asyncpg
from asyncpg import exceptions as pg

from bot.store.backend import POSTGRESQL, IntegrityViolation, Result, Row, StaleRead, Transaction, UniqueViolation

log = logging.getLogger(__name__)
LOST = (pg.PostgresConnectionError, pg.OperatorInterventionError, pg.InterfaceError, ConnectionError, OSError)
BEGIN_ATTEMPTS = 3
# high bits of `Transaction.lock`'s keys (0x12 was items': row locks now; "item_fold": bot/store/item_steps.py)
KEY_KINDS = {"person": 0x11, "chat": 0x13, "item_fold": 0x14}
HELD_BACK_ROWS = 64  # an executemany this long or longer goes as before (a bulk copy), not as literals
STALE_STATE = "IB001"  # the SQLSTATE of interview_bot_expect (migration 18): what was read ahead has changed


@functools.lru_cache(maxsize=4096)
def numbered(sql: str) -> str:
    """`?` placeholders as PostgreSQL's `$1, $2, ...` (a `?` inside a quoted literal or name stays)."""
    return "".join(f"${index}" if isinstance(index, int) else index for index in _pieces(sql))


@functools.lru_cache(maxsize=1024)
def _pieces(sql: str) -> tuple[str | int, ...]:
    """The statement cut at its `?` placeholders: text, then the placeholder's number (from 1), and so on."""
    out: list[str | int] = []
    text: list[str] = []
    quote = ""
    number = 0
    for char in sql:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "?":
            number += 1
            out.extend(("".join(text), number))
            text = []
            continue
        text.append(char)
    out.append("".join(text))
    return tuple(out)


_LIST_OPENS = re.compile(r"\b(NOT\s+)?IN\s*\(\s*$", re.IGNORECASE)  # text before a list's first `?`
_LIST_GOES_ON = re.compile(r"\s*,\s*")
_LIST_CLOSES = re.compile(r"\s*\)")


@functools.lru_cache(maxsize=4096)
def _array_plan(sql: str) -> tuple[str, tuple[int, ...]]:
    """The statement in `$n` form with each `IN (?, ?, ...)` list written as one array parameter (`= ANY($n)`,
    `<> ALL($n)` for NOT IN), and for each new parameter how many given ones it takes (0: one, as it is)."""
    pieces = _pieces(sql)
    texts, count = list(pieces[0::2]), len(pieces) // 2
    out: list[str] = []
    sizes: list[int] = []
    current, index = texts[0], 0
    while index < count:
        opening = _LIST_OPENS.search(current)
        last = index
        while last + 1 < count and _LIST_GOES_ON.fullmatch(texts[last + 1]):
            last += 1
        if opening and _LIST_CLOSES.match(texts[last + 1]):
            out.append(current[:opening.start()] + ("<> ALL(" if opening.group(1) else "= ANY(") + f"${len(sizes) + 1}")
            sizes.append(last - index + 1)
            current, index = texts[last + 1], last + 1
            continue
        out.append(f"{current}${len(sizes) + 1}")
        sizes.append(0)
        current, index = texts[index + 1], index + 1
    out.append(current)
    return "".join(out), tuple(sizes)


def with_arrays(sql: str, parameters: Sequence[Any]) -> tuple[str, Sequence[Any]]:
    """The statement and its parameters with every `IN (?, ...)` list as one array: one text whatever the
    list's length, so the statement asyncpg prepared on a connection serves every batch size (each new
    text costs a round trip to prepare, on each pooled connection)."""
    text, sizes = _array_plan(sql)
    if not any(sizes):
        return text, parameters
    out: list[Any] = []
    position = 0
    for size in sizes:
        if size:
            out.append(list(parameters[position:position + size]))
            position += size
        else:
            out.append(parameters[position])
            position += 1
    return text, out


def literal(value: Any) -> str | None:
    """A parameter written as an SQL literal the column's type takes, or None for a type not handled here
    (the statement is then sent with its parameters). Text doubles its quotes: with standard_conforming_strings
    on (PostgreSQL's default since 9.1; `quotes_are_plain` checks the session) nothing in it can end the
    literal. A float is written exactly (Python's repr reads back to the same double)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "'NaN'"
        if math.isinf(value):
            return "'Infinity'" if value > 0 else "'-Infinity'"
        return f"'{value!r}'"
    if isinstance(value, str) and "\x00" not in value:
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, list):  # an array of numbers or texts (its type from a cast where it goes)
        items = [literal(item) if isinstance(item, (int, str)) and not isinstance(item, bool) else None
                 for item in value]
        if any(item is None for item in items):
            return None
        return f"ARRAY[{','.join(item for item in items if item)}]" if items else "'{}'"
    return None


def quotes_are_plain(connection: asyncpg.Connection) -> bool:
    """Whether a backslash in a quoted literal is just a character on this session (the server reports
    `standard_conforming_strings` on every change); when it is not, rows go as parameters instead."""
    try:
        return str(connection.get_settings().standard_conforming_strings) == "on"
    except AttributeError:  # a server that never reported it: assume the worst
        return False


def inlined(sql: str, parameters: Sequence[Any]) -> str | None:
    """The statement with its parameters written in as literals, or None when one cannot be."""
    pieces = _pieces(sql)
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, int):
            if piece > len(parameters):
                return None
            text = literal(parameters[piece - 1])
            if text is None:
                return None
            out.append(text)
        else:
            out.append(piece)
    return "".join(out)


def lock_key(kind: str, key: int | str) -> int:
    """A transaction advisory lock's 64-bit key: the kind in the top bits, then the id (or a stable hash
    of a text key, such as a question id), so different kinds never share a lock."""
    if isinstance(key, str):
        value = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=6).digest(), "big")
    else:
        value = key & 0xFFFF_FFFF_FFFF
    return (KEY_KINDS[kind] << 48) | value


def violation(error: pg.IntegrityConstraintViolationError) -> IntegrityViolation:
    kind = UniqueViolation if isinstance(error, pg.UniqueViolationError) else IntegrityViolation
    return kind(str(error))


def meaning(error: pg.PostgresError) -> Exception:
    """What a statement's error means to the body: a refused write, a read ahead found stale, or itself."""
    if isinstance(error, pg.IntegrityConstraintViolationError):
        return violation(error)
    if error.sqlstate == STALE_STATE:
        return StaleRead(str(error))
    return error


def together(queries: Sequence[tuple[str, Sequence[Any]]]) -> tuple[str, list[Any]]:
    """The queries as one statement: each one's rows gathered into an array of records."""
    sql = "SELECT " + ", ".join(f"(SELECT array_agg(r) FROM ({query}) AS r)" for query, _ in queries)
    return sql, [value for _, parameters in queries for value in parameters]


def _changed(status: str) -> int:
    """Rows a command changed, from its status tag ('UPDATE 3', 'INSERT 0 1', 'DELETE 0')."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresTransaction(Transaction):
    """Statements on one pooled connection, between a BEGIN sent with the first of them and the COMMIT
    `PostgresDatabase.transaction` asks for."""

    dialect = POSTGRESQL

    def __init__(self, connection: asyncpg.Connection, pool: asyncpg.Pool) -> None:
        self.connection = connection
        self._pool = pool
        self.begun = False  # BEGIN has gone out (the connection may hold an open transaction)
        self._waiting: list[str] = ["BEGIN"]  # held back, in order, for the next statement's round trip
        self._held: set[int] = set()  # key locks this transaction holds already (asking again costs a round trip)

    async def _send_waiting(self, last: str = "") -> str:
        """What was held back, and `last` after it, as one message; the status of the last statement in it.
        A connection found dead while BEGIN is still to go is swapped: nothing of the transaction ran."""
        script = "; ".join([*self._waiting, last] if last else self._waiting)
        if not script:
            return ""
        for attempt in range(1, BEGIN_ATTEMPTS + 1):
            first = not self.begun
            self.begun = True
            try:
                status = await self.connection.execute(script)
                break
            except LOST:
                if not first or last == "COMMIT" or attempt == BEGIN_ATTEMPTS:  # (a COMMIT may have been done)
                    raise
                self.begun = False
                await self._swap_connection()
            except pg.PostgresError as error:
                self._waiting = []
                mapped = meaning(error)
                if mapped is error:
                    raise
                raise mapped from error
        self._waiting = []
        return str(status)

    async def _swap_connection(self) -> None:
        """Another pooled connection for one found dead before anything of the transaction ran on it."""
        log.warning("store: a pooled connection was lost; trying another")
        await self._pool.release(self.connection)
        self.connection = await self._pool.acquire()

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Result:
        await self._send_waiting()
        text, parameters = with_arrays(sql, parameters)
        try:
            return Result(_changed(await self.connection.execute(text, *parameters)))
        except pg.PostgresError as error:
            mapped = meaning(error)
            if mapped is error:
                raise
            raise mapped from error

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Held back (written with literals) until the next statement or the COMMIT, when every row can be;
        else sent now, with the rows as parameters (asyncpg pipelines them: one round trip)."""
        rows = list(rows)
        if not rows:
            return
        if len(rows) < HELD_BACK_ROWS and quotes_are_plain(self.connection):
            statements = [inlined(sql, row) for row in rows]
            if all(statement is not None for statement in statements):
                self._waiting.extend(statement for statement in statements if statement is not None)
                return
        await self._send_waiting()
        try:
            await self.connection.executemany(numbered(sql), rows)
        except pg.IntegrityConstraintViolationError as error:
            raise violation(error) from error

    async def fetch_all(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        await self._send_waiting()
        text, parameters = with_arrays(sql, parameters)
        try:
            return await self.connection.fetch(text, *parameters)
        except pg.IntegrityConstraintViolationError as error:
            raise violation(error) from error

    async def fetch_together(self, queries: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        """The queries as one statement: each one's rows gathered into an array of records (asyncpg gives
        them back as tuples, in their binary types), so they cost one round trip between them. A locking
        clause in a query still locks what it reads."""
        if not queries:
            return []
        row = await self.fetch_all(*together(queries))
        return [list(rows or ()) for rows in row[0]]

    async def read_ahead(self, queries: Sequence[tuple[str, Sequence[Any]]],
                         check: tuple[str, Sequence[Any]]) -> tuple[list[list[Any]], Any]:
        """The queries and the check in one statement sent before BEGIN: on a snapshot of its own, holding no
        lock. One round trip, where BEGIN with the key locks and then a read under them take two; the body
        then takes its locks and calls `expect_unchanged` (held back, like the locks, for the message that
        ends with its writes and COMMIT). A lost connection is swapped, as for a BEGIN."""
        if self.begun or self._waiting != ["BEGIN"]:
            raise RuntimeError("read_ahead is a transaction's first statement")
        text, parameters = with_arrays(*together([*queries, check]))
        for attempt in range(1, BEGIN_ATTEMPTS + 1):
            try:
                row = await self.connection.fetchrow(text, *parameters)
                break
            except LOST:
                if attempt == BEGIN_ATTEMPTS:
                    raise
                await self._swap_connection()
        assert row is not None
        *rows, seen = [list(found or ()) for found in row]
        return rows, seen[0][0]

    async def expect_unchanged(self, check: tuple[str, Sequence[Any]], seen: Any) -> None:
        """Held back: a statement that fails the transaction (StaleRead, through interview_bot_expect,
        migration 18) unless `check` gives `seen` again. It runs after the locks held back before it, on a
        snapshot taken once they are held."""
        query, values = check
        sql, parameters = f"SELECT interview_bot_expect(({query}) = ?)", (*values, seen)
        statement = inlined(sql, parameters) if quotes_are_plain(self.connection) else None
        if statement is None:
            await self.execute(sql, parameters)
        else:
            self._waiting.append(statement)

    async def lock(self, kind: str, keys: Iterable[int | str]) -> None:
        """pg_advisory_xact_lock on each key not held yet, in ascending order, held back until the next
        statement (which therefore runs only once they are all held); all are released at COMMIT or
        ROLLBACK."""
        wanted = sorted({lock_key(kind, key) for key in keys} - self._held)
        if wanted:
            self._waiting.append("SELECT pg_advisory_xact_lock(k) FROM (SELECT unnest('{%s}'::bigint[]) AS k ORDER BY 1)"
                                 " AS keys" % ",".join(map(str, wanted)))
            self._held.update(wanted)

    async def commit(self) -> None:
        """COMMIT, after whatever is still held back, in one round trip; nothing at all if nothing ran."""
        if not self.begun and all(statement.startswith("SELECT pg_advisory_xact_lock")
                                  for statement in self._waiting[1:]):
            self._waiting = []  # only BEGIN and locks: no statement ever needed them
            return
        await self._send_waiting("COMMIT")

    async def rollback(self) -> None:
        """ROLLBACK when BEGIN went out (what was held back is dropped); a dead connection needs none."""
        self._waiting = []
        if self.begun and not self.connection.is_closed():
            try:
                await self.connection.execute("ROLLBACK")
            except LOST:  # the server went away: it drops the transaction itself
                pass
