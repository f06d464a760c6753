"""Several workers writing one PostgreSQL database at once, with no global write lock: each write path is
safe on its own terms. Each worker is a pool of its own (`Database.open` per worker), all started together.

One person's answer to one question is recorded once however many workers record it; many people's
answers are all recorded, and the learner model counts each of them; a state change raced by several
transactions applies once; a close waits for the answers being written, so a count read after it is
final; a deadlock given up by the server is run again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.domain import ChatRef, InterviewFilters, RecordedAnswer, UserRef
from bot.learner.items import Item
from bot.store import Database, answer_batch, learner, quiz
from bot.store.answer_batch import AnswerWriter, QuestionClosed
from bot.store.backend import Transaction
from bot.store.daily import create_post, mark_post, start_reveal
from bot.store.interviews import AlreadyAnswered, close_asked, create_interview
from bot.store.people import ensure_chat, ensure_user

WORKERS = 6
ITEM = Item("q-concurrency", "sql", "backend", 2)


@pytest.fixture
async def workers(postgres_store_url: str) -> AsyncIterator[list[Database]]:
    opened = [await Database.open(postgres_store_url) for _ in range(WORKERS)]
    try:
        yield opened
    finally:
        for db in opened:
            await db.close()


async def people(db: Database, count: int) -> list[int]:
    return [(await ensure_user(db, UserRef("t", f"u{number}", f"User {number}"), 1.0)).id for number in range(count)]


async def daily_question(db: Database, chat_name: str = "group", day: str = "2026-12-01") -> tuple[int, int, int]:
    """(chat id, post id, asked id) of a daily question that was sent and is open."""
    chat = await ensure_chat(db, ChatRef("t", chat_name, "group", "Group"), 1.0)
    post = await create_post(db, chat.id, ITEM.question_id, (0, 1, 2, 3), "scheduled", day, 1_000.0, 2.0)
    assert post is not None
    await mark_post(db, post.id, "sent", 3.0)
    return chat.id, post.id, post.asked_id


def answer(asked_id: int, user_id: int, right: bool = True) -> RecordedAnswer:
    return RecordedAnswer(asked_id, user_id, 0 if right else 1, right, 1_500, 10.0, 10 if right else 0)


async def outcome(writer: AnswerWriter, given: RecordedAnswer) -> str:
    try:
        await writer.record(given, ITEM.question_id, ITEM)
    except AlreadyAnswered:
        return "repeat"
    except QuestionClosed:
        return "closed"
    return "recorded"


async def settle(writers: list[AnswerWriter]) -> None:
    """Every writer's batches written and their items' logged steps folded (bot/store/item_steps.py)."""
    await asyncio.gather(*(writer.settled() for writer in writers))


async def count(db: Database, sql: str, parameters: tuple = ()) -> int:
    return int((await db.fetch_one(sql, parameters))[0])


async def test_one_person_clicking_through_every_worker_is_recorded_once(workers) -> None:
    _, _, asked_id = await daily_question(workers[0])
    [user] = await people(workers[0], 1)
    writers = [AnswerWriter(db) for db in workers]
    results = await asyncio.gather(*(outcome(writer, answer(asked_id, user)) for writer in writers * 3))
    assert sorted(results) == ["recorded"] + ["repeat"] * (len(results) - 1)
    assert await count(workers[0], "SELECT count(*) FROM answers WHERE asked_id = ?", (asked_id,)) == 1
    await settle(writers)
    assert await count(workers[0], "SELECT answers FROM item_difficulties WHERE question_id = ?",
                       (ITEM.question_id,)) == 1, "the learner model moved once, by the one answer kept"


async def test_many_people_through_many_workers_are_all_recorded_and_all_counted(workers) -> None:
    """Sixty people clicking at once, spread over the workers: sixty answers, and the item's difficulty
    and each person's belief and card moved by each of them (a read-modify-write lost between two
    workers would show as fewer)."""
    _, _, asked_id = await daily_question(workers[0])
    users = await people(workers[0], 60)
    writers = [AnswerWriter(db) for db in workers]
    results = await asyncio.gather(*(outcome(writers[index % WORKERS], answer(asked_id, user, user % 3 != 0))
                                     for index, user in enumerate(users)))
    assert results == ["recorded"] * len(users)
    rows = await workers[0].fetch_all("SELECT user_id FROM answers WHERE asked_id = ?", (asked_id,))
    assert sorted(row[0] for row in rows) == sorted(users)
    await settle(writers)
    assert await count(workers[0], "SELECT answers FROM item_difficulties WHERE question_id = ?",
                       (ITEM.question_id,)) == len(users)
    assert await count(workers[0], "SELECT count(*) FROM abilities WHERE scope = 'topic' AND answers = 1") == len(users)
    assert await count(workers[0], "SELECT count(*) FROM review_cards") == len([u for u in users if u % 3 == 0])


async def test_many_people_each_clicking_through_every_worker_are_each_recorded_once(workers) -> None:
    _, _, asked_id = await daily_question(workers[0])
    users = await people(workers[0], 30)
    writers = [AnswerWriter(db) for db in workers]
    results = await asyncio.gather(*(outcome(writer, answer(asked_id, user)) for user in users for writer in writers))
    assert results.count("recorded") == len(users) and results.count("repeat") == len(results) - len(users)
    rows = await workers[0].fetch_all("SELECT user_id FROM answers WHERE asked_id = ?", (asked_id,))
    assert sorted(row[0] for row in rows) == sorted(users)
    await settle(writers)
    assert await count(workers[0], "SELECT answers FROM item_difficulties WHERE question_id = ?",
                       (ITEM.question_id,)) == len(users)


async def test_refused_clicks_leave_no_difficulty_behind_and_the_first_answer_after_starts_it(workers) -> None:
    """The item's row is made before it is read FOR UPDATE; a batch whose clicks were all refused (the
    question closed) moves nothing, so it must leave no row behind: the first answer that counts starts
    the item from its starting difficulty, on whichever worker it lands."""
    _, _, asked_id = await daily_question(workers[0])
    _, _, other_asked = await daily_question(workers[0], "other group")
    users = await people(workers[0], 8)

    async def close(connection: Transaction) -> bool:
        return await close_asked(connection, asked_id, 20.0)

    assert await workers[0].in_one_call(close)
    writers = [AnswerWriter(db) for db in workers]
    refused = await asyncio.gather(*(outcome(writers[index % WORKERS], answer(asked_id, user))
                                     for index, user in enumerate(users)))
    assert refused == ["closed"] * len(users)
    assert await count(workers[0], "SELECT count(*) FROM item_difficulties") == 0
    recorded = await asyncio.gather(*(outcome(writers[index % WORKERS], answer(other_asked, user))
                                      for index, user in enumerate(users)))
    assert recorded == ["recorded"] * len(users)
    await settle(writers)
    assert await count(workers[0], "SELECT answers FROM item_difficulties WHERE question_id = ?",
                       (ITEM.question_id,)) == len(users)


async def test_interview_answers_and_daily_clicks_on_one_item_each_move_its_difficulty(workers) -> None:
    """An interview's answer (learner.record_answers reading the item's row itself) and daily clicks
    (the batch reading it with everything else) to one question, on every worker at once, starting
    before the item has a row: the item's difficulty is moved by each of them, none overwritten."""
    _, _, asked_id = await daily_question(workers[0])
    clickers = await people(workers[0], 24)
    interviewed = [(await ensure_user(workers[0], UserRef("t", f"i{n}", f"I {n}"), 1.0)).id for n in range(12)]

    async def interview_answer(db: Database, user: int) -> None:
        async def body(connection: Transaction) -> None:
            await learner.record_answers(connection, [learner.LearnerAnswer(user, ITEM, user % 2 == 0, 12.0)])
        await db.in_one_call(body)

    writers = [AnswerWriter(db) for db in workers]
    results = await asyncio.gather(
        *(outcome(writers[index % WORKERS], answer(asked_id, user)) for index, user in enumerate(clickers)),
        *(interview_answer(workers[index % WORKERS], user) for index, user in enumerate(interviewed)))
    assert results[:len(clickers)] == ["recorded"] * len(clickers)
    await settle(writers)
    assert await count(workers[0], "SELECT answers FROM item_difficulties WHERE question_id = ?",
                       (ITEM.question_id,)) == len(clickers) + len(interviewed)


async def test_answers_racing_a_close_are_counted_before_it_or_refused_after_it(workers) -> None:
    """A reveal closes the question while members are still clicking on every worker: what it counts
    right after the close is final (no answer lands behind it), and every click was either recorded or
    told the question closed."""
    _, _, asked_id = await daily_question(workers[0])
    users = await people(workers[0], 60)
    writers = [AnswerWriter(db) for db in workers[1:]]
    clicks = [asyncio.create_task(outcome(writers[index % len(writers)], answer(asked_id, user)))
              for index, user in enumerate(users)]
    await asyncio.sleep(0.01)

    async def close(connection: Transaction) -> bool:
        return await close_asked(connection, asked_id, 20.0)

    assert await workers[0].in_one_call(close)
    counted_at_close = await count(workers[0], "SELECT count(*) FROM answers WHERE asked_id = ?", (asked_id,))
    results = await asyncio.gather(*clicks)
    assert set(results) <= {"recorded", "closed"}
    assert await count(workers[0], "SELECT count(*) FROM answers WHERE asked_id = ?", (asked_id,)) == counted_at_close
    assert results.count("recorded") == counted_at_close


async def test_a_close_waits_for_the_answers_being_written(workers, monkeypatch) -> None:
    """A batch reading under its locks (as it does once a read ahead of them met a change) has read its
    question open and not written yet; a reveal closing the question on another worker waits for that
    batch's COMMIT (the question's row is share-locked), so the count it reads after the close holds the
    answer; a batch after the close is refused. (A batch that reads ahead takes the share lock in the
    message that holds its writes and COMMIT: test_answer_batch's close between its read and its locks.)"""
    _, _, asked_id = await daily_question(workers[0])
    first, second = await people(workers[0], 2)
    state_read, go_on = asyncio.Event(), asyncio.Event()
    insert, record = answer_batch._insert_new, AnswerWriter._record

    async def under_the_locks(self, connection, batch, ahead=False):
        return await record(self, connection, batch, False)

    monkeypatch.setattr(AnswerWriter, "_record", under_the_locks)

    async def paused(connection, accepted):
        state_read.set()
        await go_on.wait()
        return await insert(connection, accepted)

    monkeypatch.setattr(answer_batch, "_insert_new", paused)
    click = asyncio.create_task(outcome(AnswerWriter(workers[1]), answer(asked_id, first)))
    await asyncio.wait_for(state_read.wait(), 10)

    async def close(connection: Transaction) -> bool:
        return await close_asked(connection, asked_id, 20.0)

    closing = asyncio.create_task(workers[0].in_one_call(close))
    await asyncio.sleep(0.3)
    closed_meanwhile = closing.done()
    go_on.set()  # whatever happened, the batch goes on: its connection must go back to its pool
    assert await click == "recorded"
    assert await closing
    assert not closed_meanwhile, "the close did not wait for the batch that read the question open"
    assert await count(workers[0], "SELECT count(*) FROM answers WHERE asked_id = ?", (asked_id,)) == 1
    monkeypatch.setattr(answer_batch, "_insert_new", insert)
    monkeypatch.setattr(AnswerWriter, "_record", record)
    assert await outcome(AnswerWriter(workers[2]), answer(asked_id, second)) == "closed"


async def test_an_answer_another_path_wrote_first_wins_the_key(workers) -> None:
    """The unique (question, person) key behind the people's locks: a batch whose insert meets a row another
    transaction (one that took no lock) is writing waits for it; once that commits, the batch fails on the
    key and runs again, reads the answer there and is told a repeat: the first answer stands."""
    _, _, asked_id = await daily_question(workers[0])
    [user] = await people(workers[0], 1)
    async with workers[0].transaction() as other:
        await other.execute("INSERT INTO answers (asked_id, user_id, option_index, correct, answered_at) "
                            "VALUES (?, ?, 2, 0, 9.0)", (asked_id, user))
        click = asyncio.create_task(outcome(AnswerWriter(workers[1]), answer(asked_id, user)))
        await asyncio.sleep(0.3)
        assert not click.done(), "the batch waits on the key being written"
    assert await click == "repeat"
    row = await workers[0].fetch_one("SELECT option_index FROM answers WHERE asked_id = ? AND user_id = ?",
                                     (asked_id, user))
    assert row[0] == 2, "the first answer stands"
    assert await count(workers[0], "SELECT count(*) FROM review_cards") == 0, "the refused answer moved no card"


async def test_a_reveal_claimed_by_every_worker_at_once_is_claimed_once(workers) -> None:
    _, post_id, _ = await daily_question(workers[0])
    claims = await asyncio.gather(*(start_reveal(db, post_id, 30.0) for db in workers for _ in range(3)))
    assert claims.count(True) == 1


async def test_a_quiz_round_ended_by_every_worker_at_once_ends_once(workers) -> None:
    """A state change raced: six workers end one round at the same moment; one of them ends it, and its
    answers join the chat's board totals once (a daily fold racing it does not overwrite them)."""
    chat = await ensure_chat(workers[0], ChatRef("t", "quiz", "group", "Quiz"), 1.0)
    users = await people(workers[0], 4)
    round_ = await quiz.start_round(workers[0], chat.id, users[0], None, None, ["q1", "q2"], 20, 1.0)
    for number, question in enumerate(("q1", "q2")):
        current = await quiz.get_round(workers[0], round_.id)
        asked_id = await quiz.ask_next(workers[0], current, question, (0, 1, 2, 3), 2.0 + number)
        for user in users:
            await AnswerWriter(workers[0]).record(answer(asked_id, user), question)
    _, post_id, asked_id = await daily_question(workers[0], "quiz")
    await AnswerWriter(workers[0]).record(answer(asked_id, users[0]), ITEM.question_id)
    current = await quiz.get_round(workers[0], round_.id)
    ended = await asyncio.gather(*(quiz.end_round(db, current, "done", 50.0) for db in workers),
                                 mark_post(workers[0], post_id, "revealed", 50.0))
    assert ended[:WORKERS].count(True) == 1
    totals = {row[0]: (row[1], row[2]) for row in await workers[0].fetch_all(
        "SELECT user_id, answered, points FROM board_totals WHERE chat_id = ?", (chat.id,))}
    assert totals == {users[0]: (3, 30), **{user: (2, 20) for user in users[1:]}}


async def test_posts_of_one_chat_revealed_by_several_workers_at_once_fold_each_answer_once(workers) -> None:
    """Each reveal folds the chat's posts into its members' totals (a read-modify-write of the chat's
    rows); six reveals at once, one per worker, still count every answer exactly once."""
    users = await people(workers[0], 5)
    posts = []
    for day in range(WORKERS):
        _, post_id, asked_id = await daily_question(workers[0], day=f"2026-12-{day + 1:02d}")
        await AnswerWriter(workers[0]).record(answer(asked_id, users[0]), ITEM.question_id)
        for user in users[1:]:
            await AnswerWriter(workers[0]).record(answer(asked_id, user, right=False), ITEM.question_id)
        posts.append(post_id)
    await asyncio.gather(*(mark_post(db, post_id, "revealed", 40.0) for db, post_id in zip(workers, posts)))
    rows = await workers[0].fetch_all("SELECT user_id, answered, correct, points, streak FROM board_totals")
    totals = {row[0]: tuple(row[1:]) for row in rows}
    assert totals[users[0]] == (WORKERS, WORKERS, 10 * WORKERS, WORKERS)
    assert all(totals[user] == (WORKERS, 0, 0, 0) for user in users[1:])
    assert await count(workers[0], "SELECT post_id FROM board_folds") == max(posts)


async def test_one_person_starting_interviews_on_every_worker_at_once_has_one_live_interview(workers) -> None:
    chat = await ensure_chat(workers[0], ChatRef("t", "dm", "private", "DM"), 1.0)
    [user] = await people(workers[0], 1)
    started = await asyncio.gather(*(create_interview(db, user, chat.id, InterviewFilters(count=3), ["a", "b", "c"],
                                                      "en", 5.0 + number)
                                     for number, db in enumerate(workers)))
    assert len(set(started)) == WORKERS, "every start went through (each stopping the one before)"
    assert await count(workers[0], "SELECT count(*) FROM interviews WHERE user_id = ? AND status = 'active'",
                       (user,)) == 1


async def test_a_deadlock_is_run_again_until_it_goes_through(workers) -> None:
    """Two bodies updating two rows in opposite orders, each waiting for the other's first update: the
    server gives one up (deadlock), and `in_one_call` runs it again; both end up written."""
    a = await ensure_chat(workers[0], ChatRef("t", "a"), 1.0)
    b = await ensure_chat(workers[0], ChatRef("t", "b"), 1.0)
    both_started = asyncio.Barrier(2)
    runs = {"forward": 0, "backward": 0}

    def body(name: str, first: int, second: int):
        async def run(connection: Transaction) -> None:
            runs[name] += 1
            await connection.execute("UPDATE chats SET title = title || ? WHERE id = ?", (name[0], first))
            if runs[name] == 1:
                await both_started.wait()
            await connection.execute("UPDATE chats SET title = title || ? WHERE id = ?", (name[0], second))
        return run

    await asyncio.wait_for(asyncio.gather(workers[0].in_one_call(body("forward", a.id, b.id)),
                                          workers[1].in_one_call(body("backward", b.id, a.id))), 30)
    assert sorted(runs.values()) == [1, 2], "one of them was given up and run again"
    titles = [row[0] for row in await workers[0].fetch_all("SELECT title FROM chats WHERE id IN (?, ?)", (a.id, b.id))]
    assert all(sorted(title) == ["b", "f"] for title in titles), titles
