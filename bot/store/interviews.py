"""Interviews, the questions asked in them (or in a chat), and the answers given.

Recording an answer, closing its question and opening the next one happen in one transaction, so a
restart finds either all of it or none of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from bot.domain import AskedQuestion, InterviewFilters, RecordedAnswer
from bot.store.database import Database, Transaction, UniqueViolation, placeholders


@dataclass(frozen=True)
class InterviewRecord:
    id: int
    user_id: int
    chat_id: int
    status: str
    filters: InterviewFilters
    plan: tuple[str, ...]
    language: str
    started_at: float
    finished_at: float | None
    kind: str = "interview"  # or "review"
    holder: str | None = None  # the process driving it (bot/interview/holders.py); None in a chat


class AlreadyAnswered(Exception):
    """The unique (asked question, user) constraint refused a second answer."""


def _interview(row: Any) -> InterviewRecord:
    filters = json.loads(row["filters"])
    filters["topics"] = tuple(filters.get("topics", ()))
    return InterviewRecord(row["id"], row["user_id"], row["chat_id"], row["status"], InterviewFilters(**filters),
                           tuple(json.loads(row["plan"])), row["language"], row["started_at"], row["finished_at"],
                           row["kind"], row["holder"])


class HeldElsewhere(Exception):
    """The person's active interview is held by another live process (bot/interview/holders.py)."""


def _asked(row: Any) -> AskedQuestion:
    return AskedQuestion(row["id"], row["question_id"], row["chat_id"], row["interview_id"], row["position"],
                         tuple(int(c) for c in row["option_order"]), row["asked_at"], row["deadline"],
                         row["closed_at"])


def _answer(row: Any) -> RecordedAnswer:
    return RecordedAnswer(row["asked_id"], row["user_id"], row["option_index"], bool(row["correct"]),
                          row["latency_ms"], row["answered_at"], row["points"])


async def create_interview(db: Database, user_id: int, chat_id: int, filters: InterviewFilters,
                           plan: list[str], language: str, now: float, kind: str = "interview",
                           holder: str | None = None, refuse: Callable[[str | None], bool] | None = None) -> int:
    """A new active interview held by `holder`; an earlier active one of the same user is stopped first,
    unless `refuse(its holder)` says so (HeldElsewhere): checked in the same transaction, under the
    person's key lock, so two processes (or workers) starting at once take turns and cannot both win."""
    filters_json = json.dumps({**filters.__dict__, "topics": list(filters.topics)})
    async with db.transaction() as connection:
        await connection.lock("person", [user_id])  # two starts of one person (two workers) take turns
        if refuse is not None:
            active = await connection.fetch_one(
                "SELECT holder FROM interviews WHERE user_id = ? AND status = 'active'", (user_id,))
            if active is not None and refuse(active["holder"]):
                raise HeldElsewhere
        await connection.execute(
            "UPDATE interviews SET status = 'stopped', finished_at = ? WHERE user_id = ? AND status = 'active'",
            (now, user_id),
        )
        return await connection.insert_returning_id(
            """INSERT INTO interviews (user_id, chat_id, status, filters, plan, language, started_at, kind, holder)
               VALUES (?, ?, 'active', ?, ?, ?, ?, ?, ?) RETURNING id""",
            (user_id, chat_id, filters_json, json.dumps(plan), language, now, kind, holder),
        )


async def hold(db: Database, interview_id: int, holder: str | None, was: str | None) -> bool:
    """Move an active interview to `holder` if it is still held by `was` (another process may have
    taken it meanwhile); whether it moved."""
    async with db.transaction() as connection:
        cursor = await connection.execute(
            "UPDATE interviews SET holder = ? WHERE id = ? AND status = 'active' AND COALESCE(holder, '') = ?",
            (holder, interview_id, was or ""))
    return cursor.rowcount == 1


async def set_plan(connection: Transaction, interview_id: int, plan: list[str]) -> None:
    """Inside a caller's transaction: an adaptive interview's plan, as its next question is chosen (or cut
    short when it ends early)."""
    await connection.execute("UPDATE interviews SET plan = ? WHERE id = ?", (json.dumps(plan), interview_id))


async def get_interview(db: Database, interview_id: int) -> InterviewRecord | None:
    row = await db.fetch_one("SELECT * FROM interviews WHERE id = ?", (interview_id,))
    return _interview(row) if row else None


async def active_interview(db: Database, user_id: int) -> InterviewRecord | None:
    row = await db.fetch_one("SELECT * FROM interviews WHERE user_id = ? AND status = 'active'", (user_id,))
    return _interview(row) if row else None


async def insert_asked(connection: Transaction, question_id: str, chat_id: int, interview_id: int | None,
                       position: int, option_order: tuple[int, ...], now: float, deadline: float | None) -> int:
    """Inside a caller's transaction: one delivery of a question."""
    return await connection.insert_returning_id(
        """INSERT INTO asked_questions (question_id, chat_id, interview_id, position, option_order, asked_at, deadline)
           VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id""",
        (question_id, chat_id, interview_id, position, "".join(map(str, option_order)), now, deadline),
    )


async def ask(db: Database, question_id: str, chat_id: int, interview_id: int | None, position: int,
              option_order: tuple[int, ...], now: float, deadline: float | None) -> AskedQuestion:
    async with db.transaction() as connection:
        asked_id = await insert_asked(connection, question_id, chat_id, interview_id, position, option_order,
                                      now, deadline)
    asked = await get_asked(db, asked_id)
    assert asked is not None
    return asked


async def get_asked(db: Database | Transaction, asked_id: int) -> AskedQuestion | None:
    row = await db.fetch_one("SELECT * FROM asked_questions WHERE id = ?", (asked_id,))
    return _asked(row) if row else None


async def get_asked_and_ref(db: Database, asked_id: int) -> tuple[AskedQuestion | None, str | None]:
    """The asked question and where it was posted, in one read: a click checks both, and with the
    database a network away each read is a round trip on the click's path."""
    row = await db.fetch_one("SELECT * FROM asked_questions WHERE id = ?", (asked_id,))
    return (_asked(row), row["message_ref"]) if row else (None, None)


async def open_asked(db: Database, interview_id: int) -> AskedQuestion | None:
    """The interview's question that is waiting for an answer, if any."""
    row = await db.fetch_one(
        "SELECT * FROM asked_questions WHERE interview_id = ? AND closed_at IS NULL ORDER BY position DESC LIMIT 1",
        (interview_id,),
    )
    return _asked(row) if row else None


async def interview_asked(db: Database, interview_id: int) -> list[tuple[AskedQuestion, RecordedAnswer | None]]:
    """Every question asked in an interview, in order, with its owner's answer if one was recorded."""
    rows = await db.fetch_all(
        """SELECT q.*, a.asked_id, a.user_id, a.option_index, a.correct, a.latency_ms, a.answered_at, a.points
           FROM asked_questions q
           JOIN interviews i ON i.id = q.interview_id
           LEFT JOIN answers a ON a.asked_id = q.id AND a.user_id = i.user_id
           WHERE q.interview_id = ? ORDER BY q.position""",
        (interview_id,),
    )
    return [(_asked(row), _answer(row) if row["asked_id"] is not None else None) for row in rows]


async def set_message_ref(db: Database, asked_id: int, ref: str) -> None:
    """Where the adapter posted this question, so a later edit (result, reveal, timeout) can find it."""
    async with db.transaction() as connection:
        await connection.execute("UPDATE asked_questions SET message_ref = ? WHERE id = ?", (ref, asked_id))


async def message_ref(db: Database, asked_id: int) -> str | None:
    row = await db.fetch_one("SELECT message_ref FROM asked_questions WHERE id = ?", (asked_id,))
    return row["message_ref"] if row else None


async def insert_answer(connection: Transaction, answer: RecordedAnswer) -> None:
    """Inside a caller's transaction (an interview's answer); AlreadyAnswered when this user already
    answered this question. First the person's key lock and the interview's row (FOR UPDATE), the order
    a start (create_interview) and a stop (finish_interview) take them too: the answer, its question's
    close and the next question are then written while no other worker moves that interview."""
    await connection.lock("person", [answer.user_id])
    if connection.dialect.row_locks:
        await connection.fetch_all(
            "SELECT i.id FROM interviews i JOIN asked_questions q ON q.interview_id = i.id WHERE q.id = ?"
            + connection.dialect.locking("UPDATE", "i"), (answer.asked_id,))
    try:
        await connection.execute(
            """INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (answer.asked_id, answer.user_id, answer.option_index, int(answer.correct), answer.latency_ms,
             answer.answered_at, answer.points),
        )
    except UniqueViolation as error:
        raise AlreadyAnswered(str(error)) from error


async def close_asked(connection: Transaction, asked_id: int, now: float) -> bool:
    """Inside a caller's transaction: close an open question; False if it was already closed."""
    cursor = await connection.execute(
        "UPDATE asked_questions SET closed_at = ? WHERE id = ? AND closed_at IS NULL", (now, asked_id)
    )
    return cursor.rowcount == 1


async def finish_interview(connection: Transaction, interview_id: int, status: str, now: float) -> None:
    """Inside a caller's transaction: the interview ends (finished or stopped), open questions close.
    The interview's row first: an answer being recorded holds it, so its next question is written
    before this close looks for open ones (or, after it, sees the interview ended)."""
    await connection.execute(
        "UPDATE interviews SET status = ?, finished_at = ? WHERE id = ? AND status = 'active'",
        (status, now, interview_id),
    )
    await connection.execute(
        "UPDATE asked_questions SET closed_at = ? WHERE interview_id = ? AND closed_at IS NULL", (now, interview_id)
    )


async def get_answer(db: Database, asked_id: int, user_id: int) -> RecordedAnswer | None:
    row = await db.fetch_one("SELECT * FROM answers WHERE asked_id = ? AND user_id = ?", (asked_id, user_id))
    return _answer(row) if row else None


SEEN_LOOKBACK_S = 86_400  # an interview started this long before `since` may still have asked questions after it


async def recently_seen(db: Database | Transaction, user_id: int, since: float) -> dict[str, float]:
    """Question ids this user was asked in interviews since `since`, with when they last saw each.

    Bounded by time through the (user, started_at) index: the cost stays flat however long the
    user's history grows."""
    rows = await db.fetch_all(
        """SELECT q.question_id, max(q.asked_at) AS seen FROM interviews i
           JOIN asked_questions q ON q.interview_id = i.id
           WHERE i.user_id = ? AND i.started_at >= ? AND q.asked_at >= ? GROUP BY q.question_id""",
        (user_id, since - SEEN_LOOKBACK_S, since),
    )
    return {row["question_id"]: row["seen"] for row in rows}


async def overdue_asked(db: Database, now: float, platforms: Collection[str]) -> list[AskedQuestion]:
    """Open interview questions past their deadline in chats on these platforms (restarts included).

    Only the platforms whose adapter runs: a question nobody can be told about stays open until its
    adapter is back (the console, say, never moves a Telegram user's interview on)."""
    if not platforms:
        return []
    names = tuple(platforms)
    rows = await db.fetch_all(
        f"""SELECT q.* FROM asked_questions q JOIN interviews i ON i.id = q.interview_id
            JOIN chats c ON c.id = q.chat_id
            WHERE q.closed_at IS NULL AND q.deadline IS NOT NULL AND q.deadline <= ? AND i.status = 'active'
              AND c.platform IN ({placeholders(names)})
            ORDER BY q.deadline""",
        (now, *names),
    )
    return [_asked(row) for row in rows]


async def next_deadline(db: Database, platforms: Collection[str]) -> float | None:
    """The earliest deadline of an open interview question on these platforms, for the deadline timer."""
    if not platforms:
        return None
    names = tuple(platforms)
    row = await db.fetch_one(
        f"""SELECT min(q.deadline) FROM asked_questions q JOIN chats c ON c.id = q.chat_id
            WHERE q.closed_at IS NULL AND q.deadline IS NOT NULL AND q.interview_id IS NOT NULL
              AND c.platform IN ({placeholders(names)})""", names)
    return row[0] if row and row[0] is not None else None


async def latest_interview(db: Database, user_id: int, holder: str | None = None) -> InterviewRecord | None:
    """The user's most recent interview or review, whatever its state (of this holder's, when given)."""
    if holder is not None:
        row = await db.fetch_one("SELECT * FROM interviews WHERE user_id = ? AND holder = ? "
                                 "ORDER BY started_at DESC, id DESC LIMIT 1", (user_id, holder))
    else:
        row = await db.fetch_one("SELECT * FROM interviews WHERE user_id = ? ORDER BY started_at DESC, id DESC LIMIT 1",
                                 (user_id,))
    return _interview(row) if row else None
