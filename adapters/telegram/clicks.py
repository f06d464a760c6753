"""Button clicks: an answer (the core decides whether it counts) or a step of the /interview menus."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import ContextTypes

from adapters.telegram.menus import chosen_message, next_menu, parse_menu
from adapters.telegram.services import deliver, language_of, refs, services
from bot.i18n import t
from bot.limits import POPUP_TEXT_MAX

log = logging.getLogger(__name__)


def _popup(text: str) -> str:
    return text if len(text) <= POPUP_TEXT_MAX else text[: POPUP_TEXT_MAX - 1] + "…"


async def answer_click(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """An answer button: the clicker alone sees the verdict; the question is edited or its counter is."""
    query = update.callback_query
    assert query is not None and query.message is not None
    app = services(context)
    user, chat = refs(update)
    reply = await app.core.click(user, chat, query.data or "")
    await query.answer(_popup(reply.popup), show_alert=reply.alert)
    chat_id, message_id = query.message.chat.id, query.message.message_id
    if reply.edit is not None:
        await app.port.replace(chat_id, message_id, reply.edit)
    for outgoing in reply.follow_ups:
        await deliver(context, chat_id, outgoing)
    if reply.counter is not None:
        app.counters.answered(chat_id, message_id, reply.counter[0])


async def menu_click(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A step of the /interview menus: the next menu, or the interview itself."""
    query = update.callback_query
    assert query is not None and query.message is not None
    app = services(context)
    language = await language_of(update, context)
    choice = parse_menu(app.core.bank, query.data or "")
    user, chat = refs(update)
    if choice is None or chat.kind != "private":
        log.info("chat %s: menu click %r refused", chat.platform_id, (query.data or "")[:64])
        await query.answer(t(language, "refusal.unknown"), show_alert=True)
        return
    await query.answer()
    chat_id, message_id = query.message.chat.id, query.message.message_id
    if choice.step != "c":
        await app.port.replace(chat_id, message_id, next_menu(language, choice))
        return
    await app.port.replace(chat_id, message_id, chosen_message(app.core.bank, language, choice))
    outgoing = await app.core.start_interview(user, chat, choice.filters())
    await deliver(context, chat_id, outgoing)
