"""A mock interview as an explicit state machine whose every state lives in SQLite.

    start ──> ASKING(0) ──answer / time out──> ASKING(1) ──> ... ──> FINISHED ──> report
                 └──────────────── stop ───────────────────────────> STOPPED  ──> report

ASKING(n) is "asked question n is open". Recording an answer (or a timeout), closing question n
and opening n+1 (or finishing) is one transaction, so a new engine over the same file carries on
exactly where the old one stopped. Every refusal is an `AnswerRefused` carrying its reason.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from bot.bank.loader import Bank
from bot.schedule.clock import Clock
from bot.caller import Caller
from bot.domain import AskedQuestion, InterviewFilters, Question, RecordedAnswer, Report
from bot.limits import INTERVIEW_COUNT_MAX, INTERVIEW_COUNT_MIN, TIME_LIMIT_MAX_S, TIME_LIMIT_MIN_S
from bot.errors import AnswerRefused, UserError
from bot.interview.holders import held_elsewhere
from bot.interview.report import build_report, with_levels
from bot.asking.delivery import Delivery, shuffled_options
from bot.decks.library import any_removed, askable_ids, plan_as_decks_stand
from bot.decks.names import deck_of_question
from bot.interview.selection import (PENDING, ended_sure, is_adaptive, most_informative,
                                     plan_interview, shortlist, sure_enough)
from bot.learner.ability import Estimate
from bot.learner.items import Item
from bot.text.i18n import t
from bot.store import interviews as records
from bot.store import learner as beliefs
from bot.store.database import Database, Transaction
from bot.store.people import UserRecord
from bot.review.cards import DEFAULT_RETENTION
from bot.store.review import due_questions, record_review

log = logging.getLogger(__name__)
RECENT = timedelta(days=14)  # questions seen this recently are asked only when nothing fresher is left


def _known(abilities: dict[str, Estimate], moved: dict[beliefs.Key, Estimate]) -> dict[str, Estimate]:
    """Each topic's ability as this answer left it: the beliefs read before it, with the ones it moved."""
    return {**abilities, **{name: belief for (_, scope, name), belief in moved.items() if scope == beliefs.TOPIC}}


def _person(caller: Caller) -> UserRecord:
    assert caller.user is not None, "interviews belong to a person"
    return caller.user


class InterviewError(UserError):
    """An interview cannot start as asked (unknown topic, no matching questions)."""


class InterviewRunning(InterviewError):
    """The person's interview runs in another process (terminal): carry on there, or take it over."""

    def __init__(self) -> None:
        super().__init__("interview.running")


class InterviewMoved(InterviewError):
    """This process's interview was taken over by another one (`--takeover`)."""

    def __init__(self) -> None:
        super().__init__("interview.moved")


@dataclass(frozen=True)
class AnswerResult:
    """What an answer (or a timeout, chosen_index None) did, and what comes next."""

    delivery: Delivery
    chosen_index: int | None
    correct: bool
    next: Delivery | None
    report: Report | None
    deck_removed: bool = False  # it ended before its count because a group deck it asks from was removed


class InterviewEngine:
    """Starts, advances, times out and reports interviews; holds no state of its own but the bank."""

    def __init__(self, db: Database, bank: Bank, clock: Clock, rng: random.Random | None = None,
                 retention: float = DEFAULT_RETENTION) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.rng = rng or random.Random()
        self.retention = retention  # the review cards' desired retention (FSRS)

    def check(self, filters: InterviewFilters) -> InterviewFilters:
        """The same limits on every platform: known topics (by id or title, any case), 1-30 questions,
        10-600 s per question; the filters with each topic as its id."""
        named = [self.bank.topic_named(topic) or topic for topic in filters.topics]
        filters = replace(filters, topics=tuple(named))
        unknown = [topic for topic in filters.topics if topic not in self.bank.topics]
        if unknown:
            raise InterviewError("interview.unknown_topic", topic=", ".join(unknown),
                                 known=", ".join(sorted(self.bank.topics)))
        if not INTERVIEW_COUNT_MIN <= filters.count <= INTERVIEW_COUNT_MAX:
            raise InterviewError("interview.bad_count", count=filters.count, low=INTERVIEW_COUNT_MIN,
                                 high=INTERVIEW_COUNT_MAX)
        if filters.time_limit_s is not None and not TIME_LIMIT_MIN_S <= filters.time_limit_s <= TIME_LIMIT_MAX_S:
            raise InterviewError("interview.bad_time_limit", seconds=filters.time_limit_s, low=TIME_LIMIT_MIN_S,
                                 high=TIME_LIMIT_MAX_S)
        return filters

    async def start(self, caller: Caller, filters: InterviewFilters, holder: str | None = None) -> Delivery:
        """A new interview held by `holder` (stopping any the user had open, unless another live process
        holds it: InterviewRunning) and its first question."""
        filters = self.check(filters)
        person = _person(caller)
        seen = {} if filters.repeatable else await records.recently_seen(
            self.db, person.id, self.clock.now() - RECENT.total_seconds())
        if is_adaptive(filters):
            plan = await self._adaptive_plan(person.id, filters, seen)
        else:
            plan = plan_interview(self.bank, filters, seen, self.rng)
        if not plan:
            raise self._none_found(filters, caller.language)
        return await self._begin(caller, filters, plan, "interview", holder)

    def _none_found(self, filters: InterviewFilters, language: str) -> InterviewError:
        """No question matches: the choices named as menus name them (titles, levels), not ids or '*'."""
        topics = ", ".join(self.bank.topics[name].label(language) for name in filters.topics)
        if filters.difficulty:
            level = t(language, f"difficulty.{filters.difficulty}")
        else:
            level = filters.seniority or t(language, "daily.any_level")
        return InterviewError("interview.none_found", topics=topics or t(language, "interview.all_topics"), level=level)

    async def _adaptive_plan(self, user_id: int, filters: InterviewFilters, seen: dict[str, float]) -> list[str]:
        """The first question chosen at the person's current abilities; the other slots chosen as reached."""
        size = min(filters.count, len(self.bank.select(filters.topics, filters.difficulty, filters.seniority)))
        first = await self._next(self.db, filters, (), await beliefs.abilities(self.db, user_id, self.clock.now()),
                                 seen)
        return [first.id] + [PENDING] * (size - 1) if first else []

    async def _next(self, db: Database | Transaction, filters: InterviewFilters, asked: Sequence[str],
                    abilities: Mapping[str, Estimate], seen: Mapping[str, float]) -> Question | None:
        """The adaptive choice, reading the recalibrated difficulty of its shortlist only (one topic's
        unasked questions), not the whole item_difficulties table."""
        candidates = shortlist(self.bank, filters, asked, abilities, seen, self.rng)
        if not candidates:
            return None
        calibrated = await beliefs.item_difficulties(db, [question.id for question in candidates])
        return most_informative(candidates, self.bank, asked, abilities, calibrated, self.rng)

    async def start_review(self, caller: Caller, count: int = 10) -> Delivery | None:
        """An interview over the user's review cards that are due now, most overdue first; None if none is."""
        plan = await due_questions(self.db, _person(caller).id, self.clock.now(), count, known=askable_ids(self.bank))
        if not plan:
            return None
        return await self._begin(caller, InterviewFilters(count=len(plan), adaptive=False), plan, "review")

    async def _begin(self, caller: Caller, filters: InterviewFilters, plan: list[str], kind: str,
                     holder: str | None = None) -> Delivery:
        now = self.clock.now()
        person, place = _person(caller), caller.chat
        assert place is not None, "an interview is started in a chat"
        language = caller.language
        try:
            interview_id = await records.create_interview(
                self.db, person.id, place.id, filters, plan, language, now, kind, holder,
                refuse=lambda current: held_elsewhere(current, holder))
        except records.HeldElsewhere:
            raise InterviewRunning() from None
        first = self.bank.questions[plan[0]]
        asked = await records.ask(self.db, first.id, place.id, interview_id, 0, shuffled_options(first, self.rng),
                                  now, self._deadline(filters, now))
        log.info("%s %d started: user %d, %d questions", kind, interview_id, person.id, len(plan))
        return Delivery(asked, first, 1, len(plan), language, interview_id)

    async def current(self, caller: Caller, holder: str | None = None) -> Delivery | None:
        """The open question of the user's active interview (to show again after a restart), if any;
        InterviewMoved when another live process holds it."""
        interview = await records.active_interview(self.db, _person(caller).id)
        if interview is None:
            latest = await records.latest_interview(self.db, _person(caller).id) if holder is not None else None
            if latest is not None and latest.holder != holder:  # taken over, and ended there meanwhile
                raise InterviewMoved()
            return None
        if holder is not None and held_elsewhere(interview.holder, holder):
            raise InterviewMoved()
        return await self._open(interview)

    async def resume(self, caller: Caller, holder: str | None, takeover: bool = False) -> Delivery | None:
        """The user's active interview moved to `holder` and its open question; None if there is none.
        InterviewRunning when another live process holds it and this is no takeover; that process
        learns it moved at its next keypress (`current` raises InterviewMoved there)."""
        interview = await records.active_interview(self.db, _person(caller).id)
        if interview is None:
            return None
        if held_elsewhere(interview.holder, holder) and not takeover:
            raise InterviewRunning()
        if interview.holder != holder and not await records.hold(self.db, interview.id, holder, interview.holder):
            raise InterviewRunning()  # taken by a third process between the read and the move
        log.info("interview %d now held by %s (was %s)", interview.id, holder, interview.holder)
        return await self._open(interview)

    async def _open(self, interview: records.InterviewRecord) -> Delivery | None:
        asked = await records.open_asked(self.db, interview.id)
        if asked is None or asked.question_id not in self.bank.questions:
            return None
        return self._delivery(asked, interview)

    async def answer_asked(self, caller: Caller, asked: AskedQuestion, letter: str,
                           holder: str | None = None) -> AnswerResult:
        """Record a click on an interview question's button; AnswerRefused when it must not count.

        It counts only from the interview's owner, in the chat the question was asked in, from the
        process holding it (if one does)."""
        if asked.interview_id is None:
            raise AnswerRefused("unknown")
        interview = await records.get_interview(self.db, asked.interview_id)
        person = _person(caller)
        if asked.question_id not in self.bank.questions:
            await self._stop_if_deck_gone(interview, asked, person.id)
            raise AnswerRefused("unknown")
        if interview is None or interview.user_id != person.id:
            raise AnswerRefused("not_yours")
        if caller.chat is None or caller.chat.id != asked.chat_id:
            raise AnswerRefused("wrong_chat")
        if interview.holder is not None and interview.holder != holder and interview.status == "active":
            raise AnswerRefused("moved")
        option_index = asked.option_index_of(letter)
        if option_index is None:
            raise AnswerRefused("unknown")
        if asked.closed_at is not None or interview.status != "active":
            answered = await records.get_answer(self.db, asked.id, person.id)
            raise AnswerRefused("already_answered" if answered and answered.option_index is not None else "closed")
        now = self.clock.now()
        if asked.deadline is not None and now > asked.deadline:
            raise AnswerRefused("expired")
        question = self.bank.questions[asked.question_id]
        answer = RecordedAnswer(asked.id, person.id, option_index, option_index == question.correct_index,
                                round((now - asked.asked_at) * 1000), now)
        return await self._advance(interview, asked, answer)

    async def _stop_if_deck_gone(self, interview: records.InterviewRecord | None, asked: AskedQuestion,
                                 user_id: int) -> None:
        """The owner's click on their open question whose group deck is deleted for good (removed, and the
        question left unanswered past DECK_LIVE_AT_MOST_S, or the group's 30 days over): the interview stops,
        so it does not wait for an answer that cannot come, and the person is told (AnswerRefused)."""
        if (interview is None or interview.user_id != user_id or interview.status != "active"
                or asked.closed_at is not None or deck_of_question(asked.question_id) is None):
            return
        async with self.db.transaction() as connection:
            await records.finish_interview(connection, interview.id, "stopped", self.clock.now())
        log.info("interview %d stopped: the deck of its question %s is gone", interview.id, asked.question_id)
        raise AnswerRefused("deck_gone")

    async def expire_overdue(self, platforms: Collection[str]) -> list[AnswerResult]:
        """Close every open interview question past its deadline, counted as unanswered.

        Only in chats on `platforms`, whose adapters are running: a question nobody can be told about
        stays open until its adapter is back, instead of moving on unseen."""
        results = []
        for asked in await records.overdue_asked(self.db, self.clock.now(), platforms):
            interview = await records.get_interview(self.db, asked.interview_id or 0)
            if interview is None or asked.question_id not in self.bank.questions:
                continue
            timeout = RecordedAnswer(asked.id, interview.user_id, None, False, None, self.clock.now())
            try:
                results.append(await self._advance(interview, asked, timeout))
            except AnswerRefused:
                continue  # answered or closed in the meantime
        return results

    async def stop(self, caller: Caller, holder: str | None = None) -> Report | None:
        """End the user's active interview early; its report, or None if there was none (or another live
        process holds it: never stop, nor report, someone else's)."""
        interview = await records.active_interview(self.db, _person(caller).id)
        if interview is None or held_elsewhere(interview.holder, holder):
            return None
        async with self.db.transaction() as connection:
            await records.finish_interview(connection, interview.id, "stopped", self.clock.now())
        log.info("interview %d stopped by its user", interview.id)
        return await self.report(interview.id)

    async def abandon(self, interview_id: int) -> None:
        """Stop an interview nobody can be told about any more (its chat is gone)."""
        async with self.db.transaction() as connection:
            await records.finish_interview(connection, interview_id, "stopped", self.clock.now())

    async def latest_report(self, caller: Caller, holder: str | None = None) -> Report | None:
        """The report of the user's most recent interview (finished, stopped or still running); of the
        ones `holder` ran, when given."""
        interview = await records.latest_interview(self.db, _person(caller).id, holder)
        return await self.report(interview.id) if interview else None

    async def report(self, interview_id: int) -> Report:
        interview = await records.get_interview(self.db, interview_id)
        status = interview.status if interview else "finished"
        report = build_report(interview_id, status, self.bank, await records.interview_asked(self.db, interview_id))
        if interview is None or interview.kind != "interview":
            return report
        now = self.clock.now()
        report = replace(report, ended_sure=ended_sure(interview.filters, self.bank, status, report.total))
        return with_levels(report, self.bank, await beliefs.abilities(self.db, interview.user_id, now),
                           await beliefs.abilities(self.db, interview.user_id, now, beliefs.SPECIALTY))

    async def _advance(self, interview: records.InterviewRecord, asked: AskedQuestion,
                       answer: RecordedAnswer) -> AnswerResult:
        """Record, move the learner model, close and open the next question (or finish) in one transaction,
        then describe it. A review moves its card (FSRS) and nothing of the learner model: the person has
        just read the question's explanation, so a right answer says little of their ability. An adaptive
        interview chooses that next question here, at the ability the answer just moved."""
        now = self.clock.now()
        position = asked.position + 1
        plan = list(interview.plan)
        adaptive = interview.kind == "interview" and is_adaptive(interview.filters)
        pinned_sure = interview.kind == "interview" and not adaptive and interview.filters.stop_when_sure
        following, trimmed = None, False
        if not adaptive and position < len(plan):  # a group deck's questions removed since are skipped
            plan, trimmed = await plan_as_decks_stand(self.bank, plan, position)
            following = self.bank.questions.get(plan[position]) if position < len(plan) else None
        question = self.bank.questions[asked.question_id]

        async def record(connection: Transaction) -> tuple[Question | None, list[str], AskedQuestion | None]:
            """The transaction's statements and nothing else of the event loop: on SQLite it runs as one
            call in the database's thread, reads included (what the adaptive choice needs, and the next
            question as asked), so that an answer is one hand-off."""
            if adaptive or pinned_sure:
                abilities = await beliefs.abilities(connection, answer.user_id, now)
            if adaptive:
                seen = {} if interview.filters.repeatable else await records.recently_seen(
                    connection, answer.user_id, now - RECENT.total_seconds())
            try:
                await records.insert_answer(connection, answer)
            except records.AlreadyAnswered:
                raise AnswerRefused("already_answered") from None
            await record_review(connection, answer.user_id, asked.question_id, answer.correct, answer.latency_ms, now,
                                self.retention)
            moved: dict[beliefs.Key, Estimate] = {}
            if interview.kind == "interview":  # a review, after the explanation, is no fresh measurement
                moved = await beliefs.record_answers(connection, [beliefs.LearnerAnswer(
                    answer.user_id, Item.of(question), answer.correct, now)])
            if not await records.close_asked(connection, asked.id, now):
                raise AnswerRefused("closed")
            chosen, chosen_plan = following, plan
            if trimmed:
                await records.set_plan(connection, interview.id, chosen_plan)
            if adaptive:
                chosen, chosen_plan = await self._choose_next(connection, interview, plan[:position], abilities,
                                                              moved, seen)
                await records.set_plan(connection, interview.id, chosen_plan)
            elif pinned_sure and chosen is not None and sure_enough(interview.filters, plan[:position], self.bank,
                                                                    _known(abilities, moved)):
                chosen, chosen_plan = None, plan[:position]  # a pinned plan ends early too, its rest unasked
                await records.set_plan(connection, interview.id, chosen_plan)
            if chosen is None:
                await records.finish_interview(connection, interview.id, "finished", now)
                return chosen, chosen_plan, None
            next_id = await records.insert_asked(connection, chosen.id, asked.chat_id, interview.id, position,
                                                 shuffled_options(chosen, self.rng), now,
                                                 self._deadline(interview.filters, now))
            return chosen, chosen_plan, await records.get_asked(connection, next_id)

        planned = len(interview.plan)
        following, plan, next_asked = await self.db.in_shared_call(record)  # a COMMIT shared with others'
        deck_removed = next_asked is None and position < planned and any_removed(self.bank, interview.filters.topics)
        log.info("interview %d: asked %d answered (%s)", interview.id, asked.id,
                 "timeout" if answer.option_index is None else ("right" if answer.correct else "wrong"))
        interview = replace(interview, plan=tuple(plan))
        delivery = self._delivery(asked, interview)
        next_delivery = self._delivery(next_asked, interview) if next_asked is not None else None
        report = await self.report(interview.id) if next_asked is None else None
        return AnswerResult(delivery, answer.option_index, answer.correct, next_delivery, report, deck_removed)

    async def _choose_next(self, connection: Transaction, interview: records.InterviewRecord, asked: list[str],
                           abilities: dict[str, Estimate], moved: dict[beliefs.Key, Estimate],
                           seen: dict[str, float]) -> tuple[Question | None, list[str]]:
        """The adaptive interview's next question at the abilities as this answer left them, and the plan
        with it in its slot; (None, the plan cut to what was asked) when it ends here."""
        now_known = _known(abilities, moved)
        following = None
        if len(asked) < len(interview.plan) and not sure_enough(interview.filters, asked, self.bank, now_known):
            following = await self._next(connection, interview.filters, asked, now_known, seen)
        if following is None:
            return None, asked
        return following, [*asked, following.id, *interview.plan[len(asked) + 1:]]

    def _delivery(self, asked: AskedQuestion, interview: records.InterviewRecord) -> Delivery:
        return Delivery(asked, self.bank.questions[asked.question_id], asked.position + 1, len(interview.plan),
                        interview.language, interview.id)

    @staticmethod
    def _deadline(filters: InterviewFilters, now: float) -> float | None:
        return now + filters.time_limit_s if filters.time_limit_s else None
