"""Group commit for bursts of answers: many members clicking at once share one transaction.

Every call to aiosqlite is a hand-off to its worker thread, and a hand-off costs more than the insert
itself; one transaction per answer (BEGIN, INSERT, review card, COMMIT) made a burst of daily answers
run at a tenth of raw SQLite. Here the answers that arrive while a batch is being written wait for
the next one, and a batch is one transaction whatever its size: one SELECT of the answers already
there, one INSERT of the new ones, the review cards, the learner model's rows. On SQLite the whole
transaction is one hand-off (`Database.in_one_call`); on PostgreSQL several workers' batches run side
by side, and a batch given up to a deadlock runs again. Each caller still returns only after the COMMIT
that holds its answer, and a second answer by the same person to the same question is refused exactly
as the unique constraint would (ON CONFLICT DO NOTHING: the one another worker wrote first stands).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from bot.domain import RecordedAnswer
from bot.learner.items import Item
from bot.store.database import Database, Transaction, placeholders
from bot.store.interviews import AlreadyAnswered
from bot.store.learner import LearnerAnswer, record_answers
from bot.review.cards import DEFAULT_RETENTION
from bot.store.review import ReviewAnswer, record_reviews

log = logging.getLogger(__name__)
MAX_BATCH = 256


@dataclass
class _Pending:
    answer: RecordedAnswer
    question_id: str
    done: asyncio.Future[int]
    item: Item | None = None


class QuestionClosed(Exception):
    """The question closed (revealed) before the answer could be written."""


def _fail(pending: _Pending, error: BaseException) -> None:
    if not pending.done.done():  # its caller may have gone (cancelled)
        pending.done.set_exception(error)


class AnswerWriter:
    """Records answers to open daily questions, batched; `record` raises AlreadyAnswered for a repeat."""

    def __init__(self, db: Database, retention: float = DEFAULT_RETENTION) -> None:
        self.db = db
        self.retention = retention  # the review cards' desired retention (FSRS)
        self._queue: list[_Pending] = []
        self._flushing: asyncio.Task[None] | None = None

    async def record(self, answer: RecordedAnswer, question_id: str, item: Item | None = None) -> int:
        """Return once the answer is committed (and its review card and, given the item, the learner
        model's beliefs updated), with how many answers its question then holds (the counter's figure,
        counted once per batch instead of once per click)."""
        pending = _Pending(answer, question_id, asyncio.get_running_loop().create_future(), item)
        self._queue.append(pending)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush_all(), name="answer-batch")
        return await pending.done

    async def _flush_all(self) -> None:
        while self._queue:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
            try:
                await self._write(batch)
            except Exception as error:  # the whole batch failed: every caller hears why
                log.exception("answer batch of %d failed", len(batch))
                for pending in batch:
                    _fail(pending, error)

    async def _write(self, batch: list[_Pending]) -> None:
        """The batch as one transaction (one hand-off on SQLite); its callers hear the verdicts after COMMIT."""

        verdicts, counts = await self.db.in_one_call(lambda connection: self._record(connection, batch))
        for pending, verdict in zip(batch, verdicts):
            if verdict is not None:
                _fail(pending, verdict)
            elif not pending.done.done():
                pending.done.set_result(counts.get(pending.answer.asked_id, 0))

    async def _record(self, connection: Transaction,
                      batch: list[_Pending]) -> tuple[list[BaseException | None], dict[int, int]]:
        """Inside the transaction, touching nothing of the event loop (on SQLite it runs in the database's
        thread): each answer's refusal, or None once it is written with its review card and learner step;
        and how many answers each question then holds (those read with the questions' state, plus this
        batch's: no statement of its own).

        Safe beside other workers' batches (PostgreSQL): the people's key locks first (their cards and
        beliefs are read, then written; two workers recording one person's answer take turns here),
        then the questions' rows FOR SHARE, so a reveal's close waits for this batch and a batch after
        the close sees it closed; behind them the unique (question, person) key, with ON CONFLICT DO
        NOTHING, keeps the answer another transaction wrote first."""
        keys = [(p.answer.asked_id, p.answer.user_id) for p in batch]
        await connection.lock("person", [user for _, user in keys])
        still_open, existing, before = await _state_of(connection, keys)
        verdicts: list[BaseException | None] = []
        accepted: list[_Pending] = []
        for pending, key in zip(batch, keys):
            if key[0] not in still_open:
                verdicts.append(QuestionClosed(f"asked {key[0]} closed"))
            elif key in existing:
                verdicts.append(AlreadyAnswered(f"asked {key[0]}, user {key[1]}"))
            else:
                existing.add(key)  # a repeat inside this batch is refused too
                verdicts.append(None)
                accepted.append(pending)
        written = await _insert_new(connection, accepted)
        for index, key in enumerate(keys):
            if verdicts[index] is None and key not in written:
                verdicts[index] = AlreadyAnswered(f"asked {key[0]}, user {key[1]}")
        counts = dict(before)  # each question's answers: those there before this batch, and this batch's
        for asked, _ in written:
            counts[asked] = counts.get(asked, 0) + 1
        reviews: list[ReviewAnswer] = []  # one pass over the written answers makes both steps' records
        learned: list[LearnerAnswer] = []
        for pending in accepted:
            answer = pending.answer
            if (answer.asked_id, answer.user_id) in written:
                reviews.append(ReviewAnswer(answer.user_id, pending.question_id, answer.correct, answer.latency_ms,
                                            answer.answered_at))
                if pending.item is not None:
                    learned.append(LearnerAnswer(answer.user_id, pending.item, answer.correct, answer.answered_at))
        await record_reviews(connection, reviews, self.retention)
        await record_answers(connection, learned)
        return verdicts, counts


async def _insert_new(connection: Transaction, accepted: list[_Pending]) -> set[tuple[int, int]]:
    """Insert the answers, in key order (two batches wait on each other's keys in one order, never in a
    circle); the (asked question, user) keys actually written: one another worker wrote first is skipped."""
    if not accepted:
        return set()
    ordered = sorted((p.answer for p in accepted), key=lambda a: (a.asked_id, a.user_id))
    rows = await connection.fetch_all(
        f"""INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
            VALUES {", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * len(ordered))}
            ON CONFLICT (asked_id, user_id) DO NOTHING RETURNING asked_id, user_id""",
        [value for a in ordered
         for value in (a.asked_id, a.user_id, a.option_index, int(a.correct), a.latency_ms, a.answered_at, a.points)])
    return {(int(row[0]), int(row[1])) for row in rows}


async def _state_of(connection: Transaction, keys: list[tuple[int, int]]
                    ) -> tuple[set[int], set[tuple[int, int]], dict[int, int]]:
    """In one query (with the database a network away, one round trip): which asked questions are still
    open as of this transaction (a reveal may just have closed one), which (asked question, user) pairs
    already hold an answer, and how many answers each question holds before this batch. On PostgreSQL
    the questions' rows stay share-locked until COMMIT: a close waits for the answers being written."""
    asked_ids = sorted({asked for asked, _ in keys})
    users = sorted({user for _, user in keys})
    rows = await connection.fetch_all(
        f"""SELECT q.id, q.closed_at IS NULL, a.user_id, (SELECT count(*) FROM answers c WHERE c.asked_id = q.id)
            FROM asked_questions q
            LEFT JOIN answers a ON a.asked_id = q.id AND a.user_id IN ({placeholders(users)})
            WHERE q.id IN ({placeholders(asked_ids)}) ORDER BY q.id{connection.dialect.locking("SHARE", "q")}""",
        (*users, *asked_ids),
    )
    still_open = {row[0] for row in rows if row[1]}
    wanted = set(keys)
    return (still_open, {(row[0], row[2]) for row in rows if (row[0], row[2]) in wanted},
            {int(row[0]): int(row[3]) for row in rows})
