"""The TelegramPort: every message the bot sends or edits, paced and with Telegram's errors translated.

Handlers' replies and the core's own posts (daily questions, reveals, deadlines) share this one path, so
the flood limits hold for all of them: about 30 messages a second overall, 20 a minute into one group,
about one a second into one private chat (short bursts allowed). A 429 was not delivered, so it is
retried after its retry_after; a timeout after the request left may have been delivered, so a new
message is never resent (DeliveryUnknown), while an edit, being idempotent, may be.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TypeVar

import httpx
from telegram import Bot, InputFile
from telegram import Message as TelegramMessage
from telegram.constants import ParseMode, PollLimit, PollType
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut
from telegram.warnings import PTBDeprecationWarning

from adapters.telegram.transport import TransportClosed, never_left
from adapters.telegram.render import Rendered, render
from bot.lanes import priority
from bot.metrics import count_rate_limited, metered_send
from bot.port import ChatGone, ChatMoved, DeliveryError, DeliveryUnknown
from bot.replies import Document
from bot.text.messages import Message
from bot.schedule.pacing import SlidingWindow
from bot.domain import ChatAddress

log = logging.getLogger(__name__)
T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Pacing:
    """Flood limits as (messages, per seconds); tests shrink the periods instead of sleeping."""

    overall: tuple[int, float] = (29, 1.0)  # in any sliding second, one under Telegram's 30
    group: tuple[int, float] = (19, 60.0)  # in any sliding minute, one under Telegram's 20 per group
    private: tuple[int, float] = (3, 3.0)  # one a second on average, a burst of three
    retries: int = 3  # after a 429, or a request that never left
    max_retry_after: float = 120.0  # a longer flood wait is given up (the caller logs it)
    chats_remembered: int = 10_000
    share: float = 1.0  # this worker's part of the bot's limits (--workers N: 1/N)

    def shared(self, workers: int) -> Pacing:
        """This worker's part when `workers` processes serve one bot: Telegram counts the bot as a whole,
        and any update (so any reply, to any chat) may reach any worker, so every limit is split."""
        if workers <= 1:
            return self

        def part(limit: tuple[int, float]) -> tuple[int, float]:
            return max(1, limit[0] // workers), limit[1]

        return replace(self, overall=part(self.overall), group=part(self.group), private=part(self.private),
                       share=self.share / workers)


class Pacer:
    """Sliding windows, as Telegram counts: the chat's own (groups have negative ids), then the bot's overall."""

    def __init__(self, pacing: Pacing) -> None:
        self.pacing = pacing
        self.overall = SlidingWindow(*pacing.overall)
        self.chats: OrderedDict[int, SlidingWindow] = OrderedDict()

    def _window(self, chat_id: int) -> SlidingWindow:
        window = self.chats.pop(chat_id, None)
        if window is None:
            window = SlidingWindow(*(self.pacing.group if chat_id < 0 else self.pacing.private))
        self.chats[chat_id] = window
        while len(self.chats) > self.pacing.chats_remembered:
            self.chats.popitem(last=False)
        return window

    @contextlib.asynccontextmanager
    async def slot(self, chat_id: int) -> AsyncIterator[None]:
        """Room in both windows for the request made inside; it counts until a window after it ends. The
        current send lane (bot/lanes.py) decides who goes first: replies, then reveals, then the broadcast."""
        rank = priority()
        async with self._window(chat_id).slot(rank), self.overall.slot(rank):
            yield


def parse_ref(ref: str) -> tuple[int, int]:
    """'<chat id>:<message id>' -> the two ids."""
    chat_id, message_id = ref.rsplit(":", 1)
    return int(chat_id), int(message_id)


def make_ref(sent: TelegramMessage) -> str:
    return f"{sent.chat_id}:{sent.message_id}"


def retry_seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def never_sent(error: NetworkError) -> bool:
    """True when the request surely did not reach Telegram (no connection, no free connection)."""
    cause = error.__cause__
    return never_left(cause) or isinstance(cause, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout))


def flood_limited(error: NetworkError) -> bool:
    """A 429 that PTB could not make a RetryAfter of (no retry_after, or 0): refused, so surely not delivered."""
    return error.message.lower().startswith("too many requests")


class TelegramPort:
    """DeliveryPort for Telegram, also used by the handlers for every reply they send."""

    platform = "telegram"
    posts_per_second = 29.0  # a broadcast at the port's own even pace; replies and reveals go ahead of it (lanes)

    def __init__(self, bot: Bot, pacing: Pacing | None = None, sleep: Sleep = asyncio.sleep) -> None:
        self.bot = bot
        self.pacing = pacing or Pacing()
        self.posts_per_second = type(self).posts_per_second * self.pacing.share
        self.pacer = Pacer(self.pacing)
        self.sleep = sleep
        self._locks: dict[tuple[int, int], tuple[asyncio.Lock, int]] = {}

    # --- the DeliveryPort contract ---------------------------------------------------------------

    async def send(self, chat: ChatAddress, message: Message) -> str:
        return await self.post(int(chat.platform_id), message)

    async def edit(self, chat: ChatAddress, ref: str, message: Message) -> None:
        chat_id, message_id = parse_ref(ref)
        await self.replace(chat_id, message_id, message)

    # --- the PollPort contract: native quiz polls -------------------------------------------------

    async def send_poll(self, chat: ChatAddress, message: Message) -> tuple[str, str]:
        """A non-anonymous quiz poll (its votes arrive as poll_answer updates); it closes by itself at the
        reveal when that is within Telegram's open_period, else `close_poll` stops it then."""
        poll = message.poll
        assert poll is not None, "send_poll needs a message with a poll"
        chat_id = int(chat.platform_id)
        period = poll.open_seconds if PollLimit.MIN_OPEN_PERIOD <= poll.open_seconds <= PollLimit.MAX_OPEN_PERIOD \
            else None
        sent = await self._call(chat_id, "sendPoll", lambda: self.bot.send_poll(
            chat_id, poll.question, list(poll.options), is_anonymous=False, type=PollType.QUIZ,
            correct_option_ids=[poll.correct], explanation=poll.explanation or None, open_period=period))
        assert sent.poll is not None
        return make_ref(sent), sent.poll.id

    async def close_poll(self, chat: ChatAddress, ref: str) -> None:
        chat_id, message_id = parse_ref(ref)

        async def stop() -> object:
            try:
                return await self.bot.stop_poll(chat_id, message_id)
            except BadRequest as error:
                if "poll has already been closed" in error.message.lower():
                    return None  # its open_period ran out first: closed, as wanted
                raise

        await self._call(chat_id, "stopPoll", stop, idempotent=True)

    # --- what handlers use -----------------------------------------------------------------------

    async def post(self, chat_id: int, message: Message) -> str:
        """Send a whole message (photo, text parts, buttons on the last); the ref of the last part."""
        rendered = render(message)
        sent: TelegramMessage | None = None
        if rendered.image is not None:
            markup = rendered.keyboard if not rendered.texts else None
            sent = await self._call(chat_id, "sendPhoto", lambda: self.bot.send_photo(
                chat_id, rendered.image, caption=rendered.caption, parse_mode=ParseMode.HTML, reply_markup=markup))
        for number, text in enumerate(rendered.texts, 1):
            markup = rendered.keyboard if number == len(rendered.texts) else None
            sent = await self._send_text(chat_id, text, markup)
        assert sent is not None
        return make_ref(sent)

    async def send_document(self, chat_id: int, document: Document) -> str:
        """Send a file (an exported deck) with its caption, paced like every other message."""
        sent = await self._call(chat_id, "sendDocument", lambda: self.bot.send_document(
            chat_id, InputFile(document.data, filename=document.filename), caption=document.caption[:1024] or None))
        return make_ref(sent)

    async def replace(self, chat_id: int, message_id: int, message: Message) -> None:
        """Edit a message in place (keyboard removed when the message has no buttons)."""
        async with self._lock(chat_id, message_id):
            await self._replace(chat_id, message_id, render(message))

    async def replace_if(self, chat_id: int, message_id: int,
                         build: Callable[[], Awaitable[Message | None]]) -> bool:
        """Edit with what `build` returns, decided under the message's lock (None: leave it alone)."""
        async with self._lock(chat_id, message_id):
            message = await build()
            if message is None:
                return False
            await self._replace(chat_id, message_id, render(message))
            return True

    async def _replace(self, chat_id: int, message_id: int, rendered: Rendered) -> None:
        first, *rest = rendered.texts or (rendered.caption or "…",)
        markup = rendered.keyboard if not rest else None

        async def edit() -> object:
            try:
                return await self.bot.edit_message_text(first, chat_id, message_id, parse_mode=ParseMode.HTML,
                                                        reply_markup=markup)
            except BadRequest as error:
                if "message is not modified" in error.message.lower():
                    return None
                raise

        await self._call(chat_id, "editMessageText", edit, idempotent=True)
        for number, text in enumerate(rest, 1):  # an answer longer than the question: the rest follows
            await self._send_text(chat_id, text, rendered.keyboard if number == len(rest) else None)

    async def _send_text(self, chat_id: int, text: str, markup: object) -> TelegramMessage:
        return await self._call(chat_id, "sendMessage", lambda: self.bot.send_message(
            chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup))  # type: ignore[arg-type]

    @contextlib.asynccontextmanager
    async def _lock(self, chat_id: int, message_id: int) -> AsyncIterator[None]:
        """Edits of one message in order: a late counter edit never lands over a reveal."""
        key = (chat_id, message_id)
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    @metered_send("telegram")
    async def _call(self, chat_id: int, method: str, request: Callable[[], Awaitable[T]], *,
                    idempotent: bool = False) -> T:
        """One paced request; Telegram's errors as the core's delivery errors."""
        for attempt in range(self.pacing.retries + 1):
            try:
                async with self.pacer.slot(chat_id):
                    return await request()
            except RetryAfter as error:
                count_rate_limited("telegram")
                wait = retry_seconds(error)
                log.warning("chat %s: %s flood-limited, retrying in %.1f s (attempt %d)", chat_id, method, wait,
                            attempt + 1)
                if wait > self.pacing.max_retry_after:
                    raise DeliveryError(f"flood wait of {wait:.0f} s is too long") from error
                await self.sleep(wait)
            except ChatMigrated as error:
                raise ChatMoved(str(error.new_chat_id)) from error
            except Forbidden as error:
                raise ChatGone(error.message) from error
            except BadRequest as error:
                if "chat not found" in error.message.lower():
                    raise ChatGone(error.message) from error
                raise DeliveryError(f"{method}: {error.message}") from error
            except (TimedOut, NetworkError) as error:
                if isinstance(error.__cause__, TransportClosed):  # shutting down: nothing left, and nothing will
                    raise DeliveryError(f"{method}: not sent, the connection to Telegram is closed") from error
                if not (idempotent or never_sent(error) or flood_limited(error)):
                    log.warning("chat %s: %s outcome unknown (%s): not resending", chat_id, method, error)
                    raise DeliveryUnknown(f"{method}: {error.message}") from error
                log.warning("chat %s: %s failed (%s), retrying (attempt %d)", chat_id, method, error, attempt + 1)
                await self.sleep(min(2.0**attempt, 10.0) * 0.5)
            except TelegramError as error:
                raise DeliveryError(f"{method}: {error.message}") from error
        raise DeliveryError(f"{method}: gave up after {self.pacing.retries + 1} attempts")
