"""The queries behind a person's progress and history: every answer they gave, their latest interviews."""

from __future__ import annotations

from dataclasses import dataclass

from bot.store.database import Database


@dataclass(frozen=True)
class AnswerRow:
    question_id: str
    option_index: int | None  # None: the time ran out
    correct: bool
    answered_at: float


@dataclass(frozen=True)
class InterviewRow:
    id: int
    kind: str
    status: str
    started_at: float


async def answers_of(db: Database, user_id: int) -> list[AnswerRow]:
    """Every answer of the user (interviews, reviews and daily questions), oldest first."""
    rows = await db.fetch_all(
        """SELECT q.question_id, a.option_index, a.correct, a.answered_at
           FROM answers a JOIN asked_questions q ON q.id = a.asked_id
           WHERE a.user_id = ? ORDER BY a.answered_at, a.id""",
        (user_id,),
    )
    return [AnswerRow(row["question_id"], row["option_index"], bool(row["correct"]), float(row["answered_at"]))
            for row in rows]


async def recent_interviews(db: Database, user_id: int, limit: int) -> list[InterviewRow]:
    """The user's latest interviews and reviews, newest first."""
    rows = await db.fetch_all(
        "SELECT id, kind, status, started_at FROM interviews WHERE user_id = ? ORDER BY started_at DESC, id DESC LIMIT ?",
        (user_id, limit),
    )
    return [InterviewRow(row["id"], row["kind"], row["status"], float(row["started_at"])) for row in rows]
