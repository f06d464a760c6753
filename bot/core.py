"""The core as adapters see it: one object per process, over one store, one bank and one scheduler.

Adapters call its use cases with platform-neutral people and chats (UserRef, ChatRef) and render the
neutral Messages they get back. Outbound messages without a user event (daily posts, reveals,
interview deadlines) go through the DeliveryPort each adapter registers.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from bot.bank import load_bank
from bot.bank.loader import Bank
from bot.scores.view import board_message, groups_message
from bot.progress.chart import draw_progress_chart
from bot.schedule.clock import Clock, SystemClock
from bot.daily.service import DEFAULT_REVEAL_AFTER, DailyService
from bot.daily.view import subscription_message
from bot.port import ChatGone, DeliveryError, DeliveryPort
from bot.domain import LETTERS, SENIORITIES, ChatRef, InterviewFilters, Report, UserRef
from bot.interview.engine import AnswerResult, Delivery, InterviewEngine
from bot.errors import AnswerRefused, UserError
from bot.text.i18n import resolve_language, t
from bot.schedule.localtime import zone
from bot.text.messages import Message, Paragraph
from bot.progress.stats import history, user_progress
from bot.progress.view import chart_labels, history_message, progress_message, review_status_message
from bot.interview.view import (feedback_message, question_message, report_message, result_message, topic_label,
                                verdict)
from bot.schedule.timer import Timer
from bot.scores.boards import Period, chat_board, groups_board
from bot.store import interviews as records
from bot.store.database import Database
from bot.store.people import (ensure_chat, ensure_user, find_chat, get_chat, move_chat, set_chat_language,
                              set_user_language)
from bot.store.review import due_count, next_due_at
from bot.tokens import parse_answer_token

log = logging.getLogger(__name__)
# What an adapter needs besides the facade: the neutral values it builds calls from and renders.
__all__ = ["LETTERS", "SENIORITIES", "AnswerRefused", "ChatRef", "ClickReply", "Core", "InterviewFilters", "Message",
           "Outgoing", "Report", "UserError", "UserRef"]


@dataclass(frozen=True)
class Outgoing:
    """A message to send; when it carries a question, report where it went with `Core.posted`."""

    message: Message
    asked_id: int | None = None
    total: int | None = None  # an interview's number of questions, when this starts one


@dataclass(frozen=True)
class ClickReply:
    """What a button click does: a pop-up for the clicker, maybe an edit of the clicked message, and more."""

    popup: str
    alert: bool = False
    edit: Message | None = None
    follow_ups: tuple[Outgoing, ...] = ()
    counter: tuple[int, int] | None = None  # (asked id, answers so far) for a group question's counter
    correct: bool | None = None  # the verdict of a recorded answer
    refused: str | None = None  # why nothing was recorded (AnswerRefused.reason), for logs and tests
    result: AnswerResult | None = None  # an interview answer's outcome, for the console's report
    feedback: Message | None = None  # the verdict and explanation alone, for a place that keeps the question shown


class Core:
    """Use cases for every adapter; state lives in the store, never here."""

    def __init__(self, db: Database, bank: Bank, clock: Clock | None = None, rng: random.Random | None = None,
                 *, scheduled: bool = True) -> None:
        self.db, self.bank = db, bank
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.ports: dict[str, DeliveryPort] = {}
        self.engine = InterviewEngine(db, bank, self.clock, self.rng)
        self.daily = DailyService(db, bank, self.clock, self.ports, self.rng)
        self.timer = Timer(self.tick, self.daily.next_moment, self.clock) if scheduled else None

    @classmethod
    async def open(cls, db_path: Path, questions: Path | None = None, **options: object) -> Core:
        bank = load_bank([questions] if questions else None)
        return cls(await Database.open(db_path), bank, **options)  # type: ignore[arg-type]

    def add_port(self, port: DeliveryPort) -> None:
        """An adapter is ready to deliver: catch up at once on what waited for it (posts, reveals, deadlines)."""
        self.ports[port.platform] = port
        self._poke()

    def remove_port(self, port: DeliveryPort) -> None:
        """An adapter stopped: what it would deliver waits in the store until it is back."""
        if self.ports.get(port.platform) is port:
            del self.ports[port.platform]

    async def move_chat(self, platform: str, old_id: str, new_id: str) -> None:
        """The platform gave a chat a new id; everything the store holds for it follows (records merge)."""
        await move_chat(self.db, platform, old_id, new_id)
        log.info("%s chat %s moved to %s", platform, old_id, new_id)

    async def start(self) -> None:
        """Catch up on what was missed while down, then schedule what comes next."""
        await self.daily.schedule_missing()
        if self.timer is not None:
            self.timer.start()  # its first tick catches up at once
        else:
            await self.tick()

    async def close(self) -> None:
        if self.timer is not None:
            await self.timer.stop()
        await self.db.close()

    async def tick(self) -> None:
        """Everything time-driven that is due now: posts, reveals, interview deadlines."""
        await self.daily.run_due()
        await self.expire_interviews()

    # --- languages -------------------------------------------------------------------------------

    async def language(self, user: UserRef | None = None, chat: ChatRef | None = None) -> str:
        """The language to answer in: the user's choice, the chat's, the platform locale, English."""
        now = self.clock.now()
        person = await ensure_user(self.db, user, now) if user else None
        place = await find_chat(self.db, chat.platform, chat.platform_id) if chat else None
        private = chat is None or chat.kind == "private"
        chat_locale = (chat.locale if chat else None) or (place.locale if place else None)
        return resolve_language(user=person.language if person and private else None,
                                chat=place.language if place else None,
                                locale=(user.locale if user else None) or chat_locale)

    async def set_language(self, language: str, user: UserRef | None = None, chat: ChatRef | None = None) -> str:
        """Set a user's (in a DM) or a chat's language; returns the confirmation text."""
        if language not in ("tr", "en"):
            raise UserError("language.unknown", language=language)
        now = self.clock.now()
        if chat is not None and chat.kind != "private":
            await set_chat_language(self.db, (await ensure_chat(self.db, chat, now)).id, language)
        elif user is not None:
            await set_user_language(self.db, (await ensure_user(self.db, user, now)).id, language)
        return t(language, "language.set")

    def topics(self, language: str) -> list[tuple[str, str]]:
        """(name, label) of every topic, for menus and autocomplete."""
        return sorted(((name, topic_label(self.bank, name, language)) for name in self.bank.topics),
                      key=lambda pair: pair[1])

    # --- interviews ------------------------------------------------------------------------------

    async def start_interview(self, user: UserRef, chat: ChatRef, filters: InterviewFilters) -> Outgoing:
        delivery = await self.engine.start(user, chat, filters)
        self._wake_for(delivery)
        return Outgoing(question_message(self.bank, delivery), delivery.asked.id, delivery.total)

    async def current_question(self, user: UserRef) -> Outgoing | None:
        delivery = await self.engine.current(user)
        return Outgoing(question_message(self.bank, delivery), delivery.asked.id) if delivery else None

    async def stop_interview(self, user: UserRef) -> Message | None:
        report = await self.engine.stop(user)
        if report is None:
            return None
        interview = await records.get_interview(self.db, report.interview_id)
        return report_message(self.bank, report, interview.language if interview else "en")

    async def latest_report(self, user: UserRef) -> Report | None:
        """The report of the user's latest interview, as data (the console's --json)."""
        return await self.engine.latest_report(user)

    async def posted(self, asked_id: int, ref: str) -> None:
        """Where an adapter posted a question, so that deadlines and reveals can edit it later."""
        await records.set_message_ref(self.db, asked_id, ref)

    async def click(self, user: UserRef, chat: ChatRef, token: str) -> ClickReply:
        """A button press: an interview answer or a daily answer; a refusal pop-up records nothing."""
        language = await self.language(user, ChatRef(chat.platform, chat.platform_id))
        parsed = parse_answer_token(token)
        asked = await records.get_asked(self.db, parsed.asked_id) if parsed else None
        try:
            if parsed is None or asked is None:
                raise AnswerRefused("unknown")
            if asked.interview_id is None:
                answer = await self.daily.answer_asked(user, chat, asked, parsed.letter)
                return ClickReply(t(language, "daily.right" if answer.correct else "daily.wrong"),
                                  counter=(answer.asked_id, answer.answered), correct=answer.correct)
            result = await self.engine.answer_asked(user, asked, parsed.letter)
        except AnswerRefused as refused:
            log.info("click refused (%s): user %s:%s token %r", refused.reason, user.platform, user.platform_id,
                     token[:64])
            return ClickReply(t(language, refused.message_key), alert=True, refused=refused.reason)
        self._wake_for(result.next)
        return ClickReply(verdict(result), edit=result_message(self.bank, result),
                          follow_ups=self._after(result), correct=result.correct, result=result,
                          feedback=feedback_message(result))

    def _after(self, result: AnswerResult) -> tuple[Outgoing, ...]:
        if result.next is not None:
            return (Outgoing(question_message(self.bank, result.next), result.next.asked.id),)
        if result.report is not None:
            return (Outgoing(report_message(self.bank, result.report, result.delivery.language)),)
        return ()

    def _wake_for(self, delivery: Delivery | None) -> None:
        if delivery is not None and delivery.asked.deadline is not None:
            self._poke()

    def _poke(self) -> None:
        """Something new is scheduled or deliverable: the timer re-reads the earliest due moment."""
        if self.timer is not None:
            self.timer.poke()

    async def expire_interviews(self) -> list[AnswerResult]:
        """Close interview questions past their deadline: edit them, send what follows."""
        results = await self.engine.expire_overdue(platforms=set(self.ports))
        for result in results:
            chat = await get_chat(self.db, result.delivery.asked.chat_id)
            port = self.ports.get(chat.platform) if chat else None
            if chat is None or port is None:
                continue
            try:
                ref = await records.message_ref(self.db, result.delivery.asked.id)
                if ref is not None:
                    await port.edit(chat, ref, result_message(self.bank, result))
                for outgoing in self._after(result):
                    new_ref = await port.send(chat, outgoing.message)
                    if outgoing.asked_id is not None:
                        await self.posted(outgoing.asked_id, new_ref)
            except ChatGone:
                async with self.db.transaction() as connection:
                    await records.finish_interview(connection, result.delivery.interview_id or 0, "stopped",
                                                   self.clock.now())
                log.warning("chat %d gone during a timed interview: interview stopped", chat.id)
            except DeliveryError as error:
                log.error("chat %d: timeout delivery failed: %s", chat.id, error)
            self._wake_for(result.next)
        return results

    # --- daily questions and boards ---------------------------------------------------------------

    async def subscribe(self, chat: ChatRef, post_time: str, timezone: str = "UTC", topic: str | None = None,
                        difficulty: int | None = None, weekdays: tuple[int, ...] | None = None,
                        reveal_after_hours: float | None = None) -> str:
        """Set the chat's daily question; UserError for a bad time, zone, topic or reveal window."""
        reveal_after = DEFAULT_REVEAL_AFTER
        if reveal_after_hours is not None:
            if not 0.1 <= reveal_after_hours <= 48:
                raise UserError("daily.bad_reveal", hours=reveal_after_hours)
            reveal_after = timedelta(hours=reveal_after_hours)
        subscription = await self.daily.subscribe(chat, post_time, timezone, topic, difficulty, weekdays, reveal_after)
        self._poke()
        language = await self.language(chat=chat)
        return t(language, "daily.subscribed", time=subscription.post_time, timezone=subscription.timezone)

    async def unsubscribe(self, chat: ChatRef) -> str:
        language = await self.language(chat=chat)
        if not await self.daily.unsubscribe(chat):
            return t(language, "daily.was_not_subscribed")
        return t(language, "daily.unsubscribed")

    async def daily_question(self, asked_id: int) -> Message | None:
        """A daily question as posted, with the current answer counter (for debounced counter edits)."""
        return await self.daily.question_view(asked_id)

    async def settings(self, chat: ChatRef) -> Message:
        return subscription_message(self.bank, await self.daily.subscription(chat), await self.language(chat=chat))

    async def post_daily_now(self, chat: ChatRef) -> bool:
        """Post a daily question in the chat now, through the platform's port; False if it failed."""
        post = await self.daily.post_now(chat)
        if post is not None:
            self._poke()
        return post is not None and post.state in ("sent", "unknown")

    async def leaderboard(self, chat: ChatRef, user: UserRef | None, period: Period = "week") -> Message:
        now = self.clock.now()
        record = await ensure_chat(self.db, chat, now)
        person = await ensure_user(self.db, user, now) if user else None
        subscription = await self.daily.subscription(chat)
        tz = zone(subscription.timezone) if subscription else None
        board = await chat_board(self.db, record.id, period, now, tz or zone("UTC"),  # type: ignore[arg-type]
                                 person.id if person else None)
        return board_message(board, await self.language(chat=chat), person.id if person else None)

    async def groups_leaderboard(self, language: str) -> Message:
        return groups_message(await groups_board(self.db, self.clock.now()), language)

    # --- progress, history, review ----------------------------------------------------------------

    async def progress(self, user: UserRef) -> Message:
        """Accuracy per topic and level as text, with a PNG chart (drawn in a child process)."""
        person = await ensure_user(self.db, user, self.clock.now())
        progress = await user_progress(self.db, self.bank, person.id)
        language = await self.language(user)
        image = None
        if progress.answered:
            image = await draw_progress_chart(progress, language, chart_labels(self.bank, progress, language))
        return progress_message(self.bank, progress, language, image)

    async def history(self, user: UserRef) -> Message:
        person = await ensure_user(self.db, user, self.clock.now())
        return history_message(self.bank, await history(self.db, self.bank, person.id), await self.language(user))

    async def review(self, user: UserRef, chat: ChatRef) -> Outgoing:
        """Start a review of the due missed questions, or say when the next one is due."""
        delivery = await self.engine.start_review(user, chat)
        if delivery is not None:
            self._wake_for(delivery)
            return Outgoing(question_message(self.bank, delivery), delivery.asked.id)
        person = await ensure_user(self.db, user, self.clock.now())
        due = await due_count(self.db, person.id, self.clock.now(), known=self.bank.questions)
        upcoming = await next_due_at(self.db, person.id, known=self.bank.questions)
        return Outgoing(review_status_message(due, upcoming, await self.language(user)))

    def error_text(self, language: str, error: UserError) -> str:
        return t(language, error.key, **error.values)

    def text(self, language: str, key: str, **values: object) -> Message:
        """A one-paragraph message from the catalog, for adapters' simple replies."""
        return Message((Paragraph(t(language, key, **values)),))
