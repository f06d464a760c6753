"""Subscriptions and daily posts: what each chat wants, and every post's life from intent to reveal.

A scheduled post is recorded (state 'pending') before it is sent; the unique index on
(chat, local day) makes a second scheduled post in one local day impossible, whatever restarts.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from bot.store.database import Database, Transaction, UniqueViolation, placeholders
from bot.store.interviews import insert_asked
from bot.store.scores import fold_revealed


@dataclass(frozen=True)
class Subscription:
    chat_id: int
    post_time: str
    timezone: str
    weekdays: tuple[int, ...] | None
    topic: str | None
    difficulty: int | None
    reveal_after_s: int
    active: bool
    next_post_at: float | None = None
    as_poll: bool = False  # posted as a native quiz poll where the platform has them
    paused_at: float | None = None  # when the platform first refused a post or reveal (still scheduled)
    paused_reason: str | None = None  # why: 'forbidden' (the bot lost its permission in the chat)


@dataclass(frozen=True)
class DailyPost:
    id: int
    chat_id: int
    asked_id: int
    kind: str
    local_date: str
    state: str
    reveal_at: float
    sent_at: float | None


def _subscription(row: Any) -> Subscription:
    weekdays = tuple(int(d) for d in row["weekdays"].split(",")) if row["weekdays"] else None
    return Subscription(row["chat_id"], row["post_time"], row["timezone"], weekdays, row["topic"], row["difficulty"],
                        row["reveal_after_s"], bool(row["active"]), row["next_post_at"], bool(row["as_poll"]),
                        row["paused_at"], row["paused_reason"])


def _post(row: Any) -> DailyPost:
    return DailyPost(row["id"], row["chat_id"], row["asked_id"], row["kind"], row["local_date"], row["state"],
                     row["reveal_at"], row["sent_at"])


async def save_subscription(db: Database, chat_id: int, post_time: str, timezone: str,
                            weekdays: tuple[int, ...] | None, topic: str | None, difficulty: int | None,
                            reveal_after_s: int, now: float, next_post_at: float,
                            as_poll: bool = False) -> Subscription:
    weekday_text = ",".join(map(str, weekdays)) if weekdays else None
    async with db.transaction() as connection:
        await connection.execute(
            """INSERT INTO subscriptions (chat_id, post_time, timezone, weekdays, topic, difficulty, reveal_after_s,
                                          active, created_at, updated_at, next_post_at, as_poll)
               VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
               ON CONFLICT (chat_id) DO UPDATE SET post_time = excluded.post_time, timezone = excluded.timezone,
                   weekdays = excluded.weekdays, topic = excluded.topic, difficulty = excluded.difficulty,
                   reveal_after_s = excluded.reveal_after_s, active = 1, updated_at = excluded.updated_at,
                   next_post_at = excluded.next_post_at, as_poll = excluded.as_poll""",
            (chat_id, post_time, timezone, weekday_text, topic, difficulty, reveal_after_s, now, now, next_post_at,
             int(as_poll)),
        )
    subscription = await get_subscription(db, chat_id)
    assert subscription is not None
    return subscription


async def get_subscription(db: Database, chat_id: int) -> Subscription | None:
    row = await db.fetch_one("SELECT * FROM subscriptions WHERE chat_id = ?", (chat_id,))
    return _subscription(row) if row else None


async def set_poll_mode(db: Database, chat_id: int, as_poll: bool, now: float) -> bool:
    """Post the chat's daily question as a quiz poll (or with buttons); False when it has no active subscription."""
    async with db.transaction() as connection:
        cursor = await connection.execute(
            "UPDATE subscriptions SET as_poll = ?, updated_at = ? WHERE chat_id = ? AND active = 1",
            (int(as_poll), now, chat_id))
        return cursor.rowcount == 1


async def deactivate_subscription(db: Database, chat_id: int, now: float) -> bool:
    """Stop the chat's daily question (a pause ends with it: a new subscription starts unpaused)."""
    async with db.transaction() as connection:
        cursor = await connection.execute(
            "UPDATE subscriptions SET active = 0, paused_at = NULL, paused_reason = NULL, updated_at = ? "
            "WHERE chat_id = ? AND active = 1", (now, chat_id))
        return cursor.rowcount == 1


async def pause_subscription(db: Database, chat_id: int, reason: str, now: float) -> bool:
    """Mark the chat's active daily question paused (it stays scheduled); a pause that goes on keeps its
    first instant. False when the chat has no active subscription."""
    async with db.transaction() as connection:
        cursor = await connection.execute(
            "UPDATE subscriptions SET paused_at = coalesce(paused_at, ?), paused_reason = ?, updated_at = ? "
            "WHERE chat_id = ? AND active = 1", (now, reason, now, chat_id))
        return cursor.rowcount == 1


async def resume_subscription(db: Database, chat_id: int, now: float) -> bool:
    """End the chat's pause; False when it was not paused. Called after every post that got through, so
    the common case is one read and no write."""
    if await db.fetch_one("SELECT 1 FROM subscriptions WHERE chat_id = ? AND paused_at IS NOT NULL",
                          (chat_id,)) is None:
        return False
    async with db.transaction() as connection:
        cursor = await connection.execute(
            "UPDATE subscriptions SET paused_at = NULL, paused_reason = NULL, updated_at = ? "
            "WHERE chat_id = ? AND paused_at IS NOT NULL", (now, chat_id))
        return cursor.rowcount == 1


async def due_subscriptions(db: Database, now: float, platforms: Collection[str]) -> list[Subscription]:
    """Active subscriptions whose next post instant has come, in chats whose adapter is running."""
    if not platforms:
        return []
    values = tuple(platforms)
    rows = await db.fetch_all(
        f"""SELECT s.* FROM subscriptions s JOIN chats c ON c.id = s.chat_id
            WHERE s.active = 1 AND s.next_post_at <= ? AND c.platform IN ({placeholders(values)})
            ORDER BY s.next_post_at""",
        (now, *values))
    return [_subscription(row) for row in rows]


async def unscheduled_subscriptions(db: Database) -> list[Subscription]:
    """Active subscriptions with no next post instant yet (written before schema v6)."""
    rows = await db.fetch_all("SELECT * FROM subscriptions WHERE active = 1 AND next_post_at IS NULL")
    return [_subscription(row) for row in rows]


async def set_next_posts(db: Database, moments: list[tuple[int, float | None]],
                         expected: dict[int, float | None] | None = None) -> None:
    """Each (chat id, instant): when the chat's next scheduled post is due (None: never, its time is unusable);
    one transaction for all. With `expected`, a row whose instant changed meanwhile (an admin subscribed
    again during the broadcast) keeps its new one."""
    if not moments:
        return
    moments = sorted(moments, key=lambda moment: moment[0])  # rows locked in one order by every writer
    async with db.transaction() as connection:
        if expected is None:
            await connection.executemany("UPDATE subscriptions SET next_post_at = ? WHERE chat_id = ?",
                                         [(moment, chat_id) for chat_id, moment in moments])
        else:
            await connection.executemany(
                f"UPDATE subscriptions SET next_post_at = ? WHERE chat_id = ? AND next_post_at {connection.dialect.same} ?",
                [(moment, chat_id, expected.get(chat_id)) for chat_id, moment in moments])


async def next_post_moment(db: Database, platforms: Collection[str]) -> float | None:
    """The earliest instant at which a scheduled post is due, for the posting timer."""
    if not platforms:
        return None
    values = tuple(platforms)
    row = await db.fetch_one(
        f"""SELECT min(s.next_post_at) FROM subscriptions s JOIN chats c ON c.id = s.chat_id
             WHERE s.active = 1 AND s.next_post_at IS NOT NULL AND c.platform IN ({placeholders(values)})""", values)
    return row[0] if row and row[0] is not None else None


async def next_reveal_moment(db: Database, platforms: Collection[str]) -> float | None:
    """The earliest instant at which a post's reveal is due, for the reveal timer."""
    if not platforms:
        return None
    values = tuple(platforms)
    row = await db.fetch_one(
        f"""SELECT min(p.reveal_at) FROM daily_posts p JOIN chats c ON c.id = p.chat_id
             WHERE p.state IN ('sent', 'unknown') AND c.platform IN ({placeholders(values)})""", values)
    return row[0] if row and row[0] is not None else None


async def create_post(db: Database, chat_id: int, question_id: str, option_order: tuple[int, ...], kind: str,
                      local_day: str, reveal_at: float, now: float) -> DailyPost | None:
    """Record the intent to post; None when this chat already has its scheduled post for that day."""
    try:
        async with db.transaction() as connection:
            asked_id = await insert_asked(connection, question_id, chat_id, None, 0, option_order, now, reveal_at)
            post_id = await connection.insert_returning_id(
                """INSERT INTO daily_posts (chat_id, asked_id, kind, local_date, state, reveal_at, created_at)
                   VALUES (?, ?, ?, ?, 'pending', ?, ?) RETURNING id""",
                (chat_id, asked_id, kind, local_day, reveal_at, now),
            )
    except UniqueViolation:
        return None
    return await get_post(db, post_id)


async def has_scheduled_post(db: Database, chat_id: int, local_day: str) -> bool:
    """Whether the chat has its scheduled post for that local day already (another worker may have made it)."""
    row = await db.fetch_one("SELECT 1 FROM daily_posts WHERE chat_id = ? AND local_date = ? AND kind = 'scheduled'",
                             (chat_id, local_day))
    return row is not None


async def get_post(db: Database, post_id: int) -> DailyPost | None:
    row = await db.fetch_one("SELECT * FROM daily_posts WHERE id = ?", (post_id,))
    return _post(row) if row else None


async def post_of_asked(db: Database, asked_id: int) -> DailyPost | None:
    row = await db.fetch_one("SELECT * FROM daily_posts WHERE asked_id = ?", (asked_id,))
    return _post(row) if row else None


async def mark_post(db: Database, post_id: int, state: str, now: float, error: str | None = None) -> None:
    """A post's new state; a settled one (revealed, failed) closes its question and lets the chat's board
    totals fold it (under the chat's key lock). Run as one call: PostgreSQL runs it again after a deadlock."""
    column = {"sent": "sent_at", "revealed": "revealed_at"}.get(state)

    async def mark(connection: Transaction) -> None:
        await connection.execute(
            f"UPDATE daily_posts SET state = ?, error = coalesce(?, error)"
            f"{f', {column} = ?' if column else ''} WHERE id = ?",
            (state, error, now, post_id) if column else (state, error, post_id),
        )
        if state == "revealed":
            await connection.execute(
                "UPDATE asked_questions SET closed_at = coalesce(closed_at, ?) "
                "WHERE id = (SELECT asked_id FROM daily_posts WHERE id = ?)", (now, post_id))
        if state in ("revealed", "failed"):  # a settled post may let the chat's board totals move on
            await fold_revealed(connection, await _chat_of_post(connection, post_id))

    await db.in_one_call(mark)


async def _chat_of_post(connection: Transaction, post_id: int) -> int:
    [(chat_id,)] = await connection.fetch_all("SELECT chat_id FROM daily_posts WHERE id = ?", (post_id,))
    return int(chat_id)


async def open_posts_of_chat(db: Database, chat_id: int) -> list[DailyPost]:
    """A chat's posts that went out (or may have) and are not revealed yet, oldest first."""
    rows = await db.fetch_all(
        "SELECT * FROM daily_posts WHERE chat_id = ? AND state IN ('sent', 'unknown') ORDER BY id", (chat_id,))
    return [_post(row) for row in rows]


async def unknown_posts(db: Database, platform: str, since: float) -> list[DailyPost]:
    """Posts on `platform` whose send outcome was unknown, created after `since`."""
    rows = await db.fetch_all(
        """SELECT p.* FROM daily_posts p JOIN chats c ON c.id = p.chat_id
            WHERE p.state = 'unknown' AND c.platform = ? AND p.created_at >= ? ORDER BY p.id""", (platform, since))
    return [_post(row) for row in rows]


async def start_reveal(db: Database, post_id: int, now: float) -> bool:
    """Record that a post's reveal is about to go out as a new message (not an idempotent edit); False when
    an earlier run recorded it already (it may have gone out before a crash: never send it twice)."""
    async with db.transaction() as connection:
        result = await connection.execute(
            "UPDATE daily_posts SET reveal_started_at = ? WHERE id = ? AND reveal_started_at IS NULL", (now, post_id))
    return result.rowcount == 1


async def posts_to_reveal(db: Database, now: float, platforms: Collection[str],
                          abandoned_before: float | None = None) -> list[DailyPost]:
    """Posts due for their reveal in chats whose adapter is running, earliest first. With
    `abandoned_before`, also those still 'pending' that were made before it: a process stopped while
    sending them (killed, or cut off at shutdown), so they may have gone out, as an unknown outcome may;
    left pending, such a post would never be revealed, and the chat's board totals, folded in post
    order, would stop at it for good."""
    if not platforms:
        return []
    values = tuple(platforms)
    abandoned = -1.0 if abandoned_before is None else abandoned_before
    rows = await db.fetch_all(
        f"""SELECT p.* FROM daily_posts p JOIN chats c ON c.id = p.chat_id
            WHERE p.state IN ('sent', 'unknown', 'pending') AND p.reveal_at <= ?
              AND (p.state <> 'pending' OR p.created_at < ?) AND c.platform IN ({placeholders(values)})
            ORDER BY p.reveal_at""", (now, abandoned, *values))
    return [_post(row) for row in rows]


async def asked_in_chat(db: Database, chat_id: int) -> dict[str, float]:
    """Daily questions this chat has had, with when each was last posted."""
    rows = await db.fetch_all(
        "SELECT question_id, max(asked_at) AS last FROM asked_questions WHERE chat_id = ? AND interview_id IS NULL "
        "GROUP BY question_id", (chat_id,))
    return {row["question_id"]: row["last"] for row in rows}


@dataclass(frozen=True)
class PostStats:
    answered: int
    right: int
    fastest: tuple[tuple[str, int], ...]  # (name, latency ms) of the fastest right answers


async def post_stats(db: Database, asked_id: int, fastest: int = 3) -> PostStats:
    row = await db.fetch_one("SELECT count(*), coalesce(sum(correct), 0) FROM answers WHERE asked_id = ?", (asked_id,))
    if fastest <= 0:
        return PostStats(int(row[0]), int(row[1]), ())
    rows = await db.fetch_all(
        """SELECT u.name, a.latency_ms FROM answers a JOIN users u ON u.id = a.user_id
           WHERE a.asked_id = ? AND a.correct = 1 ORDER BY a.latency_ms, a.id LIMIT ?""", (asked_id, fastest))
    return PostStats(int(row[0]), int(row[1]), tuple((r["name"], r["latency_ms"]) for r in rows))
