"""Button clicks: an answer (the core decides whether it counts) or a step of the /interview menus."""

from __future__ import annotations

import logging

from telegram import CallbackQuery, Update
from telegram.error import BadRequest, NetworkError, RetryAfter
from telegram.ext import ContextTypes

from adapters.telegram.delivery import retry_seconds
from adapters.telegram.menus import chosen_message, next_menu, parse_menu
from adapters.telegram.services import deliver, edit, language_of, refs, services
from bot.text.i18n import language_from_locale, t
from bot.limits import POPUP_TEXT_MAX

log = logging.getLogger(__name__)
POPUP_ATTEMPTS = 3
POPUP_MAX_WAIT = 5.0  # Telegram stops taking an answer some seconds after the click


def _popup(text: str) -> str:
    return text if len(text) <= POPUP_TEXT_MAX else text[: POPUP_TEXT_MAX - 1] + "…"


async def _answer(context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, text: str | None = None,
                  alert: bool = False) -> None:
    """The clicker's pop-up, which never undoes the click: the store has already decided what it counts
    for, so the edit and what follows go out whatever happens here, and an apology would be wrong.

    Answering twice is harmless (Telegram refuses the second answer), so a failed answer is tried again,
    after its retry_after for a 429. A query Telegram no longer takes (too old, or already answered by a
    process that crashed before confirming the update, which then came again) is only logged."""
    for attempt in range(1, POPUP_ATTEMPTS + 1):
        try:
            await query.answer(_popup(text) if text is not None else None, show_alert=alert)
            return
        except RetryAfter as error:
            wait, failure = retry_seconds(error), str(error)
        except BadRequest as error:
            if "query is too old" not in error.message.lower():
                raise
            log.info("click %s: pop-up not shown (%s)", query.id, error.message)
            return
        except NetworkError as error:  # a timeout, a 5xx, a lost or refused connection
            wait, failure = 0.5 * attempt, str(error)
        log.warning("click %s: pop-up failed (%s), attempt %d of %d", query.id, failure, attempt, POPUP_ATTEMPTS)
        if attempt < POPUP_ATTEMPTS:
            await services(context).port.sleep(min(wait, POPUP_MAX_WAIT))


async def answer_click(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """An answer button: the clicker alone sees the verdict; the question is edited or its counter is."""
    query = update.callback_query
    if query is None or query.message is None:  # an inline-mode message (inline_message_id): not ours
        await _refuse_detached(update, context)
        return
    app = services(context)
    user, chat = refs(update)
    reply = await app.core.click(user, chat, query.data or "",
                                 message_ref=f"{query.message.chat.id}:{query.message.message_id}")
    await _answer(context, query, reply.popup, reply.alert)
    chat_id, message_id = query.message.chat.id, query.message.message_id
    if reply.edit is not None:
        await edit(context, chat_id, message_id, reply.edit)
    for outgoing in reply.follow_ups:
        await deliver(context, chat_id, outgoing)
    if reply.counter is not None:
        app.counters.mark((chat_id, message_id, reply.counter[0]))


async def menu_click(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A step of the /interview menus: the next menu, or the interview itself."""
    query = update.callback_query
    if query is None or query.message is None:
        await _refuse_detached(update, context)
        return
    app = services(context)
    language = await language_of(update, context)
    choice = parse_menu(app.core.bank, query.data or "")
    user, chat = refs(update)
    if choice is None or chat.kind != "private":
        log.info("chat %s: menu click %r refused", chat.platform_id, (query.data or "")[:64])
        await _answer(context, query, t(language, "refusal.unknown"), alert=True)
        return
    await _answer(context, query)
    chat_id, message_id = query.message.chat.id, query.message.message_id
    if choice.step != "c":
        await edit(context, chat_id, message_id, next_menu(language, choice))
        return
    await edit(context, chat_id, message_id, chosen_message(app.core.bank, language, choice))
    outgoing = await app.core.start_interview(user, chat, choice.filters())
    await deliver(context, chat_id, outgoing)


async def _refuse_detached(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A click with no message in a chat (an inline message, a forged update): refused politely, nothing recorded."""
    query = update.callback_query
    if query is not None:
        log.info("click %r without a message refused (user %s)", (query.data or "")[:64],
                 query.from_user.id if query.from_user else "?")
        language = language_from_locale(query.from_user.language_code if query.from_user else None) or "en"
        await _answer(context, query, t(language, "refusal.unknown"), True)
