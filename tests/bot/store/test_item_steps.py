"""Item difficulties on PostgreSQL: daily answers log their items' steps and a fold applies them later, so
that workers answering one question never wait on its row, and the item ends where stepping it in place
(SQLite, one writer) puts it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg

from bot.domain import RecordedAnswer
from bot.learner.ability import Estimate, update_item
from bot.learner.items import Item, starting_difficulty
from bot.store import Database
from bot.store import learner as beliefs
from bot.store.answer_batch import AnswerWriter
from bot.store.item_steps import fold_pending
from bot.store.learner import ItemStep, log_steps
from tests.bot.store.test_answer_batch import setup

ITEM = Item("fx-001", "topic", "specialty", 2)


def answer(asked_id: int, user: int, at: float = 3.0) -> RecordedAnswer:
    right = user % 3 != 0
    return RecordedAnswer(asked_id, user, 0 if right else 1, right, 10, at, 1 if right else 0)


async def steps_logged(db: Database) -> int:
    return int((await db.fetch_one("SELECT count(*) FROM item_steps"))[0])


async def test_answers_are_recorded_while_another_transaction_holds_the_items_row(postgres_store_url) -> None:
    """The row an interview's answer (or a fold) locks is not waited on by daily answers: their callers hear
    at once, and the fold that follows moves the item by every one of them once the row is free."""
    db = await Database.open(postgres_store_url)
    holder = await asyncpg.connect(postgres_store_url)
    try:
        asked_id, users = await setup(db, 8)
        writer = AnswerWriter(db)
        await writer.record(answer(asked_id, users[0]), ITEM.question_id, ITEM)
        await writer.settled()
        holding = holder.transaction()
        await holding.start()
        await holder.fetch("SELECT * FROM item_difficulties WHERE question_id = $1 FOR UPDATE", ITEM.question_id)
        counts = await asyncio.wait_for(asyncio.gather(
            *(writer.record(answer(asked_id, user), ITEM.question_id, ITEM) for user in users[1:])), 10)
        assert max(counts) == len(users)
        assert await steps_logged(db) == len(users) - 1, "logged with the answers, waiting for the row"
        await holding.rollback()
        await writer.settled()
        assert (await beliefs.item_difficulties(db))[ITEM.question_id].answers == len(users)
        assert await steps_logged(db) == 0
    finally:
        await holder.close()
        await db.close()


async def test_a_folded_item_ends_where_stepping_it_in_place_puts_it(tmp_path: Path, postgres_store_url) -> None:
    """The same burst recorded by one writer on each store: SQLite steps the item inside the batch and logs
    nothing; PostgreSQL logs and folds. The item, and every person's belief, come out the same, bit for bit."""
    results = []
    for target in (tmp_path / "inline.db", postgres_store_url):
        db = await Database.open(target)
        try:
            asked_id, users = await setup(db, 12)
            writer = AnswerWriter(db)
            await asyncio.gather(*(writer.record(answer(asked_id, user), ITEM.question_id, ITEM) for user in users))
            await writer.settled()
            assert await steps_logged(db) == 0
            abilities = sorted(tuple(row) for row in await db.fetch_all(
                "SELECT user_id, scope, name, ability, variance, answers FROM abilities"))
            results.append(((await beliefs.item_difficulties(db))[ITEM.question_id], abilities))
        finally:
            await db.close()
    inline, folded = results
    assert folded == inline
    assert inline[0].answers == 12


async def test_steps_a_killed_worker_left_are_folded_in_the_order_logged(postgres_store_url) -> None:
    """A worker killed between its batch's COMMIT and the fold leaves its steps logged; the next start folds
    them (`fold_pending`) from the item's starting difficulty, oldest first."""
    db = await Database.open(postgres_store_url)
    try:
        people = [Estimate(-0.5, 1.5), Estimate(1.2, 0.4), Estimate(0.3, 2.0)]
        steps = [ItemStep(ITEM.question_id, ITEM.label, person.value, person.variance, index != 1, 5.0 + index)
                 for index, person in enumerate(people)]

        async def logged(connection) -> None:
            await log_steps(connection, steps)

        await db.in_one_call(logged)
        assert await fold_pending(db) == len(steps)
        expected = starting_difficulty(ITEM.label)
        for step, person in zip(steps, people):
            expected = update_item(expected, person, step.right)
        assert (await beliefs.item_difficulties(db))[ITEM.question_id] == expected
        assert await steps_logged(db) == 0 and await fold_pending(db) == 0
    finally:
        await db.close()
