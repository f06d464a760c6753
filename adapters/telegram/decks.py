"""/deck in a group: a study group's own questions, brought as a file (issue 29).

    /deck add NAME                the caption of a file, or a reply to a file already in the chat
    /deck list                    the group's decks (anyone)
    /deck remove NAME             asks to confirm with a button (administrators)
    /deck export NAME [gift|csv]  the deck back as a file (anyone)

In a private chat, /deck list shows the decks of the person's groups and /deck export NAME sends one of
them back; the rest are group commands, and the person is told so.

PTB's CommandHandler never sees a caption, so a file with `/deck ...` as its caption comes through
`caption_command` (a MessageHandler on documents); a reply `/deck add NAME` is an ordinary command whose
replied-to message carries the document. Only the command is parsed here: reading the file, checking
it and storing the deck are the core's (bot/decks), and its refusals (a bad name, an unknown deck, a
file with problems) are lines it hands back or UserErrors the error handler answers.

The administrator check comes before the download and the size check before the download too, so a
member's file or an oversize one costs no traffic.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import partial

from telegram import Document as TelegramDocument
from telegram import Update
from telegram.ext import ContextTypes

from adapters.common.uploads import too_large_text, unreadable_text
from adapters.telegram.files import FileRefused, download
from adapters.telegram.group import require_admin
from adapters.telegram.services import language_of, refs, reply, reply_key, services
from bot.decks.names import TOPIC_PREFIX
from bot.replies import Document
from bot.text.messages import Message, Paragraph

log = logging.getLogger(__name__)
ACTIONS = {"add": 1, "remove": 1, "list": 0, "export": 1}  # the action and how many names it takes
FORMATS = ("gift", "csv")
DECKS_OFFERED = 10  # decks named under the /interview menu; /deck list shows them all
CAPTION_COMMAND = re.compile(r"^/deck(?:@(?P<bot>[A-Za-z0-9_]{1,64}))?(?:\s+(?P<rest>.*))?$", re.DOTALL)
CAPTION_PATTERN = r"^/deck(@[A-Za-z0-9_]+)?(\s|$)"  # for the MessageHandler's CaptionRegex filter


@dataclass(frozen=True)
class DeckArgs:
    """What `/deck ACTION [NAME] [FORMAT]` asked for."""

    action: str
    name: str = ""
    fmt: str = "gift"


def deck_args(args: list[str]) -> DeckArgs | None:
    """The action, its deck name and the export format; None when that is not what was typed. Whether
    the name is a good one is the core's to say (the same on every platform)."""
    if not args or args[0].lower() not in ACTIONS:
        return None
    action, rest = args[0].lower(), args[1:]
    fmt = "gift"
    if action == "export" and len(rest) == 2 and rest[1].lower() in FORMATS:
        fmt, rest = rest[1].lower(), rest[:1]
    if len(rest) != ACTIONS[action]:
        return None
    name = rest[0] if rest else ""
    bare = name[len(TOPIC_PREFIX):] if name.lower().startswith(TOPIC_PREFIX) else name  # deck:week-1 is week-1
    return DeckArgs(action, bare, fmt)


def caption_args(caption: str, bot_username: str) -> list[str] | None:
    """The words after `/deck` in a caption; None when the caption is not a /deck command for this bot."""
    match = CAPTION_COMMAND.match(caption.strip())
    if match is None or (match["bot"] and match["bot"].lower() != bot_username.lower()):
        return None
    return (match["rest"] or "").split()


async def deck(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/deck ... as a command (a reply to a file carries the file for `add`)."""
    message = update.effective_message
    replied = message.reply_to_message if message is not None else None
    await run(update, context, list(context.args or []), replied.document if replied is not None else None)


async def caption_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A file whose caption is `/deck add NAME` (or any /deck command: it runs as typed)."""
    message = update.effective_message
    if message is None or message.caption is None:
        return
    args = caption_args(message.caption, context.bot.username)
    if args is None:
        return
    if update.effective_chat is not None and update.effective_chat.type == "private":
        await private(update, context, args)
        return
    await run(update, context, args, message.document)


async def run(update: Update, context: ContextTypes.DEFAULT_TYPE, args: list[str],
              document: TelegramDocument | None) -> None:
    parsed = deck_args(args)
    if parsed is None:
        await reply_key(update, context, "telegram.deck.usage")
    elif parsed.action == "add":
        await add(update, context, parsed.name, document)
    elif parsed.action == "list":
        user, chat = refs(update)
        await reply(update, context, await services(context).core.deck_list(chat, user))
    elif parsed.action == "remove":
        if await require_admin(update, context):
            user, chat = refs(update)
            await reply(update, context, await services(context).core.deck_remove(user, chat, parsed.name, True))
    else:
        await export(update, context, parsed.name, parsed.fmt)


async def add(update: Update, context: ContextTypes.DEFAULT_TYPE, name: str, document: TelegramDocument | None) -> None:
    """Add or replace a deck from the file: administrators only, the size checked before the download."""
    if document is None:
        await reply_key(update, context, "telegram.deck.no_file")
        return
    if not await require_admin(update, context):
        return
    user, chat = refs(update)
    refusal = await services(context).core.deck_add_refusal(user, chat, name, True)
    if refusal is not None:  # a bad name or a full chat: said before anything is downloaded
        await reply(update, context, refusal)
        return
    try:
        received = await download(context.bot, document)
    except FileRefused as refused:
        await refuse_file(update, context, refused)
        return
    log.info("chat %s: user %s uploads deck %r (%d bytes)", chat.platform_id, user.platform_id, name[:40],
             len(received.data))
    await reply(update, context, await services(context).core.deck_add(user, chat, name, received.filename,
                                                                       received.data, True))


async def refuse_file(update: Update, context: ContextTypes.DEFAULT_TYPE, refused: FileRefused) -> None:
    """One line for a file that was not read: too large (nothing downloaded), or not to be had."""
    language = await language_of(update, context)
    text = too_large_text(language, refused.size or 0) if refused.reason == "too_large" else unreadable_text(language)
    await reply(update, context, Message((Paragraph(text),)))


async def export(update: Update, context: ContextTypes.DEFAULT_TYPE, name: str, fmt: str) -> None:
    """The deck as a file in the chat (queued like any reply), or the core's line on why not."""
    app = services(context)
    user, chat = refs(update)
    exported = await app.core.deck_export(user, chat, name, fmt)
    if isinstance(exported, Document):
        chat_id = int(chat.platform_id)
        app.queues.submit(chat_id, partial(app.port.send_document, chat_id, exported))
    else:
        await reply(update, context, exported)


async def in_private(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/deck in a private chat: the person's decks (list, export); adding and removing are the group's."""
    await private(update, context, list(context.args or []))


async def private(update: Update, context: ContextTypes.DEFAULT_TYPE, args: list[str]) -> None:
    parsed = deck_args(args)
    if parsed is not None and parsed.action == "list":
        user, chat = refs(update)
        await reply(update, context, await services(context).core.deck_list(chat, user))
    elif parsed is not None and parsed.action == "export":
        await export(update, context, parsed.name, parsed.fmt)
    else:
        await reply_key(update, context, "telegram.deck.private")


async def offer_decks(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Under the /interview menu (the bank's topics): the decks of the person's groups, as typed to play one."""
    user, _ = refs(update)
    found = await services(context).core.decks_for(user)
    if found:
        shown = ", ".join(f"{TOPIC_PREFIX}{name} ({chat.title})" for chat, name in found[:DECKS_OFFERED])
        await reply_key(update, context, "telegram.deck.yours", decks=shown)
