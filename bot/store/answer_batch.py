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
On PostgreSQL the items' difficulty steps are logged with the answers and folded by a transaction of
their own once the callers have their verdicts (bot/store/item_steps.py says why), and a batch is two
round trips: its read goes ahead of BEGIN and the people's locks, and is checked unchanged under them in
the message that carries the writes and the COMMIT (`_record` says what is checked); a batch whose
read met a change runs again, reading under the locks.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from bot.domain import RecordedAnswer
from bot.learner.items import Item
from bot.store.database import Database, StaleRead, Transaction, UniqueViolation, placeholders
from bot.store.item_steps import fold
from bot.store.interviews import AlreadyAnswered
from bot.store.learner import LearnerAnswer, beliefs_query, hold_items, items_query, record_answers
from bot.review.cards import DEFAULT_RETENTION
from bot.store.review import ReviewAnswer, cards_query, record_reviews

log = logging.getLogger(__name__)
MAX_BATCH = 256
FOLD_PAUSE_S = 0.1  # how long an item's logged steps wait for the next ones before a fold takes them all
INSERT_ATTEMPTS = 3  # a batch whose INSERT met an answer written beside it (outside the key locks) runs again
# The largest batch that reads ahead of its locks (PostgreSQL): the round trip it saves is shared by fewer
# answers the larger the batch, while its check (a digest of the rows read, computed twice) costs the server
# more; a burst of 250 answers a batch ran 15-25% slower on a local database reading ahead.
READ_AHEAD_MAX = 32


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
        self._unfolded: set[str] = set()  # items whose logged steps this writer's next fold takes
        self._folding: asyncio.Task[None] | None = None

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

        ahead = self.db.dialect.row_locks and len(batch) <= READ_AHEAD_MAX  # one round trip fewer (PostgreSQL)
        attempt = 0
        while True:
            try:
                verdicts, counts, logged = await self.db.in_one_call(
                    lambda connection: self._record(connection, batch, ahead))
                break
            except StaleRead:  # someone's rows changed between the read ahead and the locks: read under them
                log.debug("answer batch of %d read ahead of a change; running it again under the locks", len(batch))
                ahead = False
            except UniqueViolation:  # an answer written between the read and the INSERT: read again
                attempt += 1
                if attempt == INSERT_ATTEMPTS:
                    raise
                log.info("answer batch of %d met an answer written beside it; running it again", len(batch))
                ahead = False
        for pending, verdict in zip(batch, verdicts):
            if verdict is not None:
                _fail(pending, verdict)
            elif not pending.done.done():
                pending.done.set_result(counts.get(pending.answer.asked_id, 0))
        if logged:
            self._fold_later(logged)

    def _fold_later(self, question_ids: set[str]) -> None:
        """The items' logged steps folded in the background, one fold at a time per writer, FOLD_PAUSE_S
        after the batch that asked for it: the items of batches committed meanwhile go into the same fold.
        (A fold per batch cost the workers' direct rate 6-10%: three more statements per batch.)"""
        self._unfolded |= question_ids
        if self._unfolded and (self._folding is None or self._folding.done()):
            self._folding = asyncio.create_task(self._fold_all(), name="item-fold")

    async def _fold_all(self) -> None:
        while self._unfolded:
            await asyncio.sleep(FOLD_PAUSE_S)  # the batches of a burst meanwhile share this fold
            wanted, self._unfolded = sorted(self._unfolded), set()
            try:
                await self.db.in_one_call(lambda connection: fold(connection, wanted))
            except Exception:  # the steps stay logged: the item's next fold, or the next start's, takes them
                log.exception("folding the difficulty steps of %d items failed", len(wanted))

    async def settled(self) -> None:
        """Once every answer given so far is written and its item's step folded (a clean stop; tests)."""
        while True:
            running = [task for task in (self._flushing, self._folding) if task is not None and not task.done()]
            if not running:
                return
            await asyncio.gather(*running, return_exceptions=True)

    async def _record(self, connection: Transaction, batch: list[_Pending],
                      ahead: bool = False) -> tuple[list[BaseException | None], dict[int, int], set[str]]:
        """Inside the transaction, touching nothing of the event loop (on SQLite it runs in the database's
        thread): each answer's refusal, or None once it is written with its review card and learner step;
        how many answers each question then holds (those read with the questions' state, plus this
        batch's: no statement of its own); and the items whose steps it logged for a fold (PostgreSQL).

        Under the locks, in three round trips on PostgreSQL whatever the batch's size: the people's key
        locks (their cards and beliefs are read, then written; two workers recording one person's answer
        take turns here), with the items' rows made sure of (learner.hold_items); one read of everything
        the batch needs (the questions' state, FOR SHARE, so that a reveal's close waits for this batch and
        a batch after the close sees it closed; the answers already there; the cards; the beliefs; the
        items' rows); the writes with the COMMIT. `ahead` (PostgreSQL): two round trips, the read sent
        first, before BEGIN and the locks (`Transaction.read_ahead`), and checked unchanged under them in
        the message that holds the writes and the COMMIT (`expect_unchanged`, `_digest_query`: the
        questions' rows share-locked and still open, these people's cards and beliefs as read); if anything
        changed, the transaction fails with StaleRead and `_write` runs the batch again under the locks. An
        answer of theirs written after the read (ahead, or under the locks by a writer that took none) fails
        the INSERT on the unique key, and `_write` runs the batch again, reading it there."""
        keys = [(p.answer.asked_id, p.answer.user_id) for p in batch]
        users = sorted({user for _, user in keys})
        items = [p.item for p in batch if p.item is not None]
        item_ids = sorted({item.question_id for item in items})
        cards_read = cards_query(users, sorted({p.question_id for p in batch}))
        log_items = connection.dialect.row_locks  # PostgreSQL: the items' steps logged, folded after the COMMIT
        reads = [_state_query(keys, users, connection, locked=not ahead), cards_read]
        if items:
            reads += [beliefs_query(users), items_query(item_ids, connection, locked=not log_items)]
        if ahead:
            rows, seen = await connection.read_ahead(reads, _digest_query(batch, share=False))
        await connection.lock("person", users)
        await hold_items(connection, items, batch[0].answer.answered_at)
        if ahead:
            await connection.expect_unchanged(_digest_query(batch, share=True), seen)
        else:
            rows = await connection.fetch_together(reads)
        state, cards, *beliefs = rows
        still_open, existing, before = _state_of(state, keys)
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
        await _insert_new(connection, accepted)
        counts = dict(before)  # each question's answers: those there before this batch, and this batch's
        reviews: list[ReviewAnswer] = []  # one pass over the written answers makes all three records
        learned: list[LearnerAnswer] = []
        for pending in accepted:
            answer = pending.answer
            counts[answer.asked_id] = counts.get(answer.asked_id, 0) + 1
            reviews.append(ReviewAnswer(answer.user_id, pending.question_id, answer.correct, answer.latency_ms,
                                        answer.answered_at))
            if pending.item is not None:
                learned.append(LearnerAnswer(answer.user_id, pending.item, answer.correct, answer.answered_at))
        await record_reviews(connection, reviews, self.retention, cards)
        await record_answers(connection, learned, beliefs[0] + beliefs[1] if beliefs else [], log_items=log_items)
        logged = {answer.item.question_id for answer in learned} if log_items else set()
        if log_items:  # rows `hold_items` made that no answer moved, and no step waits to move
            unanswered = set(item_ids) - logged
            if unanswered:
                await connection.executemany(
                    """DELETE FROM item_difficulties WHERE question_id = ? AND answers = 0
                       AND NOT EXISTS (SELECT 1 FROM item_steps s WHERE s.question_id = item_difficulties.question_id)""",
                    [(question_id,) for question_id in sorted(unanswered)])
        return verdicts, counts, logged


async def _insert_new(connection: Transaction, accepted: list[_Pending]) -> None:
    """Insert the answers, in key order. No ON CONFLICT: under the people's locks, after the read that
    found none of them, a conflict means a writer outside those locks, and failing is the safe way out."""
    if not accepted:
        return
    ordered = sorted((p.answer for p in accepted), key=lambda a: (a.asked_id, a.user_id))
    await connection.executemany(
        """INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        [(a.asked_id, a.user_id, a.option_index, int(a.correct), a.latency_ms, a.answered_at, a.points)
         for a in ordered])


def _state_query(keys: list[tuple[int, int]], users: list[int], connection: Transaction,
                 locked: bool = True) -> tuple[str, tuple[int, ...]]:
    """Which asked questions are still open as of this transaction (a reveal may just have closed one),
    which (asked question, user) pairs already hold an answer, and how many answers each question holds
    before this batch. `locked` (PostgreSQL): the questions' rows stay share-locked until COMMIT, so a
    close waits for the answers being written."""
    asked_ids = sorted({asked for asked, _ in keys})
    locking = connection.dialect.locking("SHARE", "q") if locked else ""
    return (f"""SELECT q.id, q.closed_at IS NULL, a.user_id, (SELECT count(*) FROM answers c WHERE c.asked_id = q.id)
                FROM asked_questions q
                LEFT JOIN answers a ON a.asked_id = q.id AND a.user_id IN ({placeholders(users)})
                WHERE q.id IN ({placeholders(asked_ids)}) ORDER BY q.id{locking}""",
            (*users, *asked_ids))


def _digest_query(batch: list[_Pending], share: bool) -> tuple[str, tuple]:
    """A digest of what the batch decides from and writes over, for a read ahead of the locks to be checked
    under them (PostgreSQL, migration 18): the questions' open state (with `share`, their rows share-locked
    first and held to the COMMIT, as the state query's FOR SHARE would), the row versions of the cards the
    batch reads (its people's, for its questions) and of the people's beliefs. Not their answers: one
    written in between fails the INSERT on the unique key, and the batch runs again (the digest would scan
    every answer to the question, twice a batch); nor the answers' count (the counter's figure, as of the
    read) nor the items' rows (read unlocked anyway, their steps logged). Unlocked when read ahead: a lock
    there would make the read a write transaction, its COMMIT a flush."""
    return ("SELECT interview_bot_answer_digest(?::bigint[], ?::bigint[], ?::text[], ?)",
            (sorted({p.answer.user_id for p in batch}), sorted({p.answer.asked_id for p in batch}),
             sorted({p.question_id for p in batch}), share))


def _state_of(rows: list, keys: list[tuple[int, int]]) -> tuple[set[int], set[tuple[int, int]], dict[int, int]]:
    """The state query's rows as the open questions, the pairs already answered, and the answers' counts."""
    still_open = {row[0] for row in rows if row[1]}
    wanted = set(keys)
    return (still_open, {(row[0], row[2]) for row in rows if (row[0], row[2]) in wanted},
            {int(row[0]): int(row[3]) for row in rows})
