"""Mock interviews and reviews as use cases: the engine's state changes turned into messages.

The facade hands each call a resolved `Caller`; this module decides what is shown (a question, the
edited answer, the next question or the report) and what a deadline does in a chat that is gone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace

from bot.bank.loader import Bank
from bot.caller import Caller
from bot.domain import AskedQuestion, InterviewFilters, Report
from bot.asking.delivery import Delivery
from bot.asking.view import question_message
from bot.decks.library import askable_ids
from bot.interview.engine import AnswerResult, InterviewEngine
from bot.interview.view import feedback_message, report_message, result_message, verdict
from bot.port import ChatGone, DeliveryError, DeliveryPort
from bot.review.view import review_status_message
from bot.replies import ClickReply, Outgoing
from bot.schedule.clock import Clock
from bot.store import interviews as records
from bot.store.backend import FailedAfterSaving, is_store_failure
from bot.store.database import Database
from bot.store.people import get_chat
from bot.store.review import due_count, next_due_at
from bot.text.i18n import t
from bot.text.messages import Message, Paragraph

log = logging.getLogger(__name__)


class InterviewService:
    """Start, answer, time out, stop and review interviews; `scheduled` tells the timer of a new deadline."""

    def __init__(self, db: Database, bank: Bank, clock: Clock, engine: InterviewEngine,
                 ports: Mapping[str, DeliveryPort], scheduled: Callable[[], None]) -> None:
        self.db, self.bank, self.clock, self.engine = db, bank, clock, engine
        self.ports, self.scheduled = ports, scheduled

    def _question(self, delivery: Delivery, total: bool = False) -> Outgoing:
        if delivery.asked.deadline is not None:
            self.scheduled()
        return Outgoing(question_message(self.bank, delivery), delivery.asked.id, delivery.total if total else None)

    async def start(self, caller: Caller, filters: InterviewFilters, holder: str | None = None) -> Outgoing:
        return self._question(await self.engine.start(caller, filters, holder), total=True)

    async def current(self, caller: Caller, holder: str | None = None) -> Outgoing | None:
        delivery = await self.engine.current(caller, holder)
        return self._question(delivery) if delivery else None

    async def resume(self, caller: Caller, holder: str | None, takeover: bool = False) -> Outgoing | None:
        """The active interview moved to `holder` (see InterviewEngine.resume) and its open question."""
        delivery = await self.engine.resume(caller, holder, takeover)
        return self._question(delivery) if delivery else None

    async def stop(self, caller: Caller, holder: str | None = None) -> Message | None:
        report = await self.engine.stop(caller, holder)
        if report is None:
            return None
        interview = await records.get_interview(self.db, report.interview_id)
        return await self._report(report, interview.language if interview else caller.language, caller)

    async def latest_report(self, caller: Caller, holder: str | None = None) -> Report | None:
        return await self.engine.latest_report(caller, holder)

    async def answer(self, caller: Caller, asked: AskedQuestion, letter: str, holder: str | None = None) -> ClickReply:
        """The clicked answer recorded: the pop-up verdict, the question edited, what comes next."""
        result = await self.engine.answer_asked(caller, asked, letter, holder)
        try:
            follow_ups = await self._after(result, caller)
        except Exception as error:  # noqa: BLE001 - only a store failure is re-labelled; the rest is raised
            if not is_store_failure(error) or isinstance(error, FailedAfterSaving):
                raise
            raise FailedAfterSaving(str(error).strip() or type(error).__name__) from error
        return ClickReply(verdict(result), edit=result_message(self.bank, result), follow_ups=follow_ups,
                          correct=result.correct, result=result, feedback=feedback_message(result))

    async def _after(self, result: AnswerResult, caller: Caller | None = None) -> tuple[Outgoing, ...]:
        if result.next is not None:
            return (self._question(result.next),)
        if result.report is not None:
            report = await self._report(result.report, result.delivery.language, caller)
            if result.deck_removed:
                ended = Paragraph(t(result.delivery.language, "deck.interview_ended"))  # why it ended early
                report = replace(report, blocks=(*report.blocks[:1], ended, *report.blocks[1:]))
            return (Outgoing(report),)
        return ()

    async def _report(self, report: Report, language: str, caller: Caller | None) -> Message:
        """The report, ending with the next step: the review cards due now are part of it."""
        if caller is not None and caller.user is not None:
            user_id: int | None = caller.user.id
        else:  # a deadline ended the interview: no one clicked
            interview = await records.get_interview(self.db, report.interview_id)
            user_id = interview.user_id if interview else None
        due = await due_count(self.db, user_id, self.clock.now(), known=askable_ids(self.bank)) if user_id else 0
        return report_message(self.bank, report, language, due)

    async def review(self, caller: Caller) -> Outgoing:
        """Start a review of the due missed questions, or say when the next one is due."""
        delivery = await self.engine.start_review(caller)
        if delivery is not None:
            return self._question(delivery, total=True)
        assert caller.user is not None
        due = await due_count(self.db, caller.user.id, self.clock.now(), known=askable_ids(self.bank))
        upcoming = await next_due_at(self.db, caller.user.id, known=askable_ids(self.bank))
        return Outgoing(review_status_message(due, upcoming, caller.language))

    async def next_deadline(self) -> float | None:
        """The earliest open question's deadline, for the deadline timer to wake."""
        return await records.next_deadline(self.db, self.ports)

    async def expire(self) -> list[AnswerResult]:
        """Close interview questions past their deadline in chats whose adapter runs: edit them, send what
        follows; a chat that is gone stops its interview."""
        results = await self.engine.expire_overdue(set(self.ports))
        for result in results:
            await self._deliver_timeout(result)
        return results

    async def _deliver_timeout(self, result: AnswerResult) -> None:
        chat = await get_chat(self.db, result.delivery.asked.chat_id)
        port = self.ports.get(chat.platform) if chat else None
        if chat is None or port is None:
            return
        try:
            ref = await records.message_ref(self.db, result.delivery.asked.id)
            if ref is not None:
                await port.edit(chat.address, ref, result_message(self.bank, result))
            for outgoing in await self._after(result):
                new_ref = await port.send(chat.address, outgoing.message)
                if outgoing.asked_id is not None:
                    await records.set_message_ref(self.db, outgoing.asked_id, new_ref)
        except ChatGone:
            await self.engine.abandon(result.delivery.interview_id or 0)
            log.warning("chat %d gone during a timed interview: interview stopped", chat.id)
        except DeliveryError as error:
            log.error("chat %d: timeout delivery failed: %s", chat.id, error)
