"""Adaptive interviews through the one door: harder after right answers, easier after wrong ones,
balanced across the chosen topics, early stop once sure, and a verdict in the report."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot.bank import load_bank
from bot.bank.loader import Bank
from bot.core import Core
from bot.domain import LETTERS, ChatRef, InterviewFilters, UserRef
from bot.asking.delivery import Delivery
from bot.interview.selection import is_adaptive, next_adaptive, sure_enough
from bot.interview.view import report_message
from bot.learner.ability import Estimate
from bot.store import Database
from bot.store import learner as beliefs
from bot.store.review import get_card
from bot.tokens import answer_token

ANN = UserRef("test", "ann", "Ann", "en")
TOPICS = ("distributed-strategies-sync", "ml-scaling-performance")


@pytest.fixture(scope="module")
def shipped() -> Bank:
    return load_bank(None)


def _letter(delivery: Delivery, right: bool) -> str:
    key = delivery.question.correct_index
    return next(LETTERS[p] for p, i in enumerate(delivery.asked.option_order) if (i == key) == right)


async def _run(core: Core, filters: InterviewFilters, answers, user: UserRef = ANN) -> tuple[list[Delivery], object]:
    """Answer an interview through Core.click; `answers(n)` says whether the n-th answer is right."""
    chat = ChatRef("test", f"dm-{user.platform_id}")
    outgoing = await core.start_interview(user, chat, filters)
    delivery = (await core.engine.current(await core.caller(user, chat)))
    seen, n = [], 0
    while delivery is not None:
        seen.append(delivery)
        reply = await core.click(user, chat, answer_token(delivery.asked.id, _letter(delivery, answers(n))))
        assert reply.refused is None and reply.result is not None
        delivery, report, n = reply.result.next, reply.result.report, n + 1
    assert outgoing.asked_id == seen[0].asked.id
    return seen, report


async def _core(db: Database, bank: Bank, clock, seed: int = 1) -> Core:
    return Core(db, bank, clock, random.Random(seed), scheduled=False)


async def test_right_answers_lead_to_harder_questions(db, shipped, clock) -> None:
    core = await _core(db, shipped, clock)
    asked, report = await _run(core, InterviewFilters(topics=TOPICS[:1], count=8), lambda n: True)
    labels = [d.question.difficulty for d in asked]
    assert labels[0] == 2, "a newcomer starts in the middle"
    assert labels == sorted(labels) and all(label == 3 for label in labels[4:]), labels
    level = report.levels[TOPICS[0]]
    assert level.band == "senior" and level.ability > 0.75 and 0 < level.se < 1


async def test_wrong_answers_lead_to_easier_questions(db, shipped, clock) -> None:
    core = await _core(db, shipped, clock)
    asked, report = await _run(core, InterviewFilters(topics=TOPICS[:1], count=8), lambda n: False)
    labels = [d.question.difficulty for d in asked]
    assert labels == sorted(labels, reverse=True) and all(label == 1 for label in labels[4:]), labels
    assert report.levels[TOPICS[0]].band == "junior"
    assert report.level is not None and report.level.band == "junior"


async def test_topics_are_balanced_and_nothing_repeats(db, shipped, clock) -> None:
    core = await _core(db, shipped, clock)
    asked, report = await _run(core, InterviewFilters(topics=TOPICS, count=6), lambda n: n % 2 == 0)
    topics = [d.question.topic for d in asked]
    assert sorted(topics.count(t) for t in TOPICS) == [3, 3]
    assert len({d.question.id for d in asked}) == 6
    assert set(report.levels) == set(TOPICS)


async def test_two_people_of_one_ability_get_different_sequences(db, shipped, clock) -> None:
    core = await _core(db, shipped, clock, seed=5)
    first, _ = await _run(core, InterviewFilters(topics=TOPICS[:1], count=5), lambda n: True)
    second, _ = await _run(core, InterviewFilters(topics=TOPICS[:1], count=5), lambda n: True,
                           UserRef("test", "bob", "Bob", "en"))
    assert [d.question.id for d in first] != [d.question.id for d in second]


async def test_stop_when_sure_ends_once_every_band_is_90_percent_sure(db, shipped, clock) -> None:
    """A clear senior (every answer right) is placed in far fewer than 30 questions; the report says why."""
    core = await _core(db, shipped, clock)
    asked, report = await _run(core, InterviewFilters(topics=TOPICS, count=30, stop_when_sure=True), lambda n: True)
    assert 5 <= len(asked) <= 12, len(asked)
    assert report.status == "finished" and report.total == len(asked) and report.ended_sure
    assert set(report.levels) == set(TOPICS)
    assert all(level.band == "senior" and level.confidence >= 0.9 for level in report.levels.values())
    text = "\n".join(block.text for block in report_message(shipped, report, "en").blocks if hasattr(block, "text"))
    assert f"Ended early, after {len(asked)} answers" in text


async def test_stop_when_sure_never_before_five_answers(shipped) -> None:
    """Even a belief already sure of its band does not end an interview before its fifth answer."""
    topic = TOPICS[0]
    ids = [q.id for q in shipped.select((topic,))][:5]
    sure = {topic: Estimate(2.5, 0.2)}
    filters = InterviewFilters(topics=(topic,), count=30, stop_when_sure=True)
    assert [sure_enough(filters, ids[:n], shipped, sure) for n in range(1, 6)] == [False] * 4 + [True]
    assert not sure_enough(replace(filters, stop_when_sure=False), ids, shipped, sure)
    assert not sure_enough(filters, ids, shipped, {topic: Estimate(0.8, 0.2)}), "near a cut-off: not sure"


async def test_someone_already_placed_still_answers_five(db, shipped, clock) -> None:
    """The minimum through the core: a person whose band is already sure from an earlier interview is sure
    after every answer of the next one, and it still asks five before it ends."""
    core = await _core(db, shipped, clock)
    await _run(core, InterviewFilters(topics=TOPICS[:1], count=12), lambda n: True)
    asked, report = await _run(core, InterviewFilters(topics=TOPICS[:1], count=30, stop_when_sure=True),
                               lambda n: True)
    assert len(asked) == 5 and report.ended_sure and report.levels[TOPICS[0]].confidence >= 0.9


async def test_a_pinned_level_asked_to_stop_when_sure_ends_early_too(db, shipped, clock) -> None:
    """With the difficulty pinned the plan is fixed, but the stop is the same: a candidate missing every easy
    question is a clear junior well before 30 questions, and the report says so."""
    core = await _core(db, shipped, clock)
    filters = InterviewFilters(topics=TOPICS[:1], difficulty=1, count=30, stop_when_sure=True)
    asked, report = await _run(core, filters, lambda n: False)
    assert {d.question.difficulty for d in asked} == {1} and 5 <= len(asked) < 30, len(asked)
    assert report.ended_sure and report.levels[TOPICS[0]].band == "junior"
    assert report.levels[TOPICS[0]].confidence >= 0.9


async def test_without_stop_when_sure_the_interview_runs_its_count(db, shipped, clock) -> None:
    core = await _core(db, shipped, clock)
    asked, report = await _run(core, InterviewFilters(topics=TOPICS[:1], count=9), lambda n: True)
    assert len(asked) == 9 and not report.ended_sure


async def test_a_review_moves_its_card_but_not_the_ability(db, shipped, clock) -> None:
    """Re-answering a missed question right after reading its explanation is no fresh measurement: the
    review schedule moves, the ability (topic and specialty, and the week's record) and the item do not."""
    core = await _core(db, shipped, clock)
    asked, _ = await _run(core, InterviewFilters(topics=TOPICS[:1], count=3), lambda n: False)
    chat = ChatRef("test", "dm-ann")
    caller = await core.caller(ANN, chat)
    user = caller.user.id
    missed = asked[0].question.id
    now = clock.now()
    before = (await beliefs.abilities(db, user, now), await beliefs.abilities(db, user, now, beliefs.SPECIALTY),
              await beliefs.weekly_abilities(db, user, 0.0), await beliefs.item_difficulties(db))
    card = await get_card(db, user, missed)
    assert card is not None
    clock.set(card.due_at + 60)
    delivery = await core.engine.start_review(caller, count=3)
    assert delivery is not None
    reviewed = []
    while delivery is not None:
        reviewed.append(delivery.question.id)
        reply = await core.click(ANN, chat, answer_token(delivery.asked.id, _letter(delivery, True)))
        assert reply.result is not None
        delivery = reply.result.next
    assert missed in reviewed
    now = clock.now()
    after = (await beliefs.abilities(db, user, now), await beliefs.abilities(db, user, now, beliefs.SPECIALTY),
             await beliefs.weekly_abilities(db, user, 0.0), await beliefs.item_difficulties(db))
    assert [{name: (e.value, e.answers) for name, e in scope.items()} for scope in (after[0], after[1])] == \
        [{name: (e.value, e.answers) for name, e in scope.items()} for scope in (before[0], before[1])]
    assert after[2] == before[2] and after[3] == before[3]
    moved = await get_card(db, user, missed)
    assert moved is not None and moved.due_at > now and moved.last_reviewed_at == pytest.approx(now, abs=1)


async def test_each_choice_reads_the_difficulties_of_one_topics_unasked_questions_only(db, shipped, clock,
                                                                                       monkeypatch) -> None:
    """Not the whole item_difficulties table inside every answer's transaction: the shortlist's rows."""
    reads: list[list[str] | None] = []
    real = beliefs.item_difficulties

    async def spy(connection, question_ids=None):
        reads.append(None if question_ids is None else list(question_ids))
        return await real(connection, question_ids)

    monkeypatch.setattr(beliefs, "item_difficulties", spy)
    core = await _core(db, shipped, clock)
    asked, _ = await _run(core, InterviewFilters(topics=TOPICS, count=4), lambda n: True)
    assert len(reads) == 4 and None not in reads
    for ids, delivery in zip(reads, asked):
        topic = delivery.question.topic
        assert delivery.question.id in ids and {shipped.questions[qid].topic for qid in ids} == {topic}
        assert not set(ids) & {d.question.id for d in asked[:asked.index(delivery)]}


async def test_a_pinned_difficulty_does_not_adapt(db, shipped, clock) -> None:
    core = await _core(db, shipped, clock)
    asked, _ = await _run(core, InterviewFilters(topics=TOPICS[:1], count=5, difficulty=1), lambda n: True)
    assert {d.question.difficulty for d in asked} == {1}
    assert not is_adaptive(InterviewFilters(difficulty=2))
    assert not is_adaptive(InterviewFilters(repeatable=True))
    assert is_adaptive(InterviewFilters(repeatable=True, adaptive=True)) and is_adaptive(InterviewFilters())


def test_the_next_question_is_the_most_informative_at_the_ability(shipped) -> None:
    """An ability of +1.5 in the topic: the hard questions (label 3 at +1.5) are the informative ones."""
    rng = random.Random(0)
    picks = {next_adaptive(shipped, InterviewFilters(topics=TOPICS[:1]), (), {TOPICS[0]: Estimate(1.5, 0.3)}, {},
                           {}, rng).difficulty for _ in range(20)}
    assert picks == {3}
    picks = {next_adaptive(shipped, InterviewFilters(topics=TOPICS[:1]), (), {TOPICS[0]: Estimate(-1.4, 0.3)}, {},
                           {}, rng).difficulty for _ in range(20)}
    assert picks == {1}


def test_among_equally_informative_questions_new_tags_come_first(shipped) -> None:
    """Every medium question of a topic is equally informative for a newcomer: those sharing no tag with
    what was asked are preferred."""
    topic = TOPICS[0]
    medium = [q for q in shipped.select((topic,), 2)]
    first = medium[0]
    rng = random.Random(1)
    for _ in range(20):  # 8 of the 44 others share a tag with it: a blind draw would hit one
        chosen = next_adaptive(shipped, InterviewFilters(topics=(topic,)), (first.id,), {}, {}, {}, rng)
        assert chosen.difficulty == 2 and not set(chosen.tags) & set(first.tags)
