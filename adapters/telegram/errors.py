"""The one error handler: a user's mistake gets its text, anything else is logged with its context and
answered with a polite apology; a traceback never reaches a user."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from adapters.telegram.services import language_of, services
from bot.port import ChatGone, DeliveryError
from bot.errors import UserError
from bot.text.i18n import t, user_error_text
from bot.text.messages import Message, Paragraph

log = logging.getLogger(__name__)


def describe(update: object) -> str:
    """Ids only: which update, from whom, where, and what kind."""
    if not isinstance(update, Update):
        return repr(type(update).__name__)
    user = update.effective_user.id if update.effective_user else "-"
    chat = update.effective_chat.id if update.effective_chat else "-"
    if update.callback_query is not None:
        kind = f"click {(update.callback_query.data or '')[:64]!r}"
    elif update.effective_message is not None and (update.effective_message.text or update.effective_message.caption):
        typed = update.effective_message.text or update.effective_message.caption or ""  # a file's caption: /deck
        kind = f"message {(typed.split() or [''])[0][:40]!r}"
    else:
        kind = "update"
    return f"update {update.update_id} ({kind}) from user {user} in chat {chat}"


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log what failed with its context; tell the person what they can do, or that it was our fault."""
    error = context.error
    if isinstance(error, UserError) and isinstance(update, Update):
        log.info("%s: refused (%s)", describe(update), error.key)
        await tell(update, context, user_error_text(await safe_language(update, context), error))
        return
    if isinstance(error, ChatGone):
        log.warning("%s: the chat is gone: %s", describe(update), error)
        return
    level = logging.WARNING if isinstance(error, (DeliveryError, TelegramError)) else logging.ERROR
    log.log(level, "%s failed: %s: %s", describe(update), type(error).__name__, error, exc_info=error)
    if isinstance(update, Update):
        await tell(update, context, t(await safe_language(update, context), "help.something_wrong"))


async def safe_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> str:
    try:
        return await language_of(update, context)
    except Exception as error:  # noqa: BLE001 - the store may be what failed
        log.warning("%s: no language (%s): English", describe(update), error)
        return "en"


async def tell(update: Update, context: ContextTypes.DEFAULT_TYPE, text: str) -> None:
    """A pop-up for a click not yet answered, else a message in the chat; failures here are only logged."""
    try:
        if update.callback_query is not None:
            try:
                await update.callback_query.answer(text[:200], show_alert=True)
                return
            except TelegramError:
                pass  # already answered: say it in the chat instead
        if update.effective_chat is not None:
            await services(context).port.post(update.effective_chat.id, Message((Paragraph(text),)))
    except Exception as error:  # noqa: BLE001 - the error handler must never raise
        log.warning("%s: could not tell the user: %s", describe(update), error)
