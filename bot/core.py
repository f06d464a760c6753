"""The one door into the core: adapters (the console included) call only this facade.

Each call resolves its `Caller` (user and chat records, the language) once and hands it to one
feature's use cases: interviews (bot/interview), the daily question (bot/daily), boards
(bot/scores), progress (bot/progress). Outbound messages without a user event (daily posts,
reveals, interview deadlines) go through the DeliveryPort each adapter registers, when the one
timer (bot/schedule/timer) finds them due in the store.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import replace
from pathlib import Path

from bot.bank import BankError, load_bank
from bot.bank.loader import Bank
from bot.caller import Caller, resolve
from bot.daily.service import DailyService
from bot.decks.library import Library
from bot.answering import AnswerDoors
from bot.decks.doors import DeckDoors
from bot.forgetting import ForgetDoors
from bot.decks.service import DeckService
from bot.domain import LETTERS, SENIORITIES, ChatRef, InterviewFilters, Report, UserRef
from bot.errors import AnswerRefused, UserError
from bot.interview.engine import AnswerResult, InterviewEngine
from bot.interview.holders import this_process
from bot.interview.service import InterviewService
from bot.quiz.service import DEFAULT_COUNT, DEFAULT_SECONDS, QuizService
from bot.asking.view import topic_label
from bot.metrics import count_interview
from bot.port import DeliveryPort
from bot.progress.chart import close_chart_worker
from bot.progress.service import ProgressService
from bot.replies import ClickReply, Document, Outgoing
from bot.review.cards import DEFAULT_RETENTION
from bot.review.export import missed_deck
from bot.schedule.clock import Clock, SystemClock
from bot.schedule.timer import Timer, shared_scheduler
from bot.scores.boards import Period
from bot.scores.service import ScoresService
from bot.store.backend import is_store_failure
from bot.store.database import Database
from bot.store.item_steps import fold_pending
from bot.store.people import move_chat, set_chat_language, set_user_language
from bot.text.i18n import language_from_locale, t, user_error_text
from bot.text.messages import CommandHint, Message, Paragraph
from bot.text.control import strip_control
from bot.text.plaintext import render_plain
from bot.text.units import counted

log = logging.getLogger(__name__)
STOP_GRACE_S = 3.0  # at shutdown, how long the posts and reveals being sent get to end (`Core.stop_work`)
# What an adapter needs besides the facade: the neutral values it builds calls from and renders.
__all__ = ["LETTERS", "SENIORITIES", "AnswerRefused", "BankError", "ChatRef", "ClickReply", "CommandHint", "Core",
           "Document", "InterviewFilters", "Message", "Outgoing", "Report", "UserError", "UserRef", "counted",
           "is_store_failure", "language_from_locale", "render_plain", "strip_control", "t", "this_process"]


class Core(AnswerDoors, DeckDoors, ForgetDoors):
    """Use cases for every adapter; state lives in the store, never here. The answers' doors (clicks and
    poll votes), group decks' and /forget's are bot/answering.py's, bot/decks/doors.py's and
    bot/forgetting.py's."""

    def __init__(self, db: Database, bank: Bank, clock: Clock | None = None, rng: random.Random | None = None,
                 *, scheduled: bool = True, review_retention: float = DEFAULT_RETENTION) -> None:
        self.db, self.bank = db, bank
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.ports: dict[str, DeliveryPort] = {}
        self.library = library = Library(bank, db)  # the bank, and the group decks looked up beside it
        self.engine = InterviewEngine(db, library, self.clock, self.rng, review_retention)
        self.interviews = InterviewService(db, library, self.clock, self.engine, self.ports, self._poke)
        self.daily = DailyService(db, library, self.clock, self.ports, self.rng, retention=review_retention)
        self.quiz = QuizService(db, library, self.clock, self.ports, self.rng, self.daily.answers, self._poke)
        self.scores = ScoresService(db, self.clock)
        self.progress_view = ProgressService(db, library, self.clock)
        self.decks = DeckService(db, library, self.clock)
        self.timer: Timer | None = None  # daily posts
        self.reveals: Timer | None = None  # reveals, apart: a six-minute posting broadcast never holds one back
        self.deadlines: Timer | None = None  # interview deadlines, apart: a long broadcast never delays one
        self.quizzes: Timer | None = None  # every quiz round's clock: one timer, rounds claimed in the store
        self.quiz_closes: Timer | None = None  # questions closed on time, apart from the clock's paced sends
        self.deck_purges: Timer | None = None  # decks of chats that removed the bot, deleted after 30 days
        if scheduled:
            scheduler = shared_scheduler()
            self.timer = Timer(self.daily.post_due, self.daily.next_post_moment, self.clock, scheduler=scheduler,
                               name="daily")
            self.reveals = Timer(self.daily.reveal_due, self.daily.next_reveal_moment, self.clock,
                                 scheduler=scheduler, name="reveals")
            self.deadlines = Timer(self.expire_interviews, self.interviews.next_deadline, self.clock,
                                   scheduler=scheduler, name="deadlines")
            self.quizzes = Timer(self.quiz.run_due, self.quiz.next_moment, self.clock, scheduler=scheduler,
                                 name="quiz")
            self.quiz_closes = Timer(self.quiz.close_due, self.quiz.next_close, self.clock, scheduler=scheduler,
                                     name="quiz-close")
            self.quiz.poke_close = self.quiz_closes.poke
            self.deck_purges = Timer(self.decks.purge, self.decks.next_purge, self.clock, scheduler=scheduler,
                                     name="deck-purge")

    @classmethod
    async def open(cls, db_path: Path | str, questions: Path | None = None, **options: object) -> Core:
        bank = load_bank([questions] if questions else None)
        return cls(await Database.open(db_path), bank, **options)  # type: ignore[arg-type]

    # --- lifecycle and time -----------------------------------------------------------------------

    def add_port(self, port: DeliveryPort) -> None:
        """An adapter is ready to deliver: catch up at once on what waited for it (posts, reveals, deadlines)."""
        self.ports[port.platform] = port
        self._poke()

    def remove_port(self, port: DeliveryPort) -> None:
        """An adapter stopped: what it would deliver waits in the store until it is back."""
        if self.ports.get(port.platform) is port:
            del self.ports[port.platform]

    async def start(self) -> None:
        """Catch up on what was missed while down, then wake for what comes next."""
        await fold_pending(self.db)  # item steps a killed process logged and never folded
        await self.daily.schedule_missing()
        for timer in self._timers():
            timer.start()  # their first ticks catch up at once
        if not self._timers():
            await self.tick()

    def _timers(self) -> list[Timer]:
        """Every timer (reveals first), when scheduled; none when tests and tools tick by hand."""
        return [timer for timer in (self.reveals, self.timer, self.deadlines, self.quizzes, self.quiz_closes,
                                    self.deck_purges) if timer is not None]

    async def stop_work(self, grace: float = STOP_GRACE_S) -> None:
        """At shutdown, before the platforms close their connections: no daily post or reveal begins any
        more, the sends under way get `grace` seconds to end, then the timers stop. A broadcast stopped so
        leaves the chats it did not reach due for the next start; sends cut off after that would be
        refused by a closed connection (and lost for the day) or left half-done. `close` follows."""
        self.daily.stopping.set()
        await asyncio.gather(*(timer.stop(grace) for timer in self._timers()))

    async def close(self) -> None:
        timers = self._timers()
        for timer in timers:
            await timer.stop()
        if timers and timers[0].scheduler.running:  # the one scheduler they share: shut down once
            timers[0].scheduler.shutdown(wait=False)
        close_chart_worker()
        await self.daily.answers.settled()  # the last batch's item steps folded (PostgreSQL), not left logged
        await self.db.close()

    async def tick(self) -> None:
        """Everything time-driven that is due now: posts, reveals, deadlines, quiz clocks, deck purges."""
        await self.daily.run_due()
        await self.expire_interviews()
        await self.quiz.run_due()
        await self.decks.purge()

    def _poke(self) -> None:
        """Something new is scheduled or deliverable: the timer re-reads the earliest due moment."""
        for timer in self._timers():
            timer.poke()

    async def caller(self, user: UserRef | None = None, chat: ChatRef | None = None) -> Caller:
        """The records and language of one event, resolved once."""
        return await resolve(self.db, self.clock.now(), user, chat)

    async def move_chat(self, platform: str, old_id: str, new_id: str) -> None:
        """The platform gave a chat a new id; everything the store holds for it follows (records merge)."""
        await move_chat(self.db, platform, old_id, new_id)
        self.daily.open_posts.forget_chat()  # after the move: a click during it may have kept the old record
        log.info("%s chat %s moved to %s", platform, old_id, new_id)

    # --- words ----------------------------------------------------------------------------------------

    async def language(self, user: UserRef | None = None, chat: ChatRef | None = None) -> str:
        """The language to answer in: the user's choice (in a DM), the chat's, the platform locale, English.
        It stores nothing: a refusal or a help text leaves no trace of who asked."""
        return (await resolve(self.db, self.clock.now(), user, chat, create=False)).language

    async def set_language(self, language: str, user: UserRef | None = None, chat: ChatRef | None = None) -> str:
        """Set a user's (in a DM) or a chat's language; returns the confirmation text."""
        if language not in ("tr", "en"):
            raise UserError("language.unknown", language=language)
        caller = await self.caller(user, chat)
        if caller.chat is not None and not caller.private:
            await set_chat_language(self.db, caller.chat.id, language)
            self.daily.open_posts.forget_chat(caller.chat.id)  # the next click's pop-up speaks it
        elif caller.user is not None:
            await set_user_language(self.db, caller.user.id, language)
        return t(language, "language.set")

    def topics(self, language: str) -> list[tuple[str, str]]:
        """(name, label) of every topic, for menus and autocomplete."""
        return sorted(((name, topic_label(self.bank, name, language)) for name in self.bank.topics),
                      key=lambda pair: pair[1])

    def error_text(self, language: str, error: UserError) -> str:
        """The one way a user's mistake becomes words, on every platform."""
        return user_error_text(language, error)

    def text(self, language: str, key: str, **values: object) -> Message:
        """A one-paragraph message from the catalog, for adapters' simple replies."""
        return Message((Paragraph(t(language, key, **values)),))

    # --- interviews and reviews -------------------------------------------------------------------

    async def start_interview(self, user: UserRef, chat: ChatRef, filters: InterviewFilters,
                              holder: str | None = None) -> Outgoing:
        """A new interview; UserError (unknown topic, 1-30 questions, 10-600 s, or one running in another
        process: one live interview per person) on every platform alike. `holder` names the process
        (a terminal) that runs it; chats need none. A topic may be a group deck (`deck:NAME[@chat id]`)."""
        caller = await self.caller(user, chat)
        outgoing = await self.interviews.start(caller, await self._deck_filters(caller, filters), holder)
        count_interview(user.platform)
        return outgoing

    async def current_question(self, user: UserRef, holder: str | None = None) -> Outgoing | None:
        """The open question; UserError (interview.moved) when another process took it over."""
        return await self.interviews.current(await self._with_decks(user), holder)

    async def resume_interview(self, user: UserRef, holder: str, takeover: bool = False) -> Outgoing | None:
        """Carry on with the active interview in the process `holder`; UserError (interview.running) when
        another live process holds it, unless `takeover` moves it here."""
        return await self.interviews.resume(await self._with_decks(user), holder, takeover)

    async def stop_interview(self, user: UserRef, holder: str | None = None) -> Message | None:
        return await self.interviews.stop(await self._with_decks(user), holder)

    async def latest_report(self, user: UserRef, holder: str | None = None) -> Report | None:
        """The report of the user's latest interview (the one `holder` ran), as data (the console's --json)."""
        return await self.interviews.latest_report(await self._with_decks(user), holder)

    async def review(self, user: UserRef, chat: ChatRef) -> Outgoing:
        """Start a review of the due missed questions, or say when the next one is due."""
        outgoing = await self.interviews.review(await self._with_decks(user, chat))
        if outgoing.asked_id is not None:
            count_interview(user.platform)
        return outgoing

    async def export_missed(self, user: UserRef) -> Document | Message:
        """The person's missed questions as an Anki deck (.apkg), or a message saying there are none yet."""
        caller = await self._with_decks(user)
        document = await missed_deck(self.db, self.bank, caller, self.clock.now())
        if document is None:
            return Message((Paragraph(t(caller.language, "export.nothing")),))
        log.info("user %s exported a deck of %d bytes", user.platform_id, len(document.data))
        return document

    async def expire_interviews(self) -> list[AnswerResult]:
        await self.decks.ready_overdue()  # a timed interview on a group deck this worker has not loaded
        return await self.interviews.expire()

    async def start_quiz(self, user: UserRef, chat: ChatRef, topic: str | None = None, count: int = DEFAULT_COUNT,
                         seconds: int = DEFAULT_SECONDS, difficulty: int | None = None) -> Message:
        """/quiz in a group (`topic` may be its `deck:NAME`): a live round starts at once; UserError otherwise."""
        caller = await self.caller(user, chat)
        return await self.quiz.start(caller, await self.decks.topic(caller, topic), count, seconds, difficulty)

    async def stop_quiz(self, user: UserRef, chat: ChatRef, is_admin: bool) -> Message:
        """/quiz stop: the round's starter or an administrator ends it; UserError otherwise."""
        caller = await self.caller(user, chat)
        return self.text(caller.language, await self.quiz.stop(caller, is_admin))

    # --- the daily question and boards -------------------------------------------------------------

    async def subscribe(self, chat: ChatRef, post_time: str, timezone: str = "UTC", topic: str | None = None,
                        difficulty: int | None = None, weekdays: tuple[int, ...] | None = None,
                        reveal_after_hours: float | None = None, as_poll: bool | None = None) -> str:
        """Set the chat's daily question; UserError for a bad time, zone, topic or reveal window. `as_poll`:
        as a quiz poll where the platform has them (None keeps the chat's earlier choice)."""
        caller = await self._present(await self.caller(chat=chat))
        subscription = await self.daily.subscribe(caller, post_time, timezone, await self.decks.topic(caller, topic),
                                                  difficulty, weekdays, reveal_after_hours, as_poll)
        self._poke()
        return t(caller.language, "daily.subscribed", time=subscription.post_time, timezone=subscription.timezone)

    async def unsubscribe(self, chat: ChatRef) -> str:
        caller = await self.caller(chat=chat)
        done = await self.daily.unsubscribe(caller)
        return t(caller.language, "daily.unsubscribed" if done else "daily.was_not_subscribed")

    async def daily_question(self, asked_id: int) -> Message | None:
        """A daily question as posted, with the current answer counter (for debounced counter edits)."""
        return await self.daily.question_view(asked_id)

    async def answers_so_far(self, asked_id: int) -> int | None:
        """An open daily question's answer count (for debounced counters); None once it is closed."""
        return await self.daily.answers_so_far(asked_id)

    async def settings(self, chat: ChatRef, user: UserRef | None = None) -> Message:
        """The chat's daily-question settings (and why it is paused, if it is). With `user`, in the language
        of the one who asked (for a reply only they see, as on Discord); nothing is stored about them."""
        caller = await self.caller(chat=chat)
        if user is not None:
            caller = replace(caller, language=await self.language(user, chat))
        await self.decks.ready_for(caller)  # a deck's topic is named as people type it
        return await self.daily.settings(caller)

    async def set_daily_poll(self, chat: ChatRef, as_poll: bool) -> str:
        """The chat's daily question as a quiz poll or with buttons; the confirmation (or why not) to show."""
        caller = await self.caller(chat=chat)
        if not await self.daily.set_poll_mode(caller, as_poll):
            return t(caller.language, "daily.not_subscribed")
        return t(caller.language, "daily.poll_on" if as_poll else "daily.poll_off")

    async def post_daily_now(self, chat: ChatRef, as_poll: bool = False, topic: str | None = None) -> bool:
        """Post a daily question in the chat now, through the platform's port (as a quiz poll when `as_poll`
        and the question fits one), from `topic` (or `deck:NAME`) if given; False if it failed."""
        caller = await self.caller(chat=chat)
        post = await self.daily.post_now(caller, as_poll, await self.decks.topic(caller, topic))
        if post is not None:
            self._poke()  # its reveal is the timer's next moment
        return post is not None and post.state in ("sent", "unknown")

    async def leaderboard(self, chat: ChatRef, user: UserRef | None, period: Period = "week") -> Message:
        return await self.scores.leaderboard(await self.caller(user, chat), period)

    async def groups_leaderboard(self, language: str) -> Message:
        return await self.scores.groups(language)

    # --- progress and history ---------------------------------------------------------------------

    async def progress(self, user: UserRef) -> Message:
        return await self.progress_view.progress(await self._with_decks(user))

    async def history(self, user: UserRef) -> Message:
        return await self.progress_view.history(await self._with_decks(user))

