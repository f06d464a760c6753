"""Which asked question each native poll carries: a poll answer names only its poll.

A row is written once the platform has given the poll its id (after the send), so an answer to a poll
the bot never posted, or one it lost track of, finds nothing and counts for nothing.
"""

from __future__ import annotations

from bot.store.database import Database


async def save_poll(db: Database, platform: str, poll_id: str, asked_id: int) -> None:
    async with db.transaction() as connection:
        await connection.execute("INSERT INTO daily_polls (platform, poll_id, asked_id) VALUES (?, ?, ?)",
                                 (platform, poll_id, asked_id))


async def asked_of_poll(db: Database, platform: str, poll_id: str) -> int | None:
    """The asked question a poll the bot posted carries; None for any other poll id."""
    row = await db.fetch_one("SELECT asked_id FROM daily_polls WHERE platform = ? AND poll_id = ?",
                             (platform, poll_id))
    return int(row[0]) if row else None


async def poll_of_asked(db: Database, asked_id: int) -> str | None:
    """The id of the poll an asked question went out as; None when it went out with buttons."""
    row = await db.fetch_one("SELECT poll_id FROM daily_polls WHERE asked_id = ?", (asked_id,))
    return str(row[0]) if row else None
