"""Which asked question each native poll carries: a poll answer names only its poll.

A row is written once the platform has given the poll its id (after the send, or when a poll whose send
outcome was unknown shows up). A vote that arrives before that waits in `poll_votes_waiting` and counts
when the poll is linked; both sides write first and look second, so a vote and its poll's link crossing
each other are never both missed. Waiting votes older than two days are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain import UserRef
from bot.store.database import Database

WAITING_KEPT_S = 2 * 86_400


@dataclass(frozen=True)
class WaitingVote:
    person: UserRef
    option_ids: tuple[int, ...]
    arrived_at: float


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


async def hold_vote(db: Database, person: UserRef, poll_id: str, option_ids: tuple[int, ...], now: float) -> bool:
    """Keep a vote for a poll not linked yet (the first vote per person); True when the poll turned out to be
    linked meanwhile, so the caller counts the vote now."""
    async with db.transaction() as connection:
        await connection.execute("DELETE FROM poll_votes_waiting WHERE arrived_at < ?", (now - WAITING_KEPT_S,))
        await connection.execute(
            """INSERT INTO poll_votes_waiting (platform, poll_id, platform_user_id, user_name, language_code,
                                               option_ids, arrived_at) VALUES (?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (platform, poll_id, platform_user_id) DO NOTHING""",
            (person.platform, poll_id, person.platform_id, person.name[:256], person.locale,
             ",".join(str(option) for option in option_ids), now))
    return await asked_of_poll(db, person.platform, poll_id) is not None


async def take_waiting_votes(db: Database, platform: str, poll_id: str) -> list[WaitingVote]:
    """The votes waiting for a poll, oldest first, removed from the waiting room. One DELETE ... RETURNING:
    two workers taking the same poll's votes at once each get a vote or neither, never both."""
    async with db.transaction() as connection:
        rows = await connection.fetch_all(
            """DELETE FROM poll_votes_waiting WHERE platform = ? AND poll_id = ?
               RETURNING platform_user_id, user_name, language_code, option_ids, arrived_at""", (platform, poll_id))
    rows = sorted(rows, key=lambda row: (float(row[4]), str(row[0])))
    return [WaitingVote(UserRef(platform, row[0], row[1], row[2]),
                        tuple(int(option) for option in str(row[3]).split(",") if option), float(row[4]))
            for row in rows]
