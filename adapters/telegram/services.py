"""What every handler shares (the core, the port, the admin check, the counters), and Telegram's people
and chats as the core's UserRef and ChatRef. The services hold no conversation state: that is in the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from telegram import Chat, Update, User
from telegram.ext import ContextTypes

from adapters.telegram.admin import AdminCheck
from adapters.common.chat_queue import ChatQueues
from adapters.common.counter import CounterDebouncer
from adapters.common.flood import CommandFlood
from adapters.common.deliver import deliver as deliver_outgoing
from adapters.telegram.delivery import TelegramPort
from bot.core import Core, Outgoing
from bot.domain import ChatRef, UserRef
from bot.text.messages import Message

PLATFORM = "telegram"
SERVICES = "interview_bot"  # the key in application.bot_data


@dataclass(frozen=True)
class Services:
    core: Core
    port: TelegramPort
    admins: AdminCheck
    counters: CounterDebouncer[tuple[int, int, int]]  # (chat id, message id, asked id)
    flood: CommandFlood
    queues: ChatQueues = field(default_factory=ChatQueues)  # replies, per chat, off the update slots


def services(context: ContextTypes.DEFAULT_TYPE) -> Services:
    return context.application.bot_data[SERVICES]


def user_ref(user: User) -> UserRef:
    return UserRef(PLATFORM, str(user.id), user.full_name, user.language_code)


def chat_kind(chat: Chat) -> str:
    if chat.type == Chat.PRIVATE:
        return "private"
    return "channel" if chat.type == Chat.CHANNEL else "group"


def chat_ref(chat: Chat) -> ChatRef:
    return ChatRef(PLATFORM, str(chat.id), chat_kind(chat), chat.title or chat.full_name or "", None)  # type: ignore[arg-type]


def refs(update: Update) -> tuple[UserRef, ChatRef]:
    """The person and the chat of an update that has both."""
    assert update.effective_user is not None and update.effective_chat is not None
    return user_ref(update.effective_user), chat_ref(update.effective_chat)


async def language_of(update: Update, context: ContextTypes.DEFAULT_TYPE) -> str:
    user = user_ref(update.effective_user) if update.effective_user else None
    chat = chat_ref(update.effective_chat) if update.effective_chat else None
    return await services(context).core.language(user, chat)


async def reply(update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message) -> None:
    """Queue `message` for the update's chat behind its earlier replies; returns at once, so the handler
    frees its update slot instead of waiting for the chat's send pace."""
    assert update.effective_chat is not None
    chat_id = update.effective_chat.id
    app = services(context)
    app.queues.submit(chat_id, partial(app.port.post, chat_id, message), busy=partial(busy_note, update, context))


async def busy_note(update: Update, context: ContextTypes.DEFAULT_TYPE) -> object:
    """The one "busy here, try again" a full chat queue sends at its front, in the update's language."""
    assert update.effective_chat is not None
    app = services(context)
    return await app.port.post(update.effective_chat.id, app.core.text(await language_of(update, context),
                                                                       "flood.busy"))


async def reply_key(update: Update, context: ContextTypes.DEFAULT_TYPE, key: str, **values: object) -> None:
    """Reply with one catalog text in the update's language."""
    core = services(context).core
    await reply(update, context, core.text(await language_of(update, context), key, **values))


async def deliver(context: ContextTypes.DEFAULT_TYPE, chat_id: int, outgoing: Outgoing) -> None:
    """Queue one of the core's outgoing messages for the chat; once sent, a question's message ref goes
    back to the core."""
    app = services(context)
    app.queues.submit(chat_id, partial(deliver_outgoing, app.core, partial(app.port.post, chat_id), outgoing))


async def edit(context: ContextTypes.DEFAULT_TYPE, chat_id: int, message_id: int, message: Message) -> None:
    """Queue an edit of a message in the chat, in order with the chat's other sends."""
    app = services(context)
    app.queues.submit(chat_id, partial(app.port.replace, chat_id, message_id, message), key=("edit", message_id))


def counter_edits(core: Core, port: TelegramPort, delay: float) -> CounterDebouncer[tuple[int, int, int]]:
    """The answer counter: the question re-rendered with the store's count, under the port's lock for the
    message, and skipped once it is closed (so it never lands over the reveal)."""

    async def flush(key: tuple[int, int, int]) -> None:
        chat_id, message_id, asked_id = key
        await port.replace_if(chat_id, message_id, lambda: core.daily_question(asked_id))

    return CounterDebouncer(flush, delay)
