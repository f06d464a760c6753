"""Commands for a group: the daily question and its settings (administrators), boards, and the bot's
own membership (removed: subscriptions off; group upgraded to a supergroup: the chat's id follows).
"""

from __future__ import annotations

import logging

from telegram import ChatMember, Update
from telegram.ext import ContextTypes

from adapters.telegram.services import PLATFORM, chat_ref, refs, reply, reply_key, services, user_ref
from bot.core import Core
from bot.decks.names import parse_topic
from bot.text.commands import group_welcome_message
from bot.text.messages import Message, Paragraph

log = logging.getLogger(__name__)
PERIODS = ("week", "month", "all")
POLL = "poll"  # /daily poll, /subscribe ... poll, /settings poll: the question as a native quiz poll
MODES = {POLL: True, "buttons": False}
GONE = (ChatMember.LEFT, ChatMember.BANNED)


async def require_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """True for the group's administrators (and its anonymous admins); others get a short refusal."""
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    assert chat is not None and user is not None
    if message is not None and message.sender_chat is not None and message.sender_chat.id == chat.id:
        return True  # an administrator posting anonymously as the group
    if await services(context).admins.is_admin(chat.id, user.id):
        return True
    log.info("chat %d: user %d is not an administrator: refused", chat.id, user.id)
    await reply_key(update, context, "help.admins_only")
    return False


async def daily(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/daily [topic] [poll]: post a question in this group now (administrators), from `topic` (a bank topic
    or deck:NAME) when given, as a quiz poll with `poll`."""
    if not await require_admin(update, context):
        return
    core, args = services(context).core, list(context.args or [])
    as_poll = bool(args) and args[-1].lower() == POLL
    rest = args[:-1] if as_poll else args
    if len(rest) > 1 or (rest and not is_topic(core, rest[0])):
        await reply_key(update, context, "help.usage_daily")
        return
    _, chat = refs(update)
    if not await core.post_daily_now(chat, as_poll=as_poll, topic=rest[0] if rest else None):
        await reply_key(update, context, "telegram.daily_failed")


def is_topic(core: Core, word: str) -> bool:
    """A bank topic's name, or a group deck as deck:NAME (whether that deck is here is the core's to say)."""
    return word in core.bank.topics or parse_topic(word) is not None


def subscription_args(core: Core, args: list[str]) -> tuple[str, str, str | None, bool | None] | None:
    """`HH:MM [Area/City] [topic] [poll]` as (time, zone, topic, as quiz poll: None keeps the chat's choice);
    None when that is not what was typed. A topic is a bank topic or a group deck, deck:NAME."""
    as_poll = True if args and args[-1].lower() == POLL else None
    if as_poll:
        args = args[:-1]
    if not 1 <= len(args) <= 3:
        return None
    post_time, rest = args[0], args[1:]
    timezone = rest.pop(0) if rest and not is_topic(core, rest[0]) else "UTC"
    topic = rest.pop(0) if rest else None
    return None if rest else (post_time, timezone, topic, as_poll)


async def subscribe(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/subscribe HH:MM [Area/City] [topic] [poll]: when, in which zone, on what and how the daily question comes."""
    if not await require_admin(update, context):
        return
    core = services(context).core
    parsed = subscription_args(core, list(context.args or []))
    if parsed is None:
        await reply_key(update, context, "help.usage_subscribe")
        return
    post_time, timezone, topic, as_poll = parsed
    _, chat = refs(update)
    text = await core.subscribe(chat, post_time, timezone, topic, as_poll=as_poll)
    await reply(update, context, Message((Paragraph(text),)))


async def unsubscribe(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/unsubscribe: no more daily questions here (administrators)."""
    if not await require_admin(update, context):
        return
    _, chat = refs(update)
    await reply(update, context, Message((Paragraph(await services(context).core.unsubscribe(chat)),)))


async def settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings: this group's daily-question settings; /settings poll|buttons: how it comes (administrators)."""
    _, chat = refs(update)
    core = services(context).core
    args = [arg.lower() for arg in context.args or []]
    if not args:
        await reply(update, context, await core.settings(chat))
    elif len(args) != 1 or args[0] not in MODES:
        await reply_key(update, context, "help.usage_settings")
    elif await require_admin(update, context):
        await reply(update, context, Message((Paragraph(await core.set_daily_poll(chat, MODES[args[0]])),)))


async def poll_answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A vote in a quiz poll: the core records it as a button answer if the bot posted that poll (a retracted
    vote, a vote as a chat, or a poll not the bot's counts for nothing). The poll itself shows the result."""
    answer = update.poll_answer
    if answer is None or answer.user is None:
        return
    await services(context).core.poll_answer(user_ref(answer.user), answer.poll_id, answer.option_ids)


async def poll_state(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A poll of the bot's changed (a vote, or it closed): a poll whose send timed out is found this way."""
    poll = update.poll
    if poll is None:
        return
    await services(context).core.poll_seen(PLATFORM, poll.id, poll.question, [option.text for option in poll.options])


async def leaderboard(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/leaderboard [week|month|all]: this group's board."""
    period = (context.args[0].lower() if context.args else "week")
    if period not in PERIODS or len(context.args or []) > 1:
        await reply_key(update, context, "help.usage_leaderboard")
        return
    user, chat = refs(update)
    await reply(update, context, await services(context).core.leaderboard(chat, user, period))  # type: ignore[arg-type]


async def membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot was added to, removed from or blocked in a chat. Added to a group: one short welcome
    (Telegram also sends new_chat_members then; this update alone answers, so it is said once)."""
    changed = update.my_chat_member
    if changed is None:
        return
    core, chat = services(context).core, chat_ref(changed.chat)
    was_in = changed.old_chat_member.status not in GONE
    is_in = changed.new_chat_member.status not in GONE
    if was_in and not is_in:
        log.info("chat %d: the bot was removed (%s)", changed.chat.id, changed.new_chat_member.status)
        if chat.kind == "private":
            await core.stop_interview(user_ref(changed.from_user))
        else:
            await core.unsubscribe(chat)
            await core.bot_left_chat(chat)  # its decks are deleted in 30 days unless the bot is back
    elif is_in and not was_in and chat.kind == "group":
        log.info("chat %d: the bot was added", changed.chat.id)
        await core.bot_joined_chat(chat)
        await reply(update, context, group_welcome_message(await core.language(chat=chat)))


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup with a new id: follow it in the store."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    old, new = str(message.chat.id), str(message.migrate_to_chat_id)
    await services(context).core.move_chat(PLATFORM, old, new)
