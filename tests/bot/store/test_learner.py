"""The learner model in the store: moved in the answer's transaction, by interviews and daily answers (reviews:
tests/bot/interview/test_adaptive.py)."""

from __future__ import annotations

import pytest

from bot.domain import ChatRef, RecordedAnswer, UserRef
from bot.learner.items import Item, label_logit
from bot.store import Database
from bot.store.answer_batch import AnswerWriter
from bot.store import learner as beliefs
from bot.store.interviews import ask
from bot.store.people import ensure_chat, ensure_user

ITEM = Item("q1", "topic-a", "spec-x", 3)


async def _user(db: Database, name: str) -> int:
    return (await ensure_user(db, UserRef("test", name, name), 0.0)).id


async def test_record_answers_moves_topic_specialty_and_item(db: Database) -> None:
    user = await _user(db, "ann")
    async with db.transaction() as connection:
        moved = await beliefs.record_answers(connection, [beliefs.LearnerAnswer(user, ITEM, True, 100.0)])
    assert set(moved) == {(user, "topic", "topic-a"), (user, "specialty", "spec-x")}
    topics = await beliefs.abilities(db, user, 100.0)
    assert topics["topic-a"].value > 0 and topics["topic-a"].answers == 1
    specialties = await beliefs.abilities(db, user, 100.0, beliefs.SPECIALTY)
    assert specialties["spec-x"].value == pytest.approx(topics["topic-a"].value)
    items = await beliefs.item_difficulties(db)
    assert items["q1"].value < label_logit(3) and items["q1"].answers == 1


async def test_a_failed_transaction_moves_nothing(db: Database) -> None:
    user = await _user(db, "ann")
    with pytest.raises(RuntimeError):
        async with db.transaction() as connection:
            await beliefs.record_answers(connection, [beliefs.LearnerAnswer(user, ITEM, True, 1.0)])
            raise RuntimeError("the answer's insert failed")
    assert await beliefs.abilities(db, user, 1.0) == {}


async def test_daily_answers_in_a_batch_move_abilities(db: Database) -> None:
    users = [await _user(db, f"u{i}") for i in range(3)]
    group = await ensure_chat(db, ChatRef("test", "g", "group"), 0.0)
    asked = await ask(db, "q1", group.id, None, 0, (0, 1, 2, 3), 0.0, None)
    writer = AnswerWriter(db)
    for user, right in zip(users, (True, True, False)):
        await writer.record(RecordedAnswer(asked.id, user, 0 if right else 1, right, 10, 5.0), "q1", ITEM)
    values = [(await beliefs.abilities(db, user, 5.0))["topic-a"].value for user in users]
    assert values[0] > 0 and values[1] > 0 and values[2] < 0
    await writer.settled()  # on PostgreSQL the item's steps are folded after the batches (bot/store/item_steps.py)
    assert (await beliefs.item_difficulties(db))["q1"].answers == 3
    rows = await beliefs.answer_rows(db)
    assert [(row.user_id, row.right) for row in rows] == list(zip(users, (True, True, False)))


async def test_each_topic_keeps_its_belief_at_each_weeks_end(db: Database) -> None:
    user = await _user(db, "ann")
    monday = 1_780_272_000.0  # 2026-06-01, a Monday 00:00 UTC
    for at, right in ((monday + 3600, True), (monday + 7200, True), (monday + 8 * 86_400, False)):
        async with db.transaction() as connection:
            await beliefs.record_answers(connection, [beliefs.LearnerAnswer(user, ITEM, right, at)])
    weeks = (await beliefs.weekly_abilities(db, user, monday))["topic-a"]
    assert [week for week, _ in weeks] == [monday, monday + 7 * 86_400]
    now = (await beliefs.abilities(db, user, monday + 8 * 86_400))["topic-a"]
    assert weeks[1][1].value == pytest.approx(now.value) and weeks[0][1].value > now.value
    assert await beliefs.weekly_abilities(db, user, monday + 7 * 86_400) == {"topic-a": weeks[1:]}


async def test_item_difficulties_reads_only_the_questions_asked_for(db: Database) -> None:
    user = await _user(db, "ann")
    others = [Item(f"q{n}", "topic-a", "spec-x", 2) for n in range(2, 5)]
    async with db.transaction() as connection:
        await beliefs.record_answers(connection, [beliefs.LearnerAnswer(user, item, True, 1.0)
                                                  for item in (ITEM, *others)])
    assert set(await beliefs.item_difficulties(db)) == {"q1", "q2", "q3", "q4"}
    assert set(await beliefs.item_difficulties(db, ["q2", "q4", "q9"])) == {"q2", "q4"}
    assert await beliefs.item_difficulties(db, []) == {}
