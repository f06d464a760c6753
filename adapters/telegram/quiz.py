"""/quiz in a group: start a live round, or stop one (its starter or an administrator).

Only the command is parsed here. The round is the core's: its one timer posts each question (a native
quiz poll with Telegram's own countdown where the question fits one, else buttons and the closing time),
closes it and posts the ranking, and clicks and poll votes reach it through the usual answer handlers.
A refusal (a second round, a count or time out of range, an unknown topic, a stop by someone who may
not) is the core's UserError, which the error handler answers in one line.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from telegram import Chat, Update
from telegram.ext import ContextTypes

from adapters.telegram.services import refs, reply, reply_key, services

log = logging.getLogger(__name__)
STOP = "stop"
NUMBER = re.compile(r"[0-9]{1,6}")  # ASCII digits only, as /interview's
SECONDS = re.compile(r"[0-9]{1,6}s")


@dataclass(frozen=True)
class QuizArgs:
    """What `/quiz [topic] [questions] [seconds]` asked for; None leaves the core's default (10 and 20 s)."""

    topic: str | None = None
    count: int | None = None
    seconds: int | None = None

    def given_numbers(self) -> dict[str, int]:
        return {name: value for name, value in (("count", self.count), ("seconds", self.seconds)) if value is not None}


def quiz_args(args: list[str]) -> QuizArgs | None:
    """`[topic] [questions] [seconds]` in any order: the first bare number is the count, a second one or
    `20s` the seconds (e.g. `sync 10 20s`, `sync 10 20`); None when that is not what was typed. The
    ranges are the core's to check (the same on every platform, with a clear message)."""
    topic: str | None = None
    count: int | None = None
    seconds: int | None = None
    for arg in args:
        if SECONDS.fullmatch(arg.lower()) and seconds is None:
            seconds = int(arg[:-1])
        elif NUMBER.fullmatch(arg) and count is None:
            count = int(arg)
        elif NUMBER.fullmatch(arg) and seconds is None:
            seconds = int(arg)
        elif not arg[:1].isdigit() and topic is None:
            topic = arg
        else:
            return None
    return QuizArgs(topic, count, seconds)


async def may_stop_any(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Whether the sender administers this group (an anonymous administrator posting as the group does)."""
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    if chat is None or user is None or chat.type == Chat.PRIVATE:
        return False
    if message is not None and message.sender_chat is not None and message.sender_chat.id == chat.id:
        return True
    return await services(context).admins.is_admin(chat.id, user.id)


async def quiz(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/quiz [topic] [questions] [seconds]: a live round in this group; /quiz stop ends it."""
    args = list(context.args or [])
    if [arg.lower() for arg in args] == [STOP]:
        await stop_round(update, context)
        return
    parsed = quiz_args(args)
    if parsed is None:
        await reply_key(update, context, "quiz.usage")
        return
    user, chat = refs(update)
    started = await services(context).core.start_quiz(user, chat, parsed.topic, **parsed.given_numbers())
    log.info("chat %s: user %s started a quiz round", chat.platform_id, user.platform_id)
    await reply(update, context, started)


async def stop_round(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/quiz stop: the round's starter or an administrator ends it; the ranking follows from the round's clock."""
    user, chat = refs(update)
    stopping = await services(context).core.stop_quiz(user, chat, is_admin=await may_stop_any(update, context))
    await reply(update, context, stopping)


async def in_private(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/quiz in a private chat: rounds are played in groups; /interview is the private way (nothing stored)."""
    await reply_key(update, context, "quiz.group_only")
