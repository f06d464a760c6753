"""Live quiz rounds: start and stop, answers by speed, and the one clock that moves every round on.

A round lives in the store (bot/store/quiz.py). Its clock is due work: at `due_at` the next question is
recorded, then sent (a native quiz poll with Telegram's own countdown where the question fits one, else
buttons and the closing time), or the open question is closed and its result shown (one edit of a button
question, one message under a poll), and after the last question, or two in a row nobody answered, or a
stop, the final ranking. The quiz timer claims each due round, so with several workers one runs a round
while clicks reach any; after a crash the round goes on from the store: a question recorded but never
sent is sent then with its full time, and answers given before the crash still count.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bot.asking.delivery import Delivery, shuffled_options
from bot.asking.poll import quiz_poll
from bot.bank.loader import Bank
from bot.caller import Caller, chat_language, resolve
from bot.decks.library import askable, ready_ids
from bot.decks.names import deck_of_question
from bot.domain import LETTERS, AskedQuestion, RecordedAnswer, UserRef
from bot.errors import AnswerRefused, UserError
from bot.learner.items import Item
from bot.port import ChatForbidden, ChatGone, DeliveryError, DeliveryPort, DeliveryUnknown, poll_port
from bot.quiz.scoring import ranking, speed_points
from bot.quiz.view import final_message, result_message, round_question_message, started_message
from bot.schedule.clock import Clock
from bot.store import interviews as records
from bot.store import polls
from bot.store import quiz as rounds
from bot.store.answer_batch import AnswerWriter, QuestionClosed
from bot.store.database import Database
from bot.store.people import ChatRecord, get_chat
from bot.text.messages import Message

log = logging.getLogger(__name__)

COUNT_RANGE, SECONDS_RANGE = (3, 30), (10, 120)
DEFAULT_COUNT, DEFAULT_SECONDS = 10, 20
GAP_S = 3.0  # from a question's result to the next question
SILENT_LIMIT = 2  # questions in a row nobody answered before the round ends
CONCURRENT_ROUNDS = 64  # rounds one tick moves on at once (their sends are paced by the port anyway)


@dataclass(frozen=True)
class QuizAnswer:
    correct: bool
    points: int


class QuizService:
    """Rounds for every platform that registered a DeliveryPort (the dict is shared with the core, live)."""

    def __init__(self, db: Database, bank: Bank, clock: Clock, ports: dict[str, DeliveryPort], rng: random.Random,
                 answers: AnswerWriter, poke: Callable[[], None] = lambda: None) -> None:
        self.db, self.bank, self.clock, self.ports, self.rng = db, bank, clock, ports, rng
        self.answers, self.poke = answers, poke
        self.poke_close: Callable[[], None] = lambda: None  # the core's close timer, when it runs one

    # --- what members do ---------------------------------------------------------------------------

    async def start(self, caller: Caller, topic: str | None = None, count: int = DEFAULT_COUNT,
                    seconds: int = DEFAULT_SECONDS, difficulty: int | None = None) -> Message:
        """A new round in the caller's group; UserError (one clear line) for anything that cannot start."""
        record = caller.chat
        if record is None or record.kind == "private":
            raise UserError("quiz.group_only")
        if not COUNT_RANGE[0] <= count <= COUNT_RANGE[1]:
            raise UserError("quiz.bad_count", value=count)
        if not SECONDS_RANGE[0] <= seconds <= SECONDS_RANGE[1]:
            raise UserError("quiz.bad_seconds", value=seconds)
        if topic is not None and topic not in self.bank.topics:
            raise UserError("interview.unknown_topic", topic=topic, known=", ".join(sorted(self.bank.topics)))
        running = await rounds.running_round(self.db, record.id)
        if running is not None:
            raise UserError("quiz.running", asked=running.asked, total=running.total)
        pool = self.bank.select((topic,) if topic else (), difficulty)
        if not pool:
            raise UserError("quiz.no_questions")
        recent = await rounds.recently_asked(self.db, record.id)
        fresh = [question for question in pool if question.id not in recent]
        chosen = self.rng.sample(fresh, min(count, len(fresh)))
        if len(chosen) < count:  # a small topic: repeat older questions rather than play a shorter round
            older = [question for question in pool if question not in chosen]
            chosen += self.rng.sample(older, min(count - len(chosen), len(older)))
        starter = caller.user.id if caller.user else None
        try:
            await rounds.start_round(self.db, record.id, starter, topic, difficulty, [q.id for q in chosen], seconds,
                                     self.clock.now())
        except rounds.RoundRunning:
            running = await rounds.running_round(self.db, record.id)
            raise UserError("quiz.running", asked=running.asked if running else 0,
                            total=running.total if running else count) from None
        log.info("chat %d: quiz round started (%d questions, %d s, topic %s)", record.id, len(chosen), seconds, topic)
        self.poke()  # the timer arms for the first question
        return started_message(self.bank, caller.language, topic, len(chosen), seconds)

    async def stop(self, caller: Caller, is_admin: bool) -> str:
        """Stop the group's round (its starter or an administrator): the clock ends it at once with the
        ranking. Returns the catalog key of the reply; UserError when there is nothing the caller may stop."""
        record = caller.chat
        if record is None or record.kind == "private":
            raise UserError("quiz.group_only")
        running = await rounds.running_round(self.db, record.id)
        if running is None:
            raise UserError("quiz.none_running")
        if not is_admin and (caller.user is None or caller.user.id != running.starter_id):
            raise UserError("quiz.not_allowed")
        await rounds.request_stop(self.db, running.id, self.clock.now())
        self.poke()
        return "quiz.stopping"

    async def owns(self, asked_id: int) -> bool:
        return await rounds.round_of_asked(self.db, asked_id) is not None

    async def answer(self, caller: Caller, asked: AskedQuestion, letter: str) -> QuizAnswer:
        """A member's first answer to the round's open question, scored by speed; AnswerRefused otherwise."""
        found = await rounds.round_of_asked(self.db, asked.id)
        await ready_ids(self.bank, [asked.question_id])
        question = self.bank.get(asked.question_id)
        if found is None or question is None:
            raise AnswerRefused("unknown")
        round_, asked_in_round = found
        if caller.chat is None or caller.chat.id != asked.chat_id:
            raise AnswerRefused("wrong_chat")
        option_index = asked.option_index_of(letter)
        if option_index is None:
            raise AnswerRefused("unknown")
        now = self.clock.now()
        sent_at, closes_at = asked_in_round.sent_at, asked_in_round.closes_at
        if round_.state != "running" or sent_at is None or closes_at is None or now > closes_at \
                or asked.closed_at is not None:
            raise AnswerRefused("closed")
        assert caller.user is not None, "an answer has a person"
        correct = option_index == question.correct_index
        answer_ms = max(0, round((now - sent_at) * 1000))
        recorded = RecordedAnswer(asked.id, caller.user.id, option_index, correct, answer_ms, now,
                                  question.difficulty if correct else 0)  # boards count quiz answers as daily ones
        try:
            await self.answers.record(recorded, question.id, Item.of(question))
        except records.AlreadyAnswered:
            earlier = await records.get_answer(self.db, asked.id, caller.user.id)
            if earlier is None or earlier.option_index != option_index:
                raise AnswerRefused("already_answered") from None
            correct, answer_ms = earlier.correct, earlier.latency_ms or 0  # a redelivered click: the same verdict
        except QuestionClosed:
            raise AnswerRefused("closed") from None
        return QuizAnswer(correct, speed_points(correct, answer_ms, round_.seconds))

    async def poll_vote(self, person: UserRef, asked_id: int, option_ids: Sequence[int]) -> QuizAnswer | None:
        """A vote in a round's quiz poll, recorded as the button answer would be."""
        asked = await records.get_asked(self.db, asked_id)
        chat = await get_chat(self.db, asked.chat_id) if asked else None
        if asked is None or chat is None or len(option_ids) != 1:
            return None
        caller = replace(await resolve(self.db, self.clock.now(), person), chat=chat)
        position = option_ids[0]
        letter = LETTERS[position] if 0 <= position < len(asked.option_order) else "?"
        return await self.answer(caller, asked, letter)

    # --- the clock -----------------------------------------------------------------------------------

    async def next_moment(self) -> float | None:
        return await rounds.next_due(self.db) if self.ports else None

    async def close_due(self) -> int:
        """Stop answers to every question whose time is up (its own timer: one statement, never behind the
        sends of other rounds); the clock shows the results at the platform's pace."""
        return await rounds.close_due_questions(self.db, self.clock.now())

    async def next_close(self) -> float | None:
        return await rounds.next_close(self.db)

    async def run_due(self) -> int:
        """Move every due round on, a bounded number at once; each claimed first (one worker per round)."""
        due = await rounds.due_rounds(self.db, self.clock.now())
        gate = asyncio.Semaphore(CONCURRENT_ROUNDS)

        async def one(round_id: int) -> None:
            async with gate, self.db.claim("quiz", round_id) as mine:
                if mine:
                    await self._act(round_id)

        results = await asyncio.gather(*(one(round_.id) for round_ in due), return_exceptions=True)
        for round_, result in zip(due, results):
            if isinstance(result, Exception):
                log.error("quiz round %d: its clock failed", round_.id, exc_info=result)
        return len(due)

    async def _act(self, round_id: int) -> None:
        round_ = await rounds.get_round(self.db, round_id)
        now = self.clock.now()
        if round_ is None or round_.state != "running" or round_.due_at > now:
            return  # another tick got here first
        record = await get_chat(self.db, round_.chat_id)
        port = self.ports.get(record.platform) if record else None
        if record is None or port is None:
            return  # its adapter is not running: the round waits for it
        if round_.end_reason == "stopped":
            await self._end(round_, record, port, "stopped")
        elif round_.phase == "asking":
            current = await rounds.current_question(self.db, round_.id, round_.asked)
            if current is None:
                await self._end(round_, record, port, "finished")
            elif current.sent_at is None:  # recorded, never sent (a crash or a failed send): send it now
                await self._send(round_, record, port, current.asked_id)
            else:
                await self._close(round_, record, port, current)
        elif round_.asked >= round_.total:
            await self._end(round_, record, port, "finished")
        else:
            following = round_.question_ids[round_.asked]
            await ready_ids(self.bank, [following])  # a group deck's: its current version (or none: removed)
            if not askable(self.bank, following) and deck_of_question(following) is not None:
                substitute = await self._substitute(round_, following)
                if substitute is None:
                    await self._end(round_, record, port, "stopped")  # its deck removed, or nothing new left in it
                    return
                following = substitute
            question = self.bank.get(following) or self.rng.choice(
                list(self.bank.questions.values()))  # a question gone from the bank since: another one
            asked_id = await rounds.ask_next(self.db, round_, question.id, shuffled_options(question, self.rng), now)
            await self._send(await rounds.get_round(self.db, round_.id) or round_, record, port, asked_id)

    async def _substitute(self, round_: rounds.Round, dropped: str) -> str | None:
        """A replace of the round's deck dropped its next question: another question of the deck as it
        stands now, one the round has neither asked nor planned, so the round goes on to its full length;
        None when the deck was removed (nothing of it may be asked) or has no such question left."""
        deck = deck_of_question(dropped)
        used = {*round_.question_ids, *await rounds.asked_question_ids(self.db, round_.id)}
        fresh = sorted(question.id for question in self.bank.select((round_.topic,) if round_.topic else (),
                                                                    round_.difficulty)
                       if deck_of_question(question.id) == deck and question.id not in used
                       and askable(self.bank, question.id))
        return self.rng.choice(fresh) if fresh else None

    async def _delivery(self, round_: rounds.Round, record: ChatRecord, asked_id: int) -> Delivery | None:
        asked = await records.get_asked(self.db, asked_id)
        await ready_ids(self.bank, [asked.question_id] if asked else [])
        question = self.bank.get(asked.question_id) if asked else None
        if asked is None or question is None:
            return None
        return Delivery(asked, question, asked.position, round_.total, chat_language(record), None)

    async def _send(self, round_: rounds.Round, record: ChatRecord, port: DeliveryPort, asked_id: int) -> None:
        """Send the question; its time starts now. A refused chat ends the round; a failed send is tried again
        at the next tick; an unknown outcome counts as sent (it may be on screen)."""
        delivery = await self._delivery(round_, record, asked_id)
        if delivery is None:
            return
        now = self.clock.now()
        closes_at = now + round_.seconds
        message = round_question_message(self.bank, delivery, round_.seconds, closes_at)
        sender = poll_port(port)
        poll = quiz_poll(delivery, round_.seconds) if sender is not None else None
        ref: str | None = None
        try:
            if sender is not None and poll is not None:
                ref, poll_id = await sender.send_poll(record.address, replace(message, poll=poll))
                await polls.save_poll(self.db, record.platform, poll_id, asked_id)
            else:
                ref = await port.send(record.address, message)
        except (ChatGone, ChatForbidden) as refused:
            log.warning("chat %d: quiz round %d cannot post (%s); it ends", record.id, round_.id, refused)
            await rounds.end_round(self.db, round_, "stopped", now)
            return
        except DeliveryUnknown as unknown:
            log.warning("chat %d: quiz question %d outcome unknown (%s); timed as sent", record.id, asked_id, unknown)
        except DeliveryError as error:
            log.error("chat %d: quiz question %d not sent (%s); retried at the next tick", record.id, asked_id, error)
            return
        if ref is not None:
            await records.set_message_ref(self.db, asked_id, ref)
        # a send that waited for the group's pace still leaves the full time (never less than the message says)
        sent_at = self.clock.now()
        await rounds.question_sent(self.db, round_.id, asked_id, sent_at, max(closes_at, sent_at + round_.seconds))
        self.poke_close()  # its close may be the earliest now

    async def _close(self, round_: rounds.Round, record: ChatRecord, port: DeliveryPort,
                     current: rounds.RoundQuestion) -> None:
        """Close the open question and show its result; end the round after the last question or after two
        in a row that nobody answered."""
        now = self.clock.now()
        answered, right = await rounds.question_stats(self.db, current.asked_id)
        last = round_.asked >= round_.total
        silent = 0 if answered else round_.silent + 1
        ending = last or silent >= SILENT_LIMIT
        await rounds.close_question(self.db, round_, current.asked_id, answered > 0, None if ending else now + GAP_S,
                                    now)
        delivery = await self._delivery(round_, record, current.asked_id)
        if delivery is not None:
            standings = ranking(await rounds.round_answers(self.db, round_.id))
            await self._show_result(record, port, current.asked_id, result_message(self.bank, delivery, answered, right, standings))
        if ending:
            ended = await rounds.get_round(self.db, round_.id)
            await self._end(ended or round_, record, port, "finished" if last else "inactive")

    async def _show_result(self, record: ChatRecord, port: DeliveryPort, asked_id: int, message: Message) -> None:
        """One edit of a button question into its result; under a poll (which cannot be edited), one message."""
        ref = await records.message_ref(self.db, asked_id)
        try:
            closer = poll_port(port) if await polls.poll_of_asked(self.db, asked_id) else None
            if closer is not None and ref is not None:
                await closer.close_poll(record.address, ref)  # its open_period has usually closed it already
                await port.send(record.address, message)
            elif ref is not None:
                await port.edit(record.address, ref, message)
            else:
                await port.send(record.address, message)
        except DeliveryError as error:
            log.warning("chat %d: quiz result of question %d not shown (%s)", record.id, asked_id, error)

    async def _end(self, round_: rounds.Round, record: ChatRecord, port: DeliveryPort, reason: str) -> None:
        """End the round once (its answers join the boards) and post the final ranking."""
        if not await rounds.end_round(self.db, round_, reason, self.clock.now()):
            return
        standings = ranking(await rounds.round_answers(self.db, round_.id))
        message = final_message(chat_language(record), reason, round_.asked, round_.total, standings)
        log.info("chat %d: quiz round %d ended (%s) after %d questions, %d players", record.id, round_.id, reason,
                 round_.asked, len(standings))
        try:
            await port.send(record.address, message)
        except DeliveryError as error:
            log.warning("chat %d: quiz round %d's ranking not shown (%s)", record.id, round_.id, error)
