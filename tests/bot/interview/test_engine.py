"""The interview state machine: start, answer, refusals, timeouts, stop, report, restart."""

from __future__ import annotations

import random

import pytest

from bot.domain import LETTERS, ChatRef, InterviewFilters, UserRef
from bot.core import Core
from bot.interview.engine import AnswerRefused, AnswerResult, Delivery, InterviewEngine, InterviewError
from bot.store import Database
from bot.tokens import answer_token

ALICE = UserRef("test", "alice", "Alice", "en")
BOB = UserRef("test", "bob", "Bob", "tr")
DM = ChatRef("test", "dm-alice")


async def answer(core: Core, user: UserRef, token: str, chat: ChatRef = DM) -> AnswerResult:
    """A click through the one door, Core.click; a refusal raises with its reason as the engine's would."""
    reply = await core.click(user, chat, token)
    if reply.refused is not None:
        raise AnswerRefused(reply.refused)
    assert reply.result is not None
    return reply.result


def right_letter(delivery: Delivery) -> str:
    return delivery.asked.shown_letter_of(delivery.question.correct_index)


def wrong_letter(delivery: Delivery) -> str:
    return next(LETTERS[p] for p, i in enumerate(delivery.asked.option_order) if i != delivery.question.correct_index)


async def test_whole_interview_scores_and_reports(core: Core, engine: InterviewEngine, clock) -> None:
    delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=4))
    asked_ids, seen = [], []
    for number in range(1, 5):
        assert delivery.number == number and delivery.total == 4
        seen.append(delivery.question.id)
        asked_ids.append(delivery.asked.id)
        clock.advance(2.5)
        letter = right_letter(delivery) if number % 2 else wrong_letter(delivery)
        result = await answer(core, ALICE, answer_token(delivery.asked.id, letter))
        assert result.correct == bool(number % 2)
        if number < 4:
            assert result.next is not None and result.report is None
            delivery = result.next
    assert result.next is None and result.report is not None
    report = result.report
    assert len(set(seen)) == 4, "no repeats inside an interview"
    assert (report.score, report.total, report.status) == (2, 4, "finished")
    assert report.total_time_ms == 4 * 2500 and report.mean_time_ms == 2500
    assert sum(b.total for b in report.by_topic.values()) == 4
    assert sum(b.total for b in report.by_difficulty.values()) == 4
    assert len(report.missed) == 2 and report.weakest_topic in report.by_topic
    assert [r.chosen_letter is not None for r in report.results] == [True] * 4


async def test_option_order_is_shuffled_and_stored(core: Core, engine: InterviewEngine, db: Database) -> None:
    orders = set()
    for _ in range(6):
        delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(topics=("sync-basics",), count=3))
        while delivery is not None:
            orders.add((delivery.question.id, delivery.asked.option_order))
            row = await db.fetch_one("SELECT option_order FROM asked_questions WHERE id = ?", (delivery.asked.id,))
            assert row["option_order"] == "".join(map(str, delivery.asked.option_order))
            delivery = (await answer(core, ALICE, answer_token(delivery.asked.id, "a"))).next
    keyed = {letter for (qid, order) in orders for letter in LETTERS[:4]
             if order[LETTERS.index(letter)] == 0 and qid == "fx-001"}
    assert len(keyed) > 1, "the right letter must not always be the same"


@pytest.mark.parametrize("case", ["stranger", "second", "stale", "forged", "bad_letter", "injected"])
async def test_refused_clicks_record_nothing(core: Core, engine: InterviewEngine, db: Database, case: str) -> None:
    delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=3))
    token = answer_token(delivery.asked.id, "a")
    expected = {"stranger": "not_yours", "second": "already_answered", "stale": "closed", "forged": "unknown",
                "bad_letter": "unknown", "injected": "unknown"}[case]
    if case == "stranger":
        user = BOB
    else:
        user = ALICE
    if case == "second":
        await answer(core, ALICE, token)
    if case == "stale":
        await engine.stop(await core.caller(ALICE))
    if case == "forged":
        token = "a:999999:b"
    if case == "bad_letter":
        token = answer_token(delivery.asked.id, "f")
    if case == "injected":
        token = f"a:{delivery.asked.id}:b;drop table answers"
    before = (await db.fetch_one("SELECT count(*) FROM answers"))[0]
    with pytest.raises(AnswerRefused) as refused:
        await answer(core, user, token)
    assert refused.value.reason == expected
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == before


async def test_timeout_counts_as_unanswered_and_moves_on(core: Core, engine: InterviewEngine, clock) -> None:
    delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=2, time_limit_s=30))
    assert delivery.asked.deadline == delivery.asked.asked_at + 30
    clock.advance(31)
    with pytest.raises(AnswerRefused) as refused:
        await answer(core, ALICE, answer_token(delivery.asked.id, right_letter(delivery)))
    assert refused.value.reason == "expired"
    [expired] = await engine.expire_overdue({"test"})
    assert expired.chosen_index is None and not expired.correct and expired.next is not None
    assert await engine.expire_overdue({"test"}) == []
    clock.advance(5)
    result = await answer(core, ALICE, answer_token(expired.next.asked.id, right_letter(expired.next)))
    assert result.report is not None and result.report.score == 1
    assert result.report.results[0].chosen_index is None


async def test_restart_mid_interview_carries_on(db_path, bank, clock) -> None:
    first = await Database.open(db_path)
    core = Core(first, bank, clock, random.Random(1), scheduled=False)
    engine = core.engine
    delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=3))
    second_question = (await answer(core, ALICE, answer_token(delivery.asked.id, right_letter(delivery)))).next
    await first.close()

    reopened = await Database.open(db_path)
    try:
        core = Core(reopened, bank, clock, random.Random(2), scheduled=False)
        engine = core.engine
        current = await engine.current(await core.caller(ALICE))
        assert current is not None and current.asked == second_question.asked
        result = await answer(core, ALICE, answer_token(second_question.asked.id, right_letter(second_question)))
        result = await answer(core, ALICE, answer_token(result.next.asked.id, right_letter(result.next)))
        assert result.report is not None and result.report.score == 3
    finally:
        await reopened.close()


async def test_stop_reports_and_closes(core: Core, engine: InterviewEngine) -> None:
    delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=3))
    await answer(core, ALICE, answer_token(delivery.asked.id, right_letter(delivery)))
    report = await engine.stop(await core.caller(ALICE))
    assert report is not None and report.status == "stopped" and report.score == 1
    assert await engine.current(await core.caller(ALICE)) is None
    assert await engine.stop(await core.caller(ALICE)) is None


async def test_starting_again_stops_the_old_interview(core: Core, engine: InterviewEngine) -> None:
    old = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=3))
    new = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=2))
    assert new.interview_id != old.interview_id
    with pytest.raises(AnswerRefused) as refused:
        await answer(core, ALICE, answer_token(old.asked.id, "a"))
    assert refused.value.reason == "closed"


async def test_recently_seen_questions_come_last(core: Core, engine: InterviewEngine) -> None:
    first = await engine.start(await core.caller(ALICE, DM), InterviewFilters(topics=("sync-basics",), count=2))
    seen = {first.question.id}
    result = await answer(core, ALICE, answer_token(first.asked.id, "a"))
    seen.add(result.next.question.id)
    await answer(core, ALICE, answer_token(result.next.asked.id, "a"))
    again = await engine.start(await core.caller(ALICE, DM), InterviewFilters(topics=("sync-basics",), count=1))
    assert again.question.id not in seen, "the one unseen question of the topic comes first"


async def test_filters_and_unknown_topics(core: Core, engine: InterviewEngine) -> None:
    with pytest.raises(InterviewError) as error:
        await engine.start(await core.caller(ALICE, DM), InterviewFilters(topics=("no-such-topic",)))
    assert error.value.key == "interview.unknown_topic"
    with pytest.raises(InterviewError) as error:
        await engine.start(await core.caller(ALICE, DM), InterviewFilters(topics=("leakage-basics",), difficulty=3))
    assert error.value.key == "interview.none_found"
    delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(difficulty=1, count=10))
    assert delivery.total == 2 and delivery.question.difficulty == 1


async def test_language_follows_locale(core: Core, engine: InterviewEngine) -> None:
    delivery = await engine.start(await core.caller(BOB, ChatRef("test", "dm-bob")), InterviewFilters(count=1))
    assert delivery.language == "tr"


@pytest.mark.parametrize("filters, key", [
    (InterviewFilters(count=0), "interview.bad_count"), (InterviewFilters(count=31), "interview.bad_count"),
    (InterviewFilters(time_limit_s=5), "interview.bad_time_limit"),
    (InterviewFilters(time_limit_s=601), "interview.bad_time_limit"),
])
async def test_every_platform_gets_the_same_interview_limits(core: Core, filters: InterviewFilters, key: str) -> None:
    with pytest.raises(InterviewError) as refused:
        await core.start_interview(ALICE, DM, filters)
    assert refused.value.key == key
    text = core.error_text("en", refused.value)
    assert "30" in text or "600" in text


async def test_a_click_in_another_chat_is_refused_and_records_nothing(core: Core, engine: InterviewEngine,
                                                                      db: Database) -> None:
    delivery = await engine.start(await core.caller(ALICE, DM), InterviewFilters(count=2))
    with pytest.raises(AnswerRefused) as refused:
        await answer(core, ALICE, answer_token(delivery.asked.id, right_letter(delivery)),
                     chat=ChatRef("test", "some-group", "group"))
    assert refused.value.reason == "wrong_chat"
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 0


async def test_a_topic_may_be_named_by_its_id_or_title_in_any_case(core: Core) -> None:
    title = core.bank.topics["sync-basics"].label("en")
    for typed in ("SYNC-BASICS", title.upper(), f"  {title.lower()} "):
        outgoing = await core.start_interview(ALICE, DM, InterviewFilters(topics=(typed,), count=1))
        assert outgoing.asked_id is not None
    with pytest.raises(InterviewError):
        await core.start_interview(ALICE, DM, InterviewFilters(topics=("no such topic",)))
