"""What a SQLite store hands to aiosqlite's thread, counted: the tests of the event loop's own read and
write connections check that their work no longer goes there (or, when it must, that it does)."""

from __future__ import annotations


def hand_offs(db) -> list[str]:
    """Every call handed to aiosqlite's thread from now on, by function name."""
    calls: list[str] = []
    execute = db.connection._execute

    async def counted(function, *args, **kwargs):
        calls.append(getattr(function, "__name__", "call"))
        return await execute(function, *args, **kwargs)

    db.connection._execute = counted
    return calls
