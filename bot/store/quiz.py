"""Live quiz rounds in the store: a round's plan and where it stands, the questions it asked, its scores.

A round is due work like a daily post: `due_at` is when its clock acts next (post the next question, or
close the open one), and one timer claims due rounds in the store, so with several workers one of them
runs a given round while clicks reach any. Everything a round needs after a restart is here.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.store.database import Database, Transaction, UniqueViolation
from bot.store.interviews import insert_asked
from bot.store.scores import refresh_group_week, utc_week_start


@dataclass(frozen=True)
class Round:
    id: int
    chat_id: int
    starter_id: int | None
    topic: str | None
    difficulty: int | None
    total: int
    seconds: int
    question_ids: tuple[str, ...]
    asked: int  # questions posted so far; the open or last one is number `asked`
    state: str  # running | ended
    phase: str  # between (the next question is due at due_at) | asking (the open question closes at due_at)
    due_at: float
    silent: int  # questions in a row that nobody answered
    end_reason: str | None
    created_at: float


@dataclass(frozen=True)
class RoundQuestion:
    asked_id: int
    number: int
    sent_at: float | None
    closes_at: float | None


@dataclass(frozen=True)
class Score:
    """One player's answers in a round: what the ranking is made of."""

    user_id: int
    name: str
    right: int
    answered: int
    points: int  # speed points (bot/quiz/scoring.py), summed
    time_ms: int  # total answer time, the tie-break


class RoundRunning(Exception):
    """The chat already has a running round."""


def _round(row) -> Round:
    return Round(row["id"], row["chat_id"], row["starter_id"], row["topic"], row["difficulty"], row["total"],
                 row["seconds"], tuple(row["question_ids"].split(",")), row["asked"], row["state"], row["phase"],
                 row["due_at"], row["silent"], row["end_reason"], row["created_at"])


async def start_round(db: Database, chat_id: int, starter_id: int | None, topic: str | None, difficulty: int | None,
                      question_ids: list[str], seconds: int, first_at: float) -> Round:
    """A new running round whose first question is due at `first_at`; RoundRunning when the chat has one."""
    try:
        async with db.transaction() as connection:
            round_id = await connection.insert_returning_id(
                """INSERT INTO quiz_rounds (chat_id, starter_id, topic, difficulty, total, seconds, question_ids,
                                            state, phase, due_at, created_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, 'running', 'between', ?, ?) RETURNING id""",
                (chat_id, starter_id, topic, difficulty, len(question_ids), seconds, ",".join(question_ids), first_at,
                 first_at))
    except UniqueViolation:
        raise RoundRunning() from None
    found = await get_round(db, round_id)
    assert found is not None
    return found


async def get_round(db: Database | Transaction, round_id: int) -> Round | None:
    row = await db.fetch_one("SELECT * FROM quiz_rounds WHERE id = ?", (round_id,))
    return _round(row) if row else None


async def running_round(db: Database, chat_id: int) -> Round | None:
    row = await db.fetch_one("SELECT * FROM quiz_rounds WHERE chat_id = ? AND state = 'running'", (chat_id,))
    return _round(row) if row else None


async def round_of_asked(db: Database, asked_id: int) -> tuple[Round, RoundQuestion] | None:
    """The round an asked question belongs to, and the question's place in it; None for any other question."""
    row = await db.fetch_one(
        """SELECT r.*, q.asked_id AS q_asked, q.number AS q_number, q.sent_at AS q_sent, q.closes_at AS q_closes
           FROM quiz_questions q JOIN quiz_rounds r ON r.id = q.round_id WHERE q.asked_id = ?""", (asked_id,))
    if row is None:
        return None
    return _round(row), RoundQuestion(row["q_asked"], row["q_number"], row["q_sent"], row["q_closes"])


async def due_rounds(db: Database, now: float, limit: int = 500) -> list[Round]:
    rows = await db.fetch_all(
        "SELECT * FROM quiz_rounds WHERE state = 'running' AND due_at <= ? ORDER BY due_at LIMIT ?", (now, limit))
    return [_round(row) for row in rows]


async def next_due(db: Database) -> float | None:
    row = await db.fetch_one("SELECT min(due_at) FROM quiz_rounds WHERE state = 'running'")
    return row[0] if row and row[0] is not None else None


async def current_question(db: Database, round_id: int, number: int) -> RoundQuestion | None:
    row = await db.fetch_one("SELECT * FROM quiz_questions WHERE round_id = ? AND number = ?", (round_id, number))
    return RoundQuestion(row["asked_id"], row["number"], row["sent_at"], row["closes_at"]) if row else None


async def ask_next(db: Database, round_: Round, question_id: str, option_order: tuple[int, ...], now: float) -> int:
    """Record the next question before it is sent (the round moves to 'asking'; its closing time is set
    when the send succeeds): a crash before the send leaves it unsent, and the clock sends it then."""
    async with db.transaction() as connection:
        asked_id = await insert_asked(connection, question_id, round_.chat_id, None, round_.asked + 1, option_order,
                                      now, None)
        await connection.execute("INSERT INTO quiz_questions (asked_id, round_id, number) VALUES (?, ?, ?)",
                                 (asked_id, round_.id, round_.asked + 1))
        await connection.execute(
            "UPDATE quiz_rounds SET asked = asked + 1, phase = 'asking', due_at = ? WHERE id = ? AND asked = ?",
            (now + round_.seconds, round_.id, round_.asked))
    return asked_id


async def asked_question_ids(db: Database, round_id: int) -> list[str]:
    """The question ids the round has asked so far, in order (a substitute may differ from its plan)."""
    rows = await db.fetch_all(
        """SELECT q.question_id FROM quiz_questions r JOIN asked_questions q ON q.id = r.asked_id
           WHERE r.round_id = ? ORDER BY r.number""", (round_id,))
    return [row[0] for row in rows]


async def question_sent(db: Database, round_id: int, asked_id: int, sent_at: float, closes_at: float) -> None:
    """The question is out: it takes answers until `closes_at`, which is when the round's clock acts."""
    async with db.transaction() as connection:
        await connection.execute("UPDATE quiz_questions SET sent_at = ?, closes_at = ? WHERE asked_id = ?",
                                 (sent_at, closes_at, asked_id))
        await connection.execute("UPDATE asked_questions SET deadline = ? WHERE id = ?", (closes_at, asked_id))
        await connection.execute("UPDATE quiz_rounds SET due_at = ? WHERE id = ?", (closes_at, round_id))


async def close_question(db: Database, round_: Round, asked_id: int, answered: bool, next_at: float | None,
                         now: float) -> None:
    """Close the open question; the round waits for its next question (`next_at`) or ends (None)."""
    async with db.transaction() as connection:
        await connection.execute("UPDATE asked_questions SET closed_at = coalesce(closed_at, ?) WHERE id = ?",
                                 (now, asked_id))
        silent = 0 if answered else round_.silent + 1
        if next_at is None:
            await connection.execute("UPDATE quiz_rounds SET silent = ? WHERE id = ?", (silent, round_.id))
        else:
            await connection.execute(
                "UPDATE quiz_rounds SET phase = 'between', due_at = ?, silent = ? WHERE id = ?",
                (next_at, silent, round_.id))


async def close_due_questions(db: Database, now: float) -> int:
    """Close every round's open question whose time is up, in one statement: answers stop on time even while
    the clock is still sending other rounds' messages at the platform's pace. Returns how many closed.
    Each close waits for the answer batches writing to that question (they share-lock it); run as one
    call, so that PostgreSQL runs it again if that wait ever turns into a deadlock."""

    async def close(connection: Transaction) -> int:
        closed = await connection.execute(
            """UPDATE asked_questions SET closed_at = ? WHERE closed_at IS NULL AND id IN (
                 SELECT q.asked_id FROM quiz_questions q JOIN quiz_rounds r ON r.id = q.round_id
                 WHERE r.state = 'running' AND q.number = r.asked AND q.closes_at <= ?)""", (now, now))
        return closed.rowcount

    return await db.in_one_call(close)


async def next_close(db: Database) -> float | None:
    """When the earliest open question of a running round closes."""
    row = await db.fetch_one(
        """SELECT min(q.closes_at) FROM quiz_questions q JOIN quiz_rounds r ON r.id = q.round_id
           JOIN asked_questions a ON a.id = q.asked_id
           WHERE r.state = 'running' AND q.number = r.asked AND a.closed_at IS NULL""")
    return row[0] if row and row[0] is not None else None


async def request_stop(db: Database, round_id: int, now: float) -> None:
    """Ask the clock to end a running round at once (it posts the ranking, whichever worker runs it)."""
    async with db.transaction() as connection:
        await connection.execute(
            "UPDATE quiz_rounds SET end_reason = 'stopped', due_at = ? WHERE id = ? AND state = 'running'",
            (now, round_id))


async def end_round(db: Database, round_: Round, reason: str, now: float) -> bool:
    """End a running round (False if it had ended already): its open question closes, and its answers join
    the chat's all-time board totals (no streak: streaks follow daily questions) and its week's group row.
    The conditional UPDATE on the round's state applies it once whichever worker gets there; run as one
    call, run again should closing its questions meet an answer batch in a deadlock."""

    async def end(connection: Transaction) -> bool:
        ended = await connection.execute(
            "UPDATE quiz_rounds SET state = 'ended', end_reason = ?, ended_at = ? WHERE id = ? AND state = 'running'",
            (reason, now, round_.id))
        if ended.rowcount != 1:
            return False
        await connection.execute(
            """UPDATE asked_questions SET closed_at = coalesce(closed_at, ?)
               WHERE id IN (SELECT asked_id FROM quiz_questions WHERE round_id = ?)""", (now, round_.id))
        await _add_to_boards(connection, round_)
        return True

    return await db.in_one_call(end)


async def _add_to_boards(connection: Transaction, round_: Round) -> None:
    """The round's answers added to the chat's board totals, under the chat's key lock: a daily fold
    (scores.fold_revealed) writes those totals back whole and must not overwrite this addition."""
    await connection.lock("chat", [round_.chat_id])
    rows = await connection.fetch_all(
        """SELECT a.user_id, sum(a.points) AS points, count(*) AS answered, sum(a.correct) AS correct,
                  sum(coalesce(a.latency_ms, 0)) AS time_ms
           FROM quiz_questions q JOIN answers a ON a.asked_id = q.asked_id WHERE q.round_id = ?
           GROUP BY a.user_id""", (round_.id,))
    await connection.executemany(
        """INSERT INTO board_totals (chat_id, user_id, points, answered, correct, time_ms, streak, best_streak)
           VALUES (?, ?, ?, ?, ?, ?, 0, 0)
           ON CONFLICT (chat_id, user_id) DO UPDATE SET points = board_totals.points + excluded.points,
               answered = board_totals.answered + excluded.answered,
               correct = board_totals.correct + excluded.correct, time_ms = board_totals.time_ms + excluded.time_ms""",
        [(round_.chat_id, row["user_id"], row["points"], row["answered"], row["correct"], row["time_ms"])
         for row in rows])
    asked = await connection.fetch_all(
        """SELECT DISTINCT q.asked_at FROM asked_questions q JOIN quiz_questions r ON r.asked_id = q.id
           WHERE r.round_id = ?""", (round_.id,))
    for week in sorted({utc_week_start(row[0]) for row in asked}):
        await refresh_group_week(connection, round_.chat_id, week)


async def question_stats(db: Database, asked_id: int) -> tuple[int, int]:
    """(answered, right) for one asked question."""
    row = await db.fetch_one("SELECT count(*), coalesce(sum(correct), 0) FROM answers WHERE asked_id = ?",
                             (asked_id,))
    return (int(row[0]), int(row[1])) if row else (0, 0)


async def round_answers(db: Database, round_id: int) -> list[tuple[int, str, int, bool, int, int]]:
    """(user id, name, question number, right, answer time ms, round seconds) of every answer in a round."""
    rows = await db.fetch_all(
        """SELECT a.user_id, u.name, q.number, a.correct, coalesce(a.latency_ms, 0), r.seconds
           FROM quiz_questions q JOIN quiz_rounds r ON r.id = q.round_id
           JOIN answers a ON a.asked_id = q.asked_id JOIN users u ON u.id = a.user_id
           WHERE q.round_id = ? ORDER BY q.number, a.answered_at""", (round_id,))
    return [(row[0], row[1], row[2], bool(row[3]), int(row[4]), int(row[5])) for row in rows]


async def recently_asked(db: Database, chat_id: int, limit: int = 500) -> set[str]:
    """Question ids this chat was asked lately (daily and quiz alike), to keep a round fresh."""
    rows = await db.fetch_all(
        "SELECT question_id FROM asked_questions WHERE chat_id = ? AND interview_id IS NULL ORDER BY id DESC LIMIT ?",
        (chat_id, limit))
    return {row[0] for row in rows}
