"""Commands for a person: interviews, progress, history, review, language and help.

Each handler parses its arguments, makes one core call and replies; a UserError raised by the core
reaches the error handler, which answers with its text.
"""

from __future__ import annotations

import logging
import re
from functools import partial

from telegram import Update
from telegram.ext import ContextTypes

from adapters.telegram.decks import offer_decks
from adapters.telegram.menus import topic_menu
from adapters.telegram.services import deliver, language_of, refs, reply, reply_key, services, user_ref
from bot.text.commands import help_message, welcome_message
from bot.domain import InterviewFilters
from bot.replies import Document
from bot.text.i18n import t
from bot.text.messages import Message, Paragraph

log = logging.getLogger(__name__)
INTERVIEW_LINK = "interview_"  # t.me/<bot>?start=interview_<topic>
NUMBER = re.compile(r"[0-9]{1,6}")  # ASCII digits only: "¹²" is a digit to str.isdigit, not to int()
SECONDS = re.compile(r"[0-9]{1,6}s")
SURE_WORDS = ("sure", "emin")  # the console's --stop-when-sure, in either language


def interview_filters(args: list[str]) -> InterviewFilters | None:
    """`[topic] [count] [seconds]s [sure]` in any order (e.g. `sync 30 60s sure`); None when that is not what
    was typed. `sure` (or `emin`) ends the interview once every topic's level is clear. The numbers' ranges
    are the core's to check (the same on every platform, with a clear message)."""
    topic: str | None = None
    count: int | None = None
    seconds: int | None = None
    sure = False
    for arg in args:
        if arg.lower() in SURE_WORDS:
            if sure:
                return None
            sure = True
        elif NUMBER.fullmatch(arg) and count is None:
            count = int(arg)
        elif SECONDS.fullmatch(arg) and seconds is None:
            seconds = int(arg[:-1])
        elif not arg[:1].isdigit() and topic is None:
            topic = arg
        else:
            return None
    return InterviewFilters(topics=(topic,) if topic else (), count=count or 5, time_limit_s=seconds,
                            stop_when_sure=sure)


async def begin_interview(update: Update, context: ContextTypes.DEFAULT_TYPE, filters: InterviewFilters) -> None:
    user, chat = refs(update)
    outgoing = await services(context).core.start_interview(user, chat, filters)
    log.info("user %s started an interview in chat %s (topics %s)", user.platform_id, chat.platform_id,
             ",".join(filters.topics) or "all")
    await deliver(context, int(chat.platform_id), outgoing)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start [payload]: a welcome and the topic menu at once (or the interview in progress); a deep link
    interview_<topic> starts an interview on that topic."""
    payload = context.args[0] if context.args else ""
    if payload.startswith(INTERVIEW_LINK) and len(payload) > len(INTERVIEW_LINK):
        await begin_interview(update, context, InterviewFilters(topics=(payload[len(INTERVIEW_LINK):],)))
        return
    language = await language_of(update, context)
    await reply(update, context, welcome_message(language))
    user, chat = refs(update)
    current = await services(context).core.current_question(user)
    if current is not None:
        await reply(update, context, Message((Paragraph(t(language, "interview.resumed"), "muted"),)))
        await deliver(context, int(chat.platform_id), current)
    else:
        await reply(update, context, topic_menu(services(context).core.bank, language))


async def interview(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/interview [topic] [count] [seconds]s [sure]: start at once, or choose topic, level and length from menus."""
    if not context.args:
        await reply(update, context, topic_menu(services(context).core.bank, await language_of(update, context)))
        await offer_decks(update, context)
        return
    filters = interview_filters(context.args)
    if filters is None:
        await reply_key(update, context, "help.usage_interview")
        return
    await begin_interview(update, context, filters)


async def stop(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/stop: end the interview early and show its report."""
    report = await services(context).core.stop_interview(user_ref(update.effective_user))  # type: ignore[arg-type]
    if report is None:
        await reply_key(update, context, "interview.none_active")
        return
    await reply(update, context, report)


async def progress(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/progress: accuracy per topic and level, a chart and its text."""
    await reply(update, context, await services(context).core.progress(user_ref(update.effective_user)))  # type: ignore[arg-type]


async def history(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/history: the past interviews."""
    await reply(update, context, await services(context).core.history(user_ref(update.effective_user)))  # type: ignore[arg-type]


async def review(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/review: the missed questions that are due, or when the next one is."""
    user, chat = refs(update)
    await deliver(context, int(chat.platform_id), await services(context).core.review(user, chat))


async def export(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/export: the missed questions as an Anki deck (a document, queued like any reply), or why there is none."""
    app, user = services(context), user_ref(update.effective_user)  # type: ignore[arg-type]
    exported = await app.core.export_missed(user)
    if isinstance(exported, Document):
        chat_id = update.effective_chat.id  # type: ignore[union-attr]
        app.queues.submit(chat_id, partial(app.port.send_document, chat_id, exported))
    else:
        await reply(update, context, exported)


async def language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/language tr|en: the language of this person (in a DM) or of this group."""
    if not context.args or len(context.args) != 1:
        await reply_key(update, context, "help.usage_language")
        return
    user, chat = refs(update)
    text = await services(context).core.set_language(context.args[0].lower(), user, chat)
    await reply(update, context, Message((Paragraph(text),)))


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help: what the bot does here and every command offered here."""
    private = update.effective_chat is not None and update.effective_chat.type == "private"
    await reply(update, context, help_message(await language_of(update, context), "private" if private else "group"))


async def forget(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/forget: what would be deleted, and the button that deletes it."""
    await reply(update, context, await services(context).core.forget_request(user_ref(update.effective_user)))  # type: ignore[arg-type]


async def groups(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/groups: study groups ranked against each other."""
    core = services(context).core
    await reply(update, context, await core.groups_leaderboard(await language_of(update, context)))


async def private_only(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A private-chat command sent in a group."""
    await reply_key(update, context, "help.private_only")


async def group_only(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group command sent in a private chat."""
    await reply_key(update, context, "help.group_only")
