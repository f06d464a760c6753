"""Group commit of daily answers: shared transactions, first answers only, closed questions refused."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.pg_proxy import ProxyProcess
from bot.domain import ChatRef, RecordedAnswer, UserRef
from bot.learner.items import Item
from bot.store import Database
from bot.store.answer_batch import READ_AHEAD_MAX, AnswerWriter, QuestionClosed
from bot.store.daily import create_post
from bot.store.interviews import AlreadyAnswered, close_asked
from bot.store.item_steps import fold
from bot.store.learner import LearnerAnswer, abilities, record_answers
from bot.store.people import ensure_chat, ensure_user
from bot.store.postgres_transaction import PostgresTransaction
from bot.store.review import ReviewAnswer, get_card, record_reviews


async def setup(db: Database, members: int) -> tuple[int, list[int]]:
    chat = await ensure_chat(db, ChatRef("t", "g", "group"), 1.0)
    post = await create_post(db, chat.id, "fx-001", (0, 1, 2, 3), "manual", "2026-05-04", 1e12, 1.0)
    users = [(await ensure_user(db, UserRef("t", f"u{i}", f"U{i}"), 1.0)).id for i in range(members)]
    return post.asked_id, users


async def test_a_burst_shares_transactions_and_keeps_first_answers_only(db: Database) -> None:
    asked_id, users = await setup(db, 50)
    writer = AnswerWriter(db)
    commits = 0
    transaction = db.transaction

    def counting_transaction():
        nonlocal commits
        commits += 1
        return transaction()

    db.transaction = counting_transaction  # type: ignore[method-assign]
    clicks = [RecordedAnswer(asked_id, user, user % 4, user % 4 == 0, 900, 2.0, 1 if user % 4 == 0 else 0)
              for user in users]
    repeats = [RecordedAnswer(asked_id, user, 3, False, 950, 2.1) for user in users[:10]]
    results = await asyncio.gather(*(writer.record(a, "fx-001") for a in clicks + repeats), return_exceptions=True)
    counts = results[:50]  # each caller hears how many answers the question held once its batch committed
    assert all(isinstance(c, int) and 1 <= c <= 50 for c in counts) and max(counts) == 50
    assert counts == sorted(counts), "a later batch never reports fewer answers"
    assert all(isinstance(r, AlreadyAnswered) for r in results[50:])
    assert commits < 10, f"{commits} transactions for 60 clicks: answers must share them"
    rows = await db.fetch_all("SELECT user_id, option_index FROM answers ORDER BY user_id")
    assert [(r["user_id"], r["option_index"]) for r in rows] == [(u, u % 4) for u in users]
    wrong, right = next(u for u in users if u % 4), next(u for u in users if u % 4 == 0)
    missed = await get_card(db, wrong, "fx-001")
    assert missed is not None and missed.lapses == 1, "a wrong answer enters review, as on the single path"
    assert await get_card(db, right, "fx-001") is None


async def test_an_answer_after_the_close_is_refused(db: Database) -> None:
    asked_id, users = await setup(db, 2)
    writer = AnswerWriter(db)
    assert await writer.record(RecordedAnswer(asked_id, users[0], 0, True, 10, 2.0, 1), "fx-001") == 1
    async with db.transaction() as connection:
        await close_asked(connection, asked_id, 3.0)
    with pytest.raises(QuestionClosed):
        await writer.record(RecordedAnswer(asked_id, users[1], 0, True, 10, 4.0, 1), "fx-001")
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 1


async def test_a_failed_batch_tells_every_caller_and_records_nothing(db: Database) -> None:
    asked_id, users = await setup(db, 3)
    writer = AnswerWriter(db)
    bad = RecordedAnswer(asked_id, 999_999, 0, True, 10, 2.0, 1)  # no such user: a foreign key error
    results = await asyncio.gather(*(writer.record(a, "fx-001") for a in
                                     [RecordedAnswer(asked_id, users[0], 0, True, 10, 2.0, 1), bad]),
                                   return_exceptions=True)
    assert all(isinstance(r, Exception) and not isinstance(r, AlreadyAnswered) for r in results)
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 0
    await writer.record(RecordedAnswer(asked_id, users[0], 0, True, 10, 2.0, 1), "fx-001")
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 1


async def test_a_batch_costs_three_round_trips_on_postgresql_whatever_its_size(postgres_server,
                                                                                 postgres_store_url) -> None:
    """With the database a network away a batch's time is its round trips: the key locks, one read of
    everything (the question's state, the answers there, the cards, the beliefs), the writes with the
    COMMIT; then, after its callers heard, three more fold its item's logged step (bot/store/item_steps.py).
    Counted at the server's door, for batches of 1 and of 24 answers, with the learner's item."""
    item = Item("fx-001", "topic", "specialty", 2)
    db = await Database.open(postgres_store_url)
    try:
        asked_id, users = await setup(db, 25)
    finally:
        await db.close()
    async with ProxyProcess(postgres_server.port) as proxy:
        db = await Database.open(postgres_store_url.replace(f":{postgres_server.port}/", f":{proxy.port}/"))
        try:
            writer = AnswerWriter(db)
            writer._fold_later = lambda question_ids: None  # type: ignore[method-assign]  # folded by hand below
            await writer.record(RecordedAnswer(asked_id, users[0], 1, False, 10, 2.0, 0), "fx-001", item)  # warm
            await db.in_one_call(lambda connection: fold(connection, ["fx-001"]))
            for size, members in ((1, users[1:2]), (24, users[1:])):
                before = (await proxy.chunks())["to_server"]
                answers = [RecordedAnswer(asked_id, user, user % 4, user % 4 == 0, 10, 3.0, 1) for user in members]
                results = await asyncio.gather(*(writer.record(a, "fx-001", item) for a in answers),
                                               return_exceptions=True)
                flights = (await proxy.chunks())["to_server"] - before
                assert flights <= 2, f"{flights} messages for {size} answers"
                before = (await proxy.chunks())["to_server"]
                recorded = sum(isinstance(result, int) for result in results)  # (the first round's member repeats)
                assert await db.in_one_call(lambda connection: fold(connection, ["fx-001"])) == recorded
                flights = (await proxy.chunks())["to_server"] - before
                assert flights <= 3, f"{flights} messages to fold {size} steps"
            assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 25
            assert (await db.fetch_one("SELECT answers FROM item_difficulties"))[0] == 25
        finally:
            await db.close()


async def test_answers_given_one_after_another_are_each_written(db: Database) -> None:
    """A member whose answer comes the moment the last batch was written (its task just ending) is written
    too, not left waiting for a batch that never starts."""
    asked_id, users = await setup(db, 5)
    writer = AnswerWriter(db)

    async def one_after_another() -> list[int]:  # each answer given straight from the last one's return
        return [await writer.record(RecordedAnswer(asked_id, user, 0, True, 10, 2.0, 1), "fx-001") for user in users]

    assert await asyncio.wait_for(one_after_another(), 10) == [1, 2, 3, 4, 5]


def _between_read_and_locks(monkeypatch: pytest.MonkeyPatch, meanwhile=None) -> list[str]:
    """Run `meanwhile` once, right after a batch's read ahead of its locks; how each run of a batch read
    ("ahead" of its locks, or "locked": under them), in order."""
    runs: list[str] = []
    read_ahead, record = PostgresTransaction.read_ahead, AnswerWriter._record

    async def reading_ahead(self, queries, check):
        found = await read_ahead(self, queries, check)
        if meanwhile is not None and runs.count("ahead") == 1:
            await meanwhile()
        return found

    async def recording(self, connection, batch, ahead=False):
        runs.append("ahead" if ahead else "locked")
        return await record(self, connection, batch, ahead)

    monkeypatch.setattr(PostgresTransaction, "read_ahead", reading_ahead)
    monkeypatch.setattr(AnswerWriter, "_record", recording)
    return runs


async def test_a_step_committed_between_the_read_ahead_and_the_locks_is_kept(postgres_store_url, monkeypatch) -> None:
    """The member's interview answer (another worker) moves their belief and card for this very question after
    the batch read them ahead and before it locked: the batch reads again under the lock, and both steps
    count (two answers in the belief, a card reviewed twice), where writing from the first read would lose
    the interview's."""
    item = Item("fx-001", "topic", "specialty", 2)
    db = await Database.open(postgres_store_url)
    try:
        asked_id, (user,) = await setup(db, 1)

        async def interview_answer() -> None:
            async with db.transaction() as connection:
                await record_answers(connection, [LearnerAnswer(user, item, False, 2.5)])
                await record_reviews(connection, [ReviewAnswer(user, "fx-001", False, 10, 2.5)])

        reads = _between_read_and_locks(monkeypatch, interview_answer)
        writer = AnswerWriter(db)
        assert await writer.record(RecordedAnswer(asked_id, user, 1, False, 10, 3.0, 0), "fx-001", item) == 1
        await writer.settled()
        assert reads == ["ahead", "locked"], "the stale read ahead is read again under the locks"
        beliefs = await abilities(db, user, 3.0)
        assert beliefs["topic"].answers == 2
        card = await get_card(db, user, "fx-001")
        assert card is not None and card.last_reviewed_at == 3.0 and card.lapses == 2
    finally:
        await db.close()


async def test_a_question_closed_between_the_read_ahead_and_the_locks_takes_no_answer(postgres_store_url,
                                                                                   monkeypatch) -> None:
    """A reveal closes the question after the batch read it open: the answer is refused as closed, and the
    reveal's count stays the count of what it saw."""
    db = await Database.open(postgres_store_url)
    try:
        asked_id, (user,) = await setup(db, 1)

        async def reveal() -> None:
            async with db.transaction() as connection:
                assert await close_asked(connection, asked_id, 2.5)

        reads = _between_read_and_locks(monkeypatch, reveal)
        with pytest.raises(QuestionClosed):
            await AnswerWriter(db).record(RecordedAnswer(asked_id, user, 0, True, 10, 3.0, 1), "fx-001")
        assert reads == ["ahead", "locked"]
        assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 0
    finally:
        await db.close()


async def test_an_answer_written_between_the_read_ahead_and_the_locks_stands(postgres_store_url,
                                                                            monkeypatch) -> None:
    """The same member's click reached another worker, whose batch wrote it after this batch read ahead:
    this one's INSERT meets the unique key, the batch reads again under the locks, and its member is told
    it is a repeat; the first answer stands."""
    db = await Database.open(postgres_store_url)
    try:
        asked_id, (user,) = await setup(db, 1)

        async def other_worker() -> None:
            assert await AnswerWriter(db).record(RecordedAnswer(asked_id, user, 2, False, 10, 2.5, 0), "fx-001") == 1

        runs = _between_read_and_locks(monkeypatch, other_worker)
        with pytest.raises(AlreadyAnswered):
            await AnswerWriter(db).record(RecordedAnswer(asked_id, user, 0, True, 10, 3.0, 1), "fx-001")
        assert runs[0] == "ahead" and runs[-1] == "locked"
        rows = await db.fetch_all("SELECT option_index FROM answers WHERE asked_id = ?", (asked_id,))
        assert [row[0] for row in rows] == [2]
    finally:
        await db.close()


@pytest.mark.parametrize("members, runs", [(3, ["ahead"]), (READ_AHEAD_MAX + 8, ["locked"])])
async def test_a_batch_nobody_touched_is_read_once_ahead_of_its_locks_unless_too_large(
        postgres_store_url, monkeypatch, members, runs) -> None:
    """One read a batch: ahead of the locks, or under them for a batch larger than READ_AHEAD_MAX (its round
    trip is shared by many answers, and the check grows with them)."""
    db = await Database.open(postgres_store_url)
    try:
        asked_id, users = await setup(db, members)
        seen = _between_read_and_locks(monkeypatch)
        writer = AnswerWriter(db)
        await asyncio.gather(*(writer.record(RecordedAnswer(asked_id, user, 0, True, 10, 3.0, 1), "fx-001")
                               for user in users))
        assert seen == runs
        assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == members
    finally:
        await db.close()
