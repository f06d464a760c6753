"""The terminal's records: `progress [--chart FILE.png]`, `history` and `review` for the console user,
what the chats' /progress, /history and /review give.

They read the same store as `console` (the terminal user is one person, `console:<login>`), through the
core's facade only. A review runs like a console interview: letters click the buttons they label.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from adapters.common.deliver import deliver
from adapters.console import ConsolePort, RecordsDeleted, _ask_all, _language, _terminal_user, show
from bot.app.config import Settings
from bot.core import BankError, Core, t
from bot.formats.files import write_atomically


def add_records_parsers(commands: argparse._SubParsersAction) -> None:
    progress = commands.add_parser("progress", help="your accuracy per topic and level (the terminal user)",
                                   description="Accuracy per topic and level over every answer you gave in the "
                                               "terminal; --chart also saves the weekly chart as a PNG.")
    progress.add_argument("--chart", type=Path, metavar="FILE.png", help="save the chart to this file")
    history = commands.add_parser("history", help="your past interviews and reviews (the terminal user)",
                                  description="Your latest interviews and reviews in the terminal, newest first.")
    review = commands.add_parser("review", help="practise the questions you missed, when they are due",
                                 description="A review of the missed questions that are due (spaced repetition), "
                                             "answered like `console`; or when the next one is due.")
    for parser, handler in ((progress, _progress), (history, _history), (review, _review)):
        parser.add_argument("--lang", choices=("tr", "en"), help="language (default: from LANG, else English)")
        parser.set_defaults(handler=lambda args, settings, run=handler: _run(run, args, settings), terminal=True)


def _run(handler, args: argparse.Namespace, settings: Settings) -> int:  # noqa: ANN001
    try:
        return asyncio.run(handler(args, settings))
    except BankError as error:
        print(f"interview-bot: the question bank has problems:\n{error}", file=sys.stderr)
        return 1


async def _progress(args: argparse.Namespace, settings: Settings) -> int:
    user, _ = _terminal_user(_language(args, settings))
    core = await Core.open(settings.db_path, settings.questions_path, scheduled=False)
    try:
        language = await core.language(user)
        message = await core.progress(user)
        print(show(message))
        if args.chart is None:
            return 0
        if message.image is None:
            print(t(language, "terminal.no_chart"), file=sys.stderr)
            return 1
        try:
            write_atomically(args.chart, message.image)
        except OSError as error:
            reason = error.strerror or error
            print(t(language, "terminal.chart_failed", file=args.chart, reason=reason), file=sys.stderr)
            return 1
        print(t(language, "terminal.chart_saved", file=args.chart))
        return 0
    finally:
        await core.close()


async def _history(args: argparse.Namespace, settings: Settings) -> int:
    user, _ = _terminal_user(_language(args, settings))
    core = await Core.open(settings.db_path, settings.questions_path, scheduled=False)
    try:
        print(show(await core.history(user)))
    finally:
        await core.close()
    return 0


async def _review(args: argparse.Namespace, settings: Settings) -> int:
    user, chat = _terminal_user(_language(args, settings))
    core = await Core.open(settings.db_path, settings.questions_path)
    port = ConsolePort(sys.stdout)
    try:
        core.add_port(port)
        await core.start()
        language = await core.language(user)
        outgoing = await core.review(user, chat)
        await deliver(core, lambda message: port.send(chat, message), outgoing)
        if outgoing.asked_id is not None:
            try:
                await _ask_all(core, port, user, chat, language)
            except RecordsDeleted:
                print("\n" + t(language, "console.forgotten"))
                return 1
            print("\n" + t(language, "terminal.data_kept", db=settings.db_path))
    finally:
        await core.close()
    return 0
