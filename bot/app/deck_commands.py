"""`interview-bot deck list|add|remove|export --chat ID`: a group's decks from the command line, for
operators (who need no administrator's say). The chat is the platform's id of a chat the bot has seen;
`--platform` says which platform where both know that id. Each error is one line and exit 1."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.app.config import Settings
from bot.bank.loader import Bank
from bot.caller import Caller
from bot.decks.library import Library
from bot.decks.names import deck_name
from bot.decks.service import EXPORT_FORMATS, DeckService
from bot.formats.files import write_atomically
from bot.limits import DECK_MAX_BYTES
from bot.replies import Document
from bot.schedule.clock import SystemClock
from bot.store import Database
from bot.store import decks as store
from bot.store.people import ChatRecord, find_chat
from bot.text.plaintext import render_plain

PLATFORMS = ("telegram", "discord")


def add_deck_parser(commands: argparse._SubParsersAction) -> None:
    deck = commands.add_parser("deck", help="a group's own question decks: list, add, remove, export",
                               description="A group's decks, as its administrators manage them with /deck. "
                                           "--chat is the platform's id of a chat the bot has seen.")
    actions = deck.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("list", "the chat's decks: name, questions, who added it, when"),
                       ("add", "add a deck from a file, or replace the one of that name"),
                       ("remove", "remove a deck (answers already given stay on the boards)"),
                       ("export", "write a deck as GIFT or CSV")):
        action = actions.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        action.add_argument("--chat", required=True, metavar="ID", help="the platform's chat id")
        action.add_argument("--platform", choices=PLATFORMS, help="where --chat is (when both platforms know it)")
        if name != "list":
            action.add_argument("name", metavar="NAME", help="the deck's name (1-32 of a-z, 0-9, _ and -)")
        if name == "add":
            action.add_argument("file", type=Path, metavar="FILE",
                                help="bank YAML, GIFT, Moodle XML, OpenTDB JSON or CSV, at most 1 MB")
        if name == "export":
            action.add_argument("--format", dest="fmt", choices=EXPORT_FORMATS, default="gift")
            action.add_argument("--out", type=Path, required=True, metavar="FILE", help="the file to write (- for stdout)")
            action.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
        action.set_defaults(handler=_run)


def _fail(line: str) -> int:
    print(f"interview-bot deck: {line}", file=sys.stderr)
    return 1


def _run(args: argparse.Namespace, settings: Settings) -> int:
    return asyncio.run(_deck(args, settings))


async def _chat(db: Database, chat: str, platform: str | None) -> ChatRecord | str:
    """The chat, or the one line saying why there is none."""
    found = [record for record in [await find_chat(db, name, chat) for name in (platform,) if name]
             or [await find_chat(db, name, chat) for name in PLATFORMS] if record is not None]
    if not found:
        where = f" on {platform}" if platform else ""
        return f"no chat {chat[:40]}{where} is known to the store (the bot must have been used there)"
    if len(found) > 1:
        return f"chat {chat[:40]} is known on {' and '.join(r.platform for r in found)}: add --platform"
    if found[0].kind == "private":
        return f"chat {chat[:40]} is a private chat; decks belong to groups"
    return found[0]


async def _deck(args: argparse.Namespace, settings: Settings) -> int:
    async with await Database.open(settings.db_path) as db:
        record = await _chat(db, args.chat, args.platform)
        if isinstance(record, str):
            return _fail(record)
        decks = DeckService(db, Library(Bank(), db), SystemClock())
        caller = Caller(None, record, "en")
        if args.action == "list":
            print(render_plain(await decks.listing(caller)))
            return 0
        name = deck_name(args.name)
        if name is None:
            return _fail(f"{args.name[:40]!r} is not a deck name: 1-32 of a-z, 0-9, _ and -")
        if args.action == "add":
            return await _add(decks, db, caller, record, name, args.file)
        if args.action == "remove":
            deck = await store.get_deck(db, record.id, name)
            if deck is None or await store.delete_deck(db, deck.id, None, decks.clock.now()) is None:
                return _fail(f"chat {args.chat[:40]} has no deck {name}")
            print(f"removed deck {name} ({deck.count} questions) from chat {args.chat[:40]}")
            return 0
        return await _export(decks, caller, name, args)


async def _add(decks: DeckService, db: Database, caller: Caller, record: ChatRecord, name: str, path: Path) -> int:
    try:
        with path.open("rb") as stream:
            data = stream.read(DECK_MAX_BYTES + 1)
    except OSError as error:
        return _fail(f"{path}: cannot be read: {error.strerror or error}")
    before = await store.get_deck(db, record.id, name)
    reply = render_plain(await decks.add(caller, name, path.name, data, is_admin=True, by="interview-bot deck"))
    after = await store.get_deck(db, record.id, name)
    if after is None or (before is not None and after.version == before.version):
        print("\n".join(line for line in reply.splitlines() if line.strip()), file=sys.stderr)
        return 1
    print(reply.splitlines()[0])
    return 0


async def _export(decks: DeckService, caller: Caller, name: str, args: argparse.Namespace) -> int:
    document = await decks.export(caller, name, args.fmt)
    if not isinstance(document, Document):
        return _fail(render_plain(document).strip())
    if str(args.out) == "-":
        sys.stdout.buffer.write(document.data)
        sys.stdout.flush()
        return 0
    if args.out.exists() and not args.force:
        return _fail(f"{args.out}: exists; choose another --out or add --force to overwrite it")
    try:
        write_atomically(args.out, document.data)
    except OSError as error:
        return _fail(f"{args.out}: cannot be written: {error.strerror or error}")
    print(f"wrote deck {name} ({document.caption.split(': ', 1)[-1].rstrip('.')}) to {args.out}")
    return 0
