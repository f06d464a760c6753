"""Daily questions in group chats: subscriptions, posting (recorded before sent), answers; the reveals
are bot/daily/reveal.py's.

`run_due()` is the heart: given the clock, it posts every scheduled question that is due (within
the grace window, once per chat per local day) and reveals every post whose time has come. The
scheduler only decides when to call it; tests call it with a ManualClock.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from bot.bank.loader import Bank
from bot.bank.poll_fit import PollFit
from bot.schedule.clock import Clock
from bot.caller import Caller, chat_language
from bot.daily.answer import DailyAnswer
from bot.daily.chats import chat_allowed, chat_forbidden, chat_gone
from bot.asking.poll import quiz_poll
from bot.daily.open_posts import OpenPosts
from bot.daily.reveal import Reveals
from bot.daily.votes import PollVotes
from bot.daily.view import daily_question_message, subscription_message
from bot.port import (ChatForbidden, ChatGone, ChatMoved, DeliveryError, DeliveryPort, DeliveryUnknown, poll_port,
                      sends_here)
from bot.domain import AskedQuestion, RecordedAnswer, UserRef
from bot.asking.delivery import Delivery
from bot.text.messages import Message
from bot.errors import AnswerRefused, UserError
from bot.daily.broadcast import broadcast
from bot.daily.choice import choose
from bot.decks.library import ready_ids
from bot.daily.schedule import PostSchedule, chat_zone, schedule_of
from bot.schedule.localtime import local_date, parse_hhmm, zone
from bot.asking.delivery import shuffled_options
from bot.lanes import lane
from bot.learner.items import Item
from bot.review.cards import DEFAULT_RETENTION
from bot.store import daily as posts
from bot.store import interviews as records
from bot.store.answer_batch import AnswerWriter, QuestionClosed
from bot.store.database import Database
from bot.store.people import ChatRecord, get_chat, get_chats, move_chat

log = logging.getLogger(__name__)
GRACE = timedelta(hours=1)  # a post missed while the bot was down is still sent this late
DEFAULT_REVEAL_AFTER = timedelta(hours=12)
REVEAL_MARGIN_S = 60  # a reveal always lands this long before the chat's next post
REVEAL_HOURS = (0.1, 48.0)  # the reveal window an admin may choose


@dataclass(frozen=True)
class RunSummary:
    posted: int = 0
    revealed: int = 0
    failed: int = 0


def _place(caller: Caller) -> ChatRecord:
    assert caller.chat is not None, "daily questions belong to a chat"
    return caller.chat


class DailyService:
    """Subscriptions, posts, answers and reveals for every platform that registered a DeliveryPort."""

    def __init__(self, db: Database, bank: Bank, clock: Clock, ports: dict[str, DeliveryPort] | None = None,
                 rng: random.Random | None = None, grace: timedelta = GRACE,
                 retention: float = DEFAULT_RETENTION) -> None:
        self.db, self.bank, self.clock = db, bank, clock
        self.ports: dict[str, DeliveryPort] = ports if ports is not None else {}
        self.rng = rng or random.Random()
        self.grace = grace
        self.answers = AnswerWriter(db, retention)  # bursts of members' answers share transactions
        self.poll_fit = PollFit()
        self.votes = PollVotes(db, bank, clock, self.answer)
        self.open_posts = OpenPosts()  # what a click on a sent post needs, read once per post
        self.stopping = asyncio.Event()  # set at shutdown (`Core.stop_work`): no post or reveal begins after it
        self.reveals = Reveals(db, bank, clock, self.ports, self.open_posts, self.stopping)

    async def subscribe(self, caller: Caller, post_time: str, timezone: str = "UTC", topic: str | None = None,
                        difficulty: int | None = None, weekdays: tuple[int, ...] | None = None,
                        reveal_after_hours: float | None = None, as_poll: bool | None = None) -> posts.Subscription:
        """Save (or replace) the chat's daily question; UserError with a clear text on bad input.

        The first post is the first instant after (now - grace): subscribing at 09:20 for 09:00 posts
        today's question at once, as a restart within the grace window would. `as_poll` None keeps the
        chat's earlier choice of quiz poll or buttons."""
        reveal_after = DEFAULT_REVEAL_AFTER
        if reveal_after_hours is not None:
            if not REVEAL_HOURS[0] <= reveal_after_hours <= REVEAL_HOURS[1]:
                raise UserError("daily.bad_reveal", hours=reveal_after_hours)
            reveal_after = timedelta(hours=reveal_after_hours)
        at = parse_hhmm(post_time)
        if at is None:
            raise UserError("daily.bad_time", time=post_time)
        if zone(timezone) is None:
            raise UserError("daily.bad_timezone", timezone=timezone)
        topic = (self.bank.topic_named(topic) or topic) if topic else None
        if topic and topic not in self.bank.topics:
            raise UserError("interview.unknown_topic", topic=topic, known=", ".join(sorted(self.bank.topics)))
        if not self.bank.select((topic,) if topic else (), difficulty):
            raise UserError("daily.empty_pool")
        now = self.clock.now()
        record = _place(caller)
        if as_poll is None:
            earlier = await posts.get_subscription(self.db, record.id)
            as_poll = earlier.as_poll if earlier else False
        text = at.strftime("%H:%M")
        schedule = PostSchedule(at, zone(timezone), weekdays)  # type: ignore[arg-type]
        subscription = await posts.save_subscription(
            self.db, record.id, text, timezone, weekdays, topic, difficulty, int(reveal_after.total_seconds()), now,
            schedule.next_after(now - self.grace.total_seconds()), as_poll)
        log.info("chat %d subscribed: %s %s topic=%s", record.id, subscription.post_time, timezone, topic)
        return subscription

    async def unsubscribe(self, caller: Caller) -> bool:
        return await posts.deactivate_subscription(self.db, _place(caller).id, self.clock.now())

    async def set_poll_mode(self, caller: Caller, as_poll: bool) -> bool:
        """The chat's daily question as a quiz poll or with buttons; False when it has no daily question."""
        return await posts.set_poll_mode(self.db, _place(caller).id, as_poll, self.clock.now())

    async def subscription(self, caller: Caller) -> posts.Subscription | None:
        return await posts.get_subscription(self.db, _place(caller).id)

    async def settings(self, caller: Caller) -> Message:
        return subscription_message(self.bank, await self.subscription(caller), caller.language)

    async def post_now(self, caller: Caller, as_poll: bool = False, topic: str | None = None) -> posts.DailyPost | None:
        """A question posted now on request (/daily, `/daily poll`, `/daily deck:NAME`); it does not use up the
        scheduled one. `topic` (a bank topic, or a deck's as the core resolved it) instead of the chat's own."""
        record = _place(caller)
        subscription = await posts.get_subscription(self.db, record.id)
        day = local_date(self.clock.now(), chat_zone(subscription)).isoformat()
        return await self._post(record, subscription, "manual", day, as_poll, topic=topic)

    async def schedule_missing(self) -> int:
        """Give every subscription written before schema v6 its next post instant (once, at start)."""
        now = self.clock.now()
        moments = []
        for subscription in await posts.unscheduled_subscriptions(self.db):
            schedule = schedule_of(subscription)
            if schedule is not None:
                moments.append((subscription.chat_id, schedule.next_after(now - self.grace.total_seconds())))
        await posts.set_next_posts(self.db, moments)
        return len(moments)

    async def next_moment(self) -> float | None:
        """The earliest instant at which a post or a reveal is due, for the daily timer to wake."""
        moments = [moment for moment in (await self.next_post_moment(), await self.next_reveal_moment())
                   if moment is not None]
        return min(moments) if moments else None

    async def next_post_moment(self) -> float | None:
        """The earliest instant at which a scheduled post is due, for the posting timer."""
        return await posts.next_post_moment(self.db, self.ports)

    async def next_reveal_moment(self) -> float | None:
        """The earliest instant at which a reveal is due, for the reveal timer."""
        return await posts.next_reveal_moment(self.db, self.ports)

    async def run_due(self) -> RunSummary:
        """Reveal what is due, then post every scheduled question that is due: each as one paced broadcast."""
        revealed = await self.reveal_due()
        summary = await self.post_due()
        return replace(summary, revealed=revealed)

    async def post_due(self) -> RunSummary:
        """Post every scheduled question that is due, as one paced broadcast in the broadcast lane: people's
        replies and reveals go ahead of its sends (bot/lanes.py)."""
        with lane("broadcast"):
            return await self._post_due()

    async def _post_due(self) -> RunSummary:
        now = self.clock.now()
        due = await posts.due_subscriptions(self.db, now, self.ports)
        chats = await get_chats(self.db, [subscription.chat_id for subscription in due])
        work: list[tuple[str, tuple[ChatRecord, posts.Subscription, str]]] = []
        advanced: list[tuple[int, float | None]] = []
        grace = self.grace.total_seconds()
        for subscription in due:
            schedule, record = schedule_of(subscription), chats.get(subscription.chat_id)
            moment = subscription.next_post_at or now
            if record is not None and not sends_here(self.ports.get(record.platform), record.address, now - moment):
                continue  # another process's chat (a shard it runs): left due for it
            if schedule is not None and (slot := schedule.slot_to_post(moment, now, grace)) != moment:
                log.warning("chat %d: the post due at %.0f was missed; posting the one due at %.0f",
                            subscription.chat_id, moment, slot)
                moment = slot
            advanced.append((subscription.chat_id, schedule.next_after(max(now, moment)) if schedule else None))
            if schedule is None or record is None:
                continue
            if now <= moment + grace:
                work.append((record.platform, (record, subscription, schedule.local_day(moment))))
            else:
                log.warning("chat %d: the post due at %.0f is past its grace window; skipped", record.id, moment)
        rates = {name: port.posts_per_second for name, port in self.ports.items()}
        # chats whose post this process claimed: the others were another worker's (it moves them on, or, if it
        # dies, we do) or not reached before a stop (due for the next start)
        settled: set[int] = set()
        results = await broadcast(
            work, rates, lambda item: self._post(*item[:2], "scheduled", item[2], settled=settled), self.stopping)
        # after the posts: a crash mid-broadcast retries the rest; a subscription changed meanwhile keeps its change
        worked = {item[0].id for _, item in work}
        advanced = [(chat_id, moment) for chat_id, moment in advanced if chat_id not in worked or chat_id in settled]
        await posts.set_next_posts(self.db, advanced, {s.chat_id: s.next_post_at for s in due})
        sent = [post for post in results if post is not None]
        failed = sum(1 for post in sent if post.state == "failed")
        return RunSummary(len(sent) - failed, 0, failed)

    def _reveal_at(self, subscription: posts.Subscription | None, now: float) -> float:
        """The reveal instant: after the chat's reveal window, and always before its next post."""
        reveal_after = subscription.reveal_after_s if subscription else DEFAULT_REVEAL_AFTER.total_seconds()
        reveal_at = now + reveal_after
        schedule = schedule_of(subscription) if subscription else None
        if schedule is not None:
            reveal_at = min(reveal_at, schedule.next_after(now + 1) - REVEAL_MARGIN_S)
        return max(reveal_at, now + REVEAL_MARGIN_S)

    async def _post(self, record: ChatRecord, subscription: posts.Subscription | None, kind: str,
                    day: str, as_poll: bool = False, settled: set[int] | None = None,
                    topic: str | None = None) -> posts.DailyPost | None:
        """A scheduled post is claimed first: of several workers that find it due, one posts it, and one
        that comes after finds it made (and must not reveal it as an 'earlier' post). A chat claimed here
        goes into `settled`; one claimed by another worker stays due, so that if that worker dies before
        posting, the next tick here posts it."""
        if kind != "scheduled":
            return await self._post_claimed(record, subscription, kind, day, as_poll, topic)
        async with self.db.claim("post", record.id) as mine:
            if mine and settled is not None:
                settled.add(record.id)
            if not mine or await posts.has_scheduled_post(self.db, record.id, day):
                return None
            return await self._post_claimed(record, subscription, kind, day, as_poll)

    async def _post_claimed(self, record: ChatRecord, subscription: posts.Subscription | None, kind: str,
                            day: str, as_poll: bool = False, topic: str | None = None) -> posts.DailyPost | None:
        """Reveal the chat's open posts, record the new post, then send it; None if already posted.
        As a quiz poll when asked for (or the chat chose polls), the platform has them and the question fits."""
        port = self.ports.get(record.platform)
        if port is None:
            log.error("no delivery port for platform %s (chat %d)", record.platform, record.id)
            return None
        for earlier in await posts.open_posts_of_chat(self.db, record.id):
            await self.reveal(earlier)
        now = self.clock.now()
        language = chat_language(record)
        wants_poll = (as_poll or (subscription is not None and subscription.as_poll)) and poll_port(port) is not None
        fits = (lambda question: self.poll_fit(question, language)) if wants_poll else None
        question, unfit = await choose(self.bank, self.rng, subscription, await posts.asked_in_chat(self.db, record.id),
                                       fits, topic)
        if question is None:
            log.warning("chat %d: no question matches its filter", record.id)
            return None
        post = await posts.create_post(self.db, record.id, question.id, shuffled_options(question, self.rng), kind,
                                       day, self._reveal_at(subscription, now), now)
        if post is None:
            log.info("chat %d already has its %s post: not posting twice", record.id, day)
            return None
        asked = await records.get_asked(self.db, post.asked_id)
        assert asked is not None
        delivery = Delivery(asked, question, 1, 1, language, None)
        message = daily_question_message(self.bank, delivery, 0, chat_zone(subscription), no_poll_fits=unfit)
        if wants_poll:
            message = replace(message, poll=quiz_poll(delivery, int(post.reveal_at - now)))
        state, error = await self._send(port, record, message, post)
        await posts.mark_post(self.db, post.id, state, self.clock.now(), error)
        log.info("chat %d: daily post %d (asked %d) %s", record.id, post.id, post.asked_id, state)
        return await posts.get_post(self.db, post.id)

    async def _send(self, port: DeliveryPort, record: ChatRecord, message, post: posts.DailyPost) -> tuple[str, str | None]:
        """Send once; follow a moved chat once; never resend after an unknown outcome. A chat that refuses the
        bot pauses its daily question; a post that gets through resumes it."""
        for _attempt in range(2):
            try:
                sender = poll_port(port) if message.poll is not None else None
                if sender is not None:
                    ref, poll_id = await sender.send_poll(record.address, message)
                    await self.votes.link(record.platform, poll_id, post.asked_id)
                else:
                    ref = await port.send(record.address, message)
            except ChatMoved as moved:
                await move_chat(self.db, record.platform, record.platform_chat_id, moved.new_platform_id)
                log.warning("chat %d moved to %s; sending there", record.id, moved.new_platform_id)
                record = await get_chat(self.db, record.id) or record
                continue
            except ChatGone as gone:
                await chat_gone(self.db, record, self.clock.now(), f"post {post.id}: {gone}")
                return "failed", f"gone: {gone}"
            except ChatForbidden as forbidden:
                await chat_forbidden(self.db, record, self.clock.now(), f"post {post.id}: {forbidden}")
                return "failed", f"forbidden: {forbidden}"
            except DeliveryUnknown as unknown:
                log.warning("chat %d: post %d outcome unknown (%s); not resending", record.id, post.id, unknown)
                return "unknown", str(unknown)
            except DeliveryError as error:
                log.error("chat %d: post %d failed: %s", record.id, post.id, error)
                return "failed", str(error)
            await records.set_message_ref(self.db, post.asked_id, ref)
            await chat_allowed(self.db, record, self.clock.now())
            return "sent", None
        return "failed", "chat moved more than once"

    async def answer(self, caller: Caller, asked: AskedQuestion, letter: str,
                     message_ref: str | None = None) -> DailyAnswer:
        """Record a member's first answer to an open daily question; AnswerRefused otherwise.

        It counts only in the chat the question was posted to: a click carried into another chat
        (a forged button, a forwarded message) is refused. Given where the question was posted
        (`message_ref`), a sent post is remembered for the clicks that follow (bot/daily/open_posts.py)."""
        if asked.interview_id is not None:
            raise AnswerRefused("unknown")
        known = self.open_posts.get(asked.id, self.clock.now())
        post = known.post if known is not None else await posts.post_of_asked(self.db, asked.id)
        record = caller.chat
        await ready_ids(self.bank, [asked.question_id])
        question = self.bank.get(asked.question_id)
        if post is None or question is None:
            raise AnswerRefused("unknown")
        if record is None or record.id != asked.chat_id:
            raise AnswerRefused("wrong_chat")
        option_index = asked.option_index_of(letter)
        if option_index is None:
            raise AnswerRefused("unknown")
        now = self.clock.now()
        if not self._open(post, now) or asked.closed_at is not None:
            raise AnswerRefused("closed")
        if known is None:
            self.open_posts.remember(asked, message_ref, post, now)
        person = caller.user
        assert person is not None, "an answer has a person"
        correct = option_index == question.correct_index
        started = post.sent_at or asked.asked_at
        answer = RecordedAnswer(asked.id, person.id, option_index, correct, max(0, round((now - started) * 1000)),
                                now, question.difficulty if correct else 0)
        try:
            answered = await self.answers.record(answer, question.id, Item.of(question))
        except records.AlreadyAnswered:
            earlier = await records.get_answer(self.db, asked.id, person.id)
            if earlier is None or earlier.option_index != option_index:
                raise AnswerRefused("already_answered") from None
            # The same click again (a platform redelivering it after a crash): the same verdict, nothing new.
            correct = earlier.correct
            answered = (await posts.post_stats(self.db, asked.id, fastest=0)).answered
        except QuestionClosed:
            raise AnswerRefused("closed") from None
        return DailyAnswer(correct, answered, asked.id)

    async def answers_so_far(self, asked_id: int) -> int | None:
        """How many members answered an open daily question; None once it is closed (or is not one)."""
        post = await posts.post_of_asked(self.db, asked_id)
        if post is None or not self._open(post, self.clock.now()):
            return None
        return (await posts.post_stats(self.db, asked_id, fastest=0)).answered

    async def question_view(self, asked_id: int) -> Message | None:
        """The open daily question as posted, with its current answer count; None once closed."""
        asked = await records.get_asked(self.db, asked_id)
        await ready_ids(self.bank, [asked.question_id] if asked else [])
        question = self.bank.get(asked.question_id) if asked else None
        record = await get_chat(self.db, asked.chat_id) if asked else None
        post = await posts.post_of_asked(self.db, asked_id) if asked else None
        if asked is None or question is None or record is None or post is None or asked.closed_at is not None:
            return None
        if not self._open(post, self.clock.now()):
            return None
        stats = await posts.post_stats(self.db, asked_id, fastest=0)
        language = chat_language(record)
        delivery = Delivery(asked, question, 1, 1, language, None)
        subscription = await posts.get_subscription(self.db, record.id)
        port = self.ports.get(record.platform)
        unfit = (subscription is not None and subscription.as_poll and port is not None
                 and poll_port(port) is not None and not self.poll_fit(question, language))
        return daily_question_message(self.bank, delivery, stats.answered, chat_zone(subscription), no_poll_fits=unfit)

    async def reveal_due(self) -> int:
        """Every reveal that is due, as one paced broadcast."""
        return await self.reveals.due()

    async def reveal(self, post: posts.DailyPost) -> bool:
        return await self.reveals.reveal(post)

    async def poll_answer(self, person: UserRef, poll_id: str, option_ids: Sequence[int]) -> DailyAnswer | None:
        """A vote in a quiz poll the bot posted, as a button answer (bot/daily/votes.py)."""
        return await self.votes.vote(person, poll_id, option_ids)

    async def poll_seen(self, platform: str, poll_id: str, question: str, options: Sequence[str]) -> bool:
        """A poll of the bot's shown by the platform: links a poll whose send outcome was unknown."""
        return await self.votes.seen(platform, poll_id, question, options)

    @staticmethod
    def _open(post: posts.DailyPost, now: float) -> bool:
        """A post takes answers until its reveal: sent (or maybe sent), and its reveal instant not passed."""
        return post.state not in ("revealed", "failed") and now <= post.reveal_at
