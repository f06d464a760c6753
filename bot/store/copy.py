"""Moving a deployment: every row of one store into another, empty one (SQLite to PostgreSQL or back).

Both stores are at the latest schema (opening them migrates). Tables go parents first, so each
foreign key finds its row; ids are kept, so every reference stays true; rows are read a chunk at a
time; all of it is one transaction on the target, so a failed copy leaves the target empty. Afterwards each table's row count is
compared, and a difference is an error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from graphlib import TopologicalSorter

from bot.store.backend import Database, Row, StoreError

CHUNK = 2000  # rows per read and per executemany


@dataclass(frozen=True)
class Copied:
    tables: tuple[tuple[str, int], ...]  # (table, rows), in the order they were copied

    @property
    def rows(self) -> int:
        return sum(count for _, count in self.tables)


def _order(parents: dict[str, set[str]]) -> list[str]:
    """Tables with every table they refer to before them (names sorted within a level, for a stable order)."""
    sorter = TopologicalSorter({name: parents[name] & parents.keys() for name in sorted(parents)})
    return list(sorter.static_order())


async def _chunks(source: Database, table: str) -> AsyncIterator[list[Row]]:
    """The table's rows, CHUNK at a time: in id order for a table with ids (the big ones: answers, asked
    questions), so memory stays flat whatever the history; whole for the others."""
    first = await source.fetch_one(f'SELECT * FROM "{table}" LIMIT 1')
    if first is None:
        return
    if "id" not in first.keys():
        rows = await source.fetch_all(f'SELECT * FROM "{table}"')
        for start in range(0, len(rows), CHUNK):
            yield rows[start:start + CHUNK]
        return
    last = None
    while True:
        rows = await source.fetch_all(
            f'SELECT * FROM "{table}" WHERE id > ? ORDER BY id LIMIT ?' if last is not None
            else f'SELECT * FROM "{table}" ORDER BY id LIMIT ?', (last, CHUNK) if last is not None else (CHUNK,))
        if not rows:
            return
        yield rows
        last = rows[-1]["id"]


async def counts(db: Database) -> dict[str, int]:
    """Rows per table."""
    found = {}
    for table in sorted(await db.table_parents()):
        row = await db.fetch_one(f'SELECT count(*) FROM "{table}"')
        found[table] = int(row[0]) if row else 0
    return found


async def copy_store(source: Database, target: Database) -> Copied:
    """Copy every row of `source` into the empty `target`; StoreError when it cannot be done whole."""
    if await source.schema_version() != await target.schema_version():
        raise StoreError("the two stores are at different schema versions; run `interview-bot db upgrade` on both")
    tables = _order(await source.table_parents())
    missing = sorted(set(tables) - set(await target.table_parents()))
    if missing:
        raise StoreError(f"{target.path} has no table {', '.join(missing)}")
    holding = {table: count for table, count in (await counts(target)).items() if count}
    if holding:
        raise StoreError(f"{target.path} already holds rows ({', '.join(sorted(holding))}): "
                         f"copy only into a new, empty store")
    copied = []
    async with target.transaction() as connection:
        for table in tables:
            count = 0
            async for rows in _chunks(source, table):
                columns = list(rows[0].keys())
                names = ", ".join(f'"{column}"' for column in columns)
                sql = f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'
                await connection.executemany(sql, [tuple(row) for row in rows])
                count += len(rows)
            copied.append((table, count))
        await target.restart_ids(connection, tables)
    after = await counts(target)
    wrong = [table for table, count in copied if after.get(table) != count]
    if wrong:
        raise StoreError(f"row counts differ after the copy in {', '.join(wrong)}")
    return Copied(tuple(copied))
