"""Group commit for bursts of answers: many members clicking at once share one transaction.

Every call to aiosqlite is a hand-off to its worker thread, and a hand-off costs more than the insert
itself; one transaction per answer (BEGIN, INSERT, review card, COMMIT) made a burst of daily answers
run at a tenth of raw SQLite. Here the answers that arrive while a batch is being written wait for
the next one, and a batch is one transaction whatever its size: one SELECT of the answers already
there, one executemany of the new ones, the review cards, the learner model's rows. On SQLite the whole
transaction is one hand-off (`Database.in_one_call`). Each caller still returns only after the COMMIT
that holds its answer, and a second answer by the same person to the same question is refused exactly
as the unique constraint would.
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

        async def body(connection: Transaction) -> tuple[list[BaseException | None], dict[int, int]]:
            verdicts = await self._record(connection, batch)
            return verdicts, await _answers_to(connection, {p.answer.asked_id for p in batch})

        verdicts, counts = await self.db.in_one_call(body)
        for pending, verdict in zip(batch, verdicts):
            if verdict is not None:
                _fail(pending, verdict)
            elif not pending.done.done():
                pending.done.set_result(counts.get(pending.answer.asked_id, 0))

    async def _record(self, connection: Transaction, batch: list[_Pending]) -> list[BaseException | None]:
        """Inside the transaction, touching nothing of the event loop (on SQLite it runs in the database's
        thread): each answer's refusal, or None once it is written with its review card and learner step."""
        keys = [(p.answer.asked_id, p.answer.user_id) for p in batch]
        still_open, existing = await _state_of(connection, keys)
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
        await connection.executemany(
            """INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            [(a.asked_id, a.user_id, a.option_index, int(a.correct), a.latency_ms, a.answered_at, a.points)
             for a in (p.answer for p in accepted)],
        )
        await record_reviews(connection, [ReviewAnswer(p.answer.user_id, p.question_id, p.answer.correct,
                                                       p.answer.latency_ms, p.answer.answered_at)
                                          for p in accepted], self.retention)
        await record_answers(connection, [LearnerAnswer(p.answer.user_id, p.item, p.answer.correct,
                                                        p.answer.answered_at)
                                          for p in accepted if p.item is not None])
        return verdicts


async def _answers_to(connection: Transaction, asked_ids: set[int]) -> dict[int, int]:
    """How many answers each of these asked questions holds, as of this transaction."""
    ordered = sorted(asked_ids)
    rows = await connection.fetch_all(f"""SELECT asked_id, count(*) FROM answers WHERE asked_id IN ({placeholders(ordered)})
                                           GROUP BY asked_id""", ordered)
    return {int(row[0]): int(row[1]) for row in rows}


async def _state_of(connection: Transaction,
                    keys: list[tuple[int, int]]) -> tuple[set[int], set[tuple[int, int]]]:
    """In one query: which asked questions are still open as of this transaction (a reveal may just
    have closed one), and which (asked question, user) pairs already hold an answer."""
    asked_ids = sorted({asked for asked, _ in keys})
    users = sorted({user for _, user in keys})
    rows = await connection.fetch_all(
        f"""SELECT q.id, q.closed_at IS NULL, a.user_id FROM asked_questions q
            LEFT JOIN answers a ON a.asked_id = q.id AND a.user_id IN ({placeholders(users)})
            WHERE q.id IN ({placeholders(asked_ids)})""",
        (*users, *asked_ids),
    )
    still_open = {row[0] for row in rows if row[1]}
    wanted = set(keys)
    return still_open, {(row[0], row[2]) for row in rows if (row[0], row[2]) in wanted}
