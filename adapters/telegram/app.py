"""The Telegram bot: a python-telegram-bot Application over the shared Core, and `serve` to run it.

No JobQueue: the core owns the one scheduler. Long polling by default; a webhook with a secret token
when a public URL is given. Every handler is registered in `register`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable
from typing import Any
from urllib.parse import urlsplit

from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats, Update
from telegram.error import TelegramError
from telegram.ext import (Application, ApplicationBuilder, ApplicationHandlerStop, CallbackQueryHandler,
                          ChatMemberHandler, CommandHandler, ContextTypes, MessageHandler, PollAnswerHandler, PollHandler,
                          SimpleUpdateProcessor, TypeHandler, filters)

from adapters.telegram import clicks, decks, group, handlers, menus, quiz
from adapters.telegram.webhook import WebhookReceiver, set_webhook
from adapters.telegram.admin import AdminCheck
from adapters.telegram.delivery import Pacing, Sleep, TelegramPort
from adapters.telegram.errors import on_error
from adapters.telegram.files import files_base
from adapters.common.flood import CommandFlood
from adapters.telegram.services import SERVICES, Services, counter_edits, reply_key, services
from adapters.telegram.transport import AiohttpRequest
from bot.text.commands import COMMANDS, commands_for
from bot.app.config import Settings
from bot.core import Core
from bot.metrics import in_flight

log = logging.getLogger(__name__)
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER, Update.POLL_ANSWER, Update.POLL]
# Updates handled at once. A burst's clicks share the store's write transactions (the answer batch, the
# new members' rows) among the clicks in progress, so the bound is also what one commit can carry: 64
# cost the least per click in a burst (16, 32 and 128 more; docs/benchmarks.md, "Answer burst: our own
# work per click"). aiohttp's pool costs the same per request at any size (httpx's did not:
# adapters/telegram/transport.py), so the pool follows the bound.
CONCURRENT_UPDATES = 64
REQUESTS = "bot_api_requests"  # bot_data key: the application's two AiohttpRequests (sends, getUpdates)
BOOTSTRAP_RETRIES = 5  # deleteWebhook / setWebhook at start-up: a passing network error must not end the process
COMMAND_LANGUAGES = (("en", None), ("tr", "tr"))  # English is the default list, Turkish for tr clients

COMMAND_HANDLERS = {
    "start": handlers.start, "interview": handlers.interview, "stop": handlers.stop,
    "progress": handlers.progress, "history": handlers.history, "review": handlers.review,
    "export": handlers.export,
    "daily": group.daily, "subscribe": group.subscribe, "unsubscribe": group.unsubscribe,
    "settings": group.settings, "leaderboard": group.leaderboard, "groups": handlers.groups,
    "language": handlers.language, "help": handlers.help_command, "forget": handlers.forget,
    "quiz": quiz.quiz, "deck": decks.deck,
}
# A group command's own answer in a private chat, where the general "that works in a group" says too little.
PRIVATE_POINTERS = {"quiz": quiz.in_private, "deck": decks.in_private}


class MeteredUpdates(SimpleUpdateProcessor):
    """PTB's concurrent update processing, with the updates being handled counted for /metrics."""

    __slots__ = ()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        with in_flight("telegram"):
            await coroutine


class HideToken(logging.Filter):
    """httpx logs every request URL, and a Bot API URL holds the token: show it as <token>."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.token in message:
            record.msg, record.args = message.replace(self.token, "<token>"), None
        return True


def hide_token(token: str) -> None:
    logger = logging.getLogger("httpx")
    if not any(isinstance(f, HideToken) and f.token == token for f in logger.filters):
        logger.addFilter(HideToken(token))


def build_application(core: Core, token: str, *, base_url: str | None = None, base_file_url: str | None = None,
                      pacing: Pacing | None = None, sleep: Sleep = asyncio.sleep, counter_delay: float = 5.0,
                      admin_ttl: float = 60.0, request_timeout: float | None = None,
                      flood: CommandFlood | None = None) -> Application:
    """The Application with every handler, its TelegramPort registered with the core."""
    hide_token(token)
    # Updates run concurrently: a reply waiting for its private chat's send slot must not hold up
    # everyone else. The store, not the order of updates, decides what a click counts for. A small
    # bound with a pool to match, over aiohttp (adapters/telegram/transport.py says why).
    builder = (ApplicationBuilder().token(token).job_queue(None).concurrent_updates(MeteredUpdates(CONCURRENT_UPDATES))
               .request(sends := bot_api_request(CONCURRENT_UPDATES + 8, request_timeout))
               .get_updates_request(updates := bot_api_request(1, None)))
    if base_url:
        builder = builder.base_url(base_url)
    if files_url := files_base(base_url, base_file_url):  # files follow the API server (decks are downloaded)
        builder = builder.base_file_url(files_url)
    application = builder.build()
    application.bot_data[REQUESTS] = (sends, updates)
    port = TelegramPort(application.bot, pacing, sleep)
    application.bot_data[SERVICES] = Services(core, port, AdminCheck(application.bot, admin_ttl),
                                              counter_edits(core, port, counter_delay), flood or CommandFlood())
    core.add_port(port)
    register(application)
    return application


def bot_api_request(pool: int, timeout: float | None) -> AiohttpRequest:
    """The HTTP side of Bot API calls: `pool` connections; `timeout`, when given, bounds reading and writing."""
    if timeout is None:
        return AiohttpRequest(pool)
    return AiohttpRequest(pool, read_timeout=timeout, write_timeout=timeout)


def register(application: Application) -> None:
    """Every handler in one place: commands where they belong (a polite pointer elsewhere), clicks,
    membership changes, group migrations, and the one error handler."""
    private, groups = filters.ChatType.PRIVATE, filters.ChatType.GROUPS
    application.add_handler(TypeHandler(Update, guard_floods), group=-1)  # before every other handler
    # Clicks first: PTB tries a group's handlers in order, and no other handler takes a callback query, so a
    # click (the burst after a daily post) no longer goes past some thirty command handlers' checks first.
    application.add_handler(CallbackQueryHandler(clicks.menu_click, pattern=menus.PATTERN))
    application.add_handler(CallbackQueryHandler(clicks.answer_click))
    for command in COMMANDS:
        callback = COMMAND_HANDLERS[command.name]
        here = command.where in ("private", "both")
        elsewhere = PRIVATE_POINTERS.get(command.name, handlers.group_only)
        application.add_handler(CommandHandler(command.name, callback if here else elsewhere, private))
        there = command.where in ("group", "both")
        application.add_handler(CommandHandler(command.name, callback if there else handlers.private_only, groups))
    # A file whose caption is /deck add NAME: CommandHandler never looks at captions.
    application.add_handler(MessageHandler(filters.Document.ALL & filters.CaptionRegex(decks.CAPTION_PATTERN),
                                           decks.caption_command))
    application.add_handler(ChatMemberHandler(group.membership, ChatMemberHandler.MY_CHAT_MEMBER))
    application.add_handler(PollAnswerHandler(group.poll_answer))
    application.add_handler(PollHandler(group.poll_state))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, group.migrated))
    application.add_error_handler(on_error)


async def guard_floods(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A command past its sender's limit gets one "slow down" note, the rest are dropped at once, and a
    person's own request repeated in the same chat while its answer is on the way is dropped (another
    member's same command is theirs and runs): none of them waits for a send slot, so one person's flood
    never holds the update slots everyone else needs."""
    message = update.effective_message
    typed = (message.text or message.caption or "") if message is not None else ""  # a file's caption: /deck add
    if not typed.startswith("/") or update.effective_user is None:
        return
    chat = update.effective_chat.id if update.effective_chat else 0
    verdict = services(context).flood.check(str(update.effective_user.id), str(chat), typed)
    if verdict == "ok":
        return
    if verdict == "note":
        log.info("user %s: commands flooding in chat %s; one note, the rest dropped", update.effective_user.id, chat)
        await reply_key(update, context, "flood.slow_down")  # one per window: the only send a flood costs
    raise ApplicationHandlerStop


async def register_commands(bot: Bot) -> None:
    """The command menus: one for private chats, one for groups, each in English and Turkish."""
    scopes = (("private", BotCommandScopeAllPrivateChats()), ("group", BotCommandScopeAllGroupChats()))
    for where, scope in scopes:
        for language, code in COMMAND_LANGUAGES:
            commands = [BotCommand(command.name, command.description(language)[:256])
                        for command in commands_for(where)]  # type: ignore[arg-type]
            await bot.set_my_commands(commands, scope=scope, language_code=code)


def webhook_secret_for(token: str) -> str:
    """A stable secret derived from the token (never the token itself): letters and digits only."""
    return hashlib.sha256(f"interview-bot webhook:{token}".encode()).hexdigest()


def listen_address(listen: str) -> tuple[str, int]:
    host, _, port = listen.rpartition(":")
    return host or "127.0.0.1", int(port)


def _polling_failed(error: TelegramError) -> None:
    """Polling goes on by itself after a network error: one line, not a traceback every few seconds."""
    log.warning("telegram: getUpdates failed (%s); polling retries", error)


async def serve(core: Core, settings: Settings, stop_event: asyncio.Event, *, base_url: str | None = None,
                webhook: str | None = None, listen: str = "127.0.0.1:8443", webhook_secret: str | None = None,
                workers: int = 1, **options: Any) -> None:
    """Run the bot until `stop_event` is set: long polling, or a webhook when `webhook` is a URL. With
    `workers` > 1 this process is one of that many webhook workers of one bot: it keeps to its share of
    the flood limits."""
    token = settings.telegram_token
    if not token:
        raise ValueError("no Telegram token: set TELEGRAM_BOT_TOKEN")
    options["pacing"] = (options.get("pacing") or Pacing()).shared(workers)
    application = build_application(core, token, base_url=base_url, **options)
    try:
        await _serve(application, token, stop_event, webhook, listen, webhook_secret)
    finally:  # PTB shuts its requests down only after a start-up that reached getMe's answer
        for request in application.bot_data[REQUESTS]:
            await request.shutdown()


async def _serve(application: Application, token: str, stop_event: asyncio.Event, webhook: str | None,
                 listen: str, webhook_secret: str | None) -> None:
    app_services: Services = application.bot_data[SERVICES]
    async with application:  # initialize (getMe) ... shutdown
        try:
            await register_commands(application.bot)
        except TelegramError as error:
            log.warning("setMyCommands failed: %s", error)
        await application.start()
        receiver: WebhookReceiver | None = None
        if webhook:  # our receiver, not PTB's: Telegram gets its 200 only once the update is handled
            host, port = listen_address(listen)
            secret = webhook_secret or webhook_secret_for(token)
            receiver = WebhookReceiver(application, urlsplit(webhook).path, secret)
            await receiver.start(host, port)
            await set_webhook(application, webhook, secret, ALLOWED_UPDATES, BOOTSTRAP_RETRIES)
        else:
            await application.updater.start_polling(  # type: ignore[union-attr]
                allowed_updates=ALLOWED_UPDATES, bootstrap_retries=BOOTSTRAP_RETRIES, error_callback=_polling_failed)
        log.info("telegram: serving as @%s by %s", application.bot.username, "webhook" if webhook else "polling")
        try:
            await stop_event.wait()
        finally:
            log.info("telegram: stopping")
            if receiver is not None:
                await receiver.stop()  # the updates being handled finish and are answered first
            else:
                await application.updater.stop()  # type: ignore[union-attr]
            await application.stop()  # lets the clicks in flight finish first
            await app_services.queues.close()  # queued replies get a few seconds, then are dropped
            await app_services.counters.close()
