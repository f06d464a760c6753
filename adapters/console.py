"""The console adapter: a mock interview in the terminal, or scripted one answer letter per line.

It is a platform like the chats: it enters through the core's facade only, "clicks" the button whose
label starts with the typed letter, and prints the core's neutral messages as plain text. Its own
delivery port prints what the core sends without a user event, so a timed question closes on time
(the core's timer), even while the terminal waits for a line.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import random
import shutil
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, TextIO

from adapters.common.deliver import deliver
from adapters.console_json import report_json
from bot.app.config import Settings
from bot.core import (SENIORITIES, BankError, ChatRef, CommandHint, Core, InterviewFilters, Message,
                      UserError, UserRef, counted, is_store_failure, language_from_locale, render_plain,
                      strip_control, t, this_process)

PLATFORM = "console"
HOLDER = this_process(PLATFORM)  # one live interview per person and store: this terminal's name on it
QUIT = ("q", "quit", "exit")
STOP_WINDOW_S = 2.0  # after a first Ctrl-C, a second one this soon stops the interview instead of keeping it


def _width() -> int:
    """Wrap prose to the terminal, within readable bounds."""
    return max(50, min(100, shutil.get_terminal_size((100, 40)).columns - 1))


def console_command(hint: CommandHint) -> str | None:
    """A next step as the terminal runs it (`interview-bot review` is in adapters/console_records.py)."""
    if hint.name == "review":
        return "interview-bot review"
    if hint.name != "interview":
        return None
    return f"interview-bot console --topic {hint.argument}" if hint.argument else "interview-bot console"


def show(message: Message) -> str:
    """A message as the terminal prints it: plain text, wrapped, commands as terminal commands, and no
    control character (a second guard: the bank refuses them already)."""
    return strip_control(render_plain(message, with_buttons=False, width=_width(), commands=console_command))


def option_line(label: str) -> str:
    """A button's "A. text" as the option lines of a long question print theirs ("a) text"), so one
    interview shows one style, in the letters the user types."""
    letter, dot, text = label.partition(". ")
    return f"{letter.lower()}) {text}" if dot and len(letter) == 1 else label


def add_console_parser(commands: argparse._SubParsersAction) -> None:
    console = commands.add_parser(
        "console", help="a mock interview in this terminal (no token needed)",
        description="A mock interview in this terminal. Type a letter to answer, q to stop. When stdin is "
                    "not a terminal, one answer letter is read per line, so it can be scripted.",
    )
    console.add_argument("--topic", action="append", default=[], metavar="TOPIC",
                         help="only this topic (repeatable, or comma-separated); see `questions stats`")
    console.add_argument("--count", type=int, default=5, metavar="N", help="number of questions, 1-30 (default 5)")
    console.add_argument("--difficulty", type=int, choices=(1, 2, 3),
                         help="only this difficulty (pins it: the interview does not adapt)")
    console.add_argument("--adaptive", action="store_true", default=None,
                         help="each question chosen at your current level (the default unless --difficulty "
                              "or --seed is given)")
    console.add_argument("--stop-when-sure", action="store_true",
                         help="end before --count (after at least 5 answers) once every topic's level is at "
                              "least 90%% sure; --count is then the most it asks (adaptive or pinned level)")
    console.add_argument("--seniority", choices=SENIORITIES, help="only this seniority")
    console.add_argument("--time-limit", type=int, metavar="SECONDS", help="seconds per question (default: none)")
    console.add_argument("--lang", choices=("tr", "en"), help="language (default: from LANG, else English)")
    console.add_argument("--seed", type=int, help="seed the choice and order of questions (repeatable runs; "
                                                  "not adaptive unless --adaptive)")
    console.add_argument("--json", action="store_true",
                         help="print the final report as one JSON object on stdout (the interview goes to stderr)")
    console.add_argument("--resume", action="store_true", help="carry on with your unfinished interview")
    console.add_argument("--takeover", action="store_true",
                         help="move your interview running in another terminal here (that one is told at its "
                              "next keypress); one interview runs per person at a time")
    console.set_defaults(handler=run_console, terminal=True)


def add_forget_parser(commands: argparse._SubParsersAction) -> None:
    forget = commands.add_parser(
        "forget", help="delete everything stored about you (the terminal user)",
        description="Delete every interview, answer, review card and setting stored about you (the terminal "
                    "user) in the database; asks for 'yes' first unless --yes is given.")
    forget.add_argument("--yes", action="store_true", help="do not ask")
    forget.set_defaults(handler=run_forget, terminal=True)


def run_forget(args: argparse.Namespace, settings: Settings) -> int:
    return asyncio.run(_forget(args, settings))


async def _forget(args: argparse.Namespace, settings: Settings) -> int:
    user, _ = _terminal_user(_language(args, settings))
    core = await Core.open(settings.db_path, settings.questions_path, scheduled=False)
    try:
        language = await core.language(user)
        if not args.yes:
            print(core.text(language, "forget.ask").blocks[0].text)  # type: ignore[union-attr]
            print(t(language, "forget.terminal_ask", user=user.platform_id, db=core.db.path), end="", flush=True)
            if sys.stdin.readline().strip().lower() not in ("yes", "evet"):
                print(t(language, "forget.terminal_kept"))
                return 1
        forgotten = await core.forget(user)
        print(t(language, "forget.done" if forgotten is not None else "forget.nothing"))
    finally:
        await core.close()
    return 0


def run_console(args: argparse.Namespace, settings: Settings) -> int:
    if args.count < 1:
        print("interview-bot console: --count must be at least 1", file=sys.stderr)
        return 2
    session = Session(_language(args, settings))
    try:
        return asyncio.run(_interview(args, settings, session))
    except BankError as error:
        print(f"interview-bot: the question bank has problems:\n{error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: the interview is kept for --resume; a second one stops it
        return _interrupted(args, settings, session)
    except Exception as error:  # noqa: BLE001 - a store failure is one line; anything else is a bug, raised
        if not is_store_failure(error):
            raise
        return _store_failed(error, session)


def _store_failed(error: BaseException, session: Session) -> int:
    """One line for a store that failed mid-run: whether the last answer was saved, and that --resume carries on."""
    reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
    saved = True if getattr(error, "answer_saved", False) else session.saved
    answer = {None: "console.no_answer", True: "console.answer_saved", False: "console.answer_not_saved"}[saved]
    print("\n" + t(session.language, "console.store_failed", error=reason, answer=t(session.language, answer)),
          file=sys.stderr)
    return 1


def _language(args: argparse.Namespace, settings: Settings) -> str:
    """--lang, else a language chosen in the settings, else the terminal's LANG, else English."""
    if getattr(args, "lang", None):
        return args.lang
    if settings.language_chosen:
        return settings.default_language
    return language_from_locale(os.environ.get("LANG")) or settings.default_language


def _terminal_user(language: str) -> tuple[UserRef, ChatRef]:
    user = UserRef(PLATFORM, getpass.getuser(), getpass.getuser(), language)
    return user, ChatRef(PLATFORM, f"terminal:{user.platform_id}", "private", "terminal", language)


@dataclass
class Session:
    """What the Ctrl-C handler needs to know of a console run: the language, and whether an interview is live."""

    language: str
    live: bool = False
    saved: bool | None = None  # the last answer: None before any, False while it is being recorded


def _interrupted(args: argparse.Namespace, settings: Settings, session: Session) -> int:
    """The first Ctrl-C keeps the interview for --resume (the README's promise); a second one within
    STOP_WINDOW_S stops it with its report, as `q` does."""
    out = sys.stderr if args.json else sys.stdout
    if not session.live:
        print(file=out)
        return 130
    try:
        print("\n" + t(session.language, "console.kept"), file=out, flush=True)
        time.sleep(STOP_WINDOW_S)
    except KeyboardInterrupt:
        return asyncio.run(_stop(args, settings))
    return 130


async def _stop(args: argparse.Namespace, settings: Settings) -> int:
    out = sys.stderr if args.json else sys.stdout
    user, _ = _terminal_user(_language(args, settings))
    core = await Core.open(settings.db_path, settings.questions_path, scheduled=False)
    try:
        language = await core.language(user)
        print("\n" + t(language, "console.quit"), file=out)
        stopped = await core.stop_interview(user, HOLDER)
        if stopped is not None:
            print("\n" + show(stopped), file=out)
            report = await core.latest_report(user, HOLDER)
            if args.json and report is not None:
                print(json.dumps(report_json(report), ensure_ascii=False))
    finally:
        await core.close()
    return 130


class RecordsDeleted(Exception):
    """The person's records were deleted (`forget`, from another terminal) while this run asked them
    questions: there is no interview left to answer or report, only one line to say why it ended."""


class ConsolePort:
    """The terminal as a delivery port: what the core sends (a timed-out question's result, the next
    question, the report) is printed, and the letters of its buttons become what the user may type."""

    platform = PLATFORM
    posts_per_second = 1000.0

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.buttons: dict[str, str] = {}  # letter -> token of the question on screen
        self.changed = asyncio.Event()  # the core printed something on its own (a deadline passed)
        self._sent = 0

    def show(self, message: Message) -> None:
        print("\n" + show(message), file=self.out, flush=True)
        options = [button for row in message.buttons for button in row]
        if options:
            self.buttons = {button.label[:1].lower(): button.token for button in options}
            for button in options:
                if len(button.label) > 1:  # short options travel on the buttons: list them as lines
                    print("  " + strip_control(option_line(button.label)), file=self.out)

    async def send(self, chat: Any, message: Message) -> str:
        self.show(message)
        self.changed.set()
        self._sent += 1
        return f"console:{self._sent}"

    async def edit(self, chat: Any, ref: str, message: Message) -> None:
        self.show(message)
        self.changed.set()


class LineReader:
    """Lines from stdin on a daemon thread, so the event loop (and the core's timer) runs while a user thinks."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[str] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def read() -> None:
            while True:
                line = sys.stdin.readline()
                try:
                    loop.call_soon_threadsafe(self.lines.put_nowait, line)
                except RuntimeError:  # the loop is closed (Ctrl-C, the end): nobody waits for lines any more
                    return
                if not line:
                    return

        threading.Thread(target=read, name="console stdin", daemon=True).start()


async def _interview(args: argparse.Namespace, settings: Settings, session: Session) -> int:
    out = sys.stderr if args.json else sys.stdout
    user, chat = _terminal_user(_language(args, settings))
    filters = InterviewFilters(topics=tuple(p.strip() for ts in args.topic for p in ts.split(",") if p.strip()),
                               difficulty=args.difficulty, seniority=args.seniority, count=args.count,
                               time_limit_s=args.time_limit, repeatable=args.seed is not None,
                               adaptive=args.adaptive, stop_when_sure=args.stop_when_sure)
    core = await Core.open(settings.db_path, settings.questions_path, rng=random.Random(args.seed),
                           review_retention=settings.review_retention)
    port = ConsolePort(out)
    try:
        core.add_port(port)
        await core.start()
        language = await core.language(user)
        session.language = language
        try:
            unfinished = await core.current_question(user)
            current = await core.resume_interview(user, HOLDER, args.takeover) if args.resume or args.takeover \
                else None
            if (args.resume or args.takeover) and current is None:
                print(t(language, "console.nothing_to_resume"), file=out)
            started = current is None
            if not started:
                print(t(language, "interview.resumed"), file=out)
            else:
                current = await core.start_interview(user, chat, filters, HOLDER)
        except UserError as error:  # refused: the unfinished interview, if any, is untouched
            print(core.error_text(language, error), file=sys.stderr)
            return 1
        if started:
            if unfinished is not None and not (args.resume or args.takeover):
                print(t(language, "console.abandoned"), file=out)
            labels = dict(core.topics(language))
            topics = ", ".join(labels.get(name, name) for name in filters.topics) or t(language, "interview.all_topics")
            print(counted(language, "interview.started", current.total or filters.count, topics=topics), file=out)
        session.live = True
        await deliver(core, lambda message: port.send(chat, message), current)
        try:
            await _ask_all(core, port, user, chat, language, session, HOLDER)
            report = await core.latest_report(user, HOLDER)
            if report is None:  # `q` after a forget: nothing is left to stop or report
                raise RecordsDeleted
        except RecordsDeleted:
            session.live = False
            print("\n" + t(language, "console.forgotten"), file=out)
            return 1
        except UserError as error:  # taken over by another terminal: its report is not ours to print
            session.live = False
            print("\n" + core.error_text(language, error), file=out)
            return 1
        session.live = False
        print("\n" + t(language, "terminal.data_kept", db=settings.db_path), file=out)
        if args.json:
            print(json.dumps(report_json(report), ensure_ascii=False))
    finally:
        await core.close()
    return 0


async def _ask_all(core: Core, port: ConsolePort, user: UserRef, chat: ChatRef, language: str,
                   session: Session | None = None, holder: str | None = None) -> None:
    """Letters become clicks until the interview has ended (finished, timed out to its end, or stopped);
    RecordsDeleted when the person was forgotten meanwhile; UserError (interview.moved) at the first
    keypress after another terminal took the interview over."""
    reader = LineReader()
    while await core.current_question(user, holder) is not None:
        port.changed.clear()
        print(t(language, "console.prompt", letters="/".join(sorted(port.buttons))), end="", file=port.out,
              flush=True)
        line = await _next_line(reader, port)
        if line is None:  # the core moved on by itself (a deadline): prompt again for the new question
            continue
        if not line:
            print("\n" + t(language, "console.no_input"), file=port.out)
            break
        if not sys.stdin.isatty():
            print(line.rstrip("\n"), file=port.out)  # echo scripted answers so the transcript reads naturally
        choice = line.strip().lower().rstrip(")")
        token = port.buttons.get(choice) if len(choice) == 1 else None
        if session is not None and token is not None:
            session.saved = False  # the answer just typed, until its transaction is back
        await core.current_question(user, holder)  # taken over meanwhile: InterviewMoved, before q or a click
        if choice in QUIT:
            print(t(language, "console.quit"), file=port.out)
            break
        if token is None:
            print(t(language, "console.invalid", letters="/".join(sorted(port.buttons))), file=port.out)
            continue
        reply = await core.click(user, chat, token, holder=holder)
        if session is not None:
            session.saved = True
        if reply.refused is not None:
            if await core.latest_report(user) is None:  # not refused: forgotten meanwhile
                raise RecordsDeleted
            print(reply.popup, file=port.out)
            continue
        if reply.feedback is not None:
            port.show(reply.feedback)
        for outgoing in reply.follow_ups:
            await deliver(core, lambda message: port.send(chat, message), outgoing)
    stopped = await core.stop_interview(user, holder)
    if stopped is not None:
        port.show(stopped)


async def _next_line(reader: LineReader, port: ConsolePort) -> str | None:
    """The next typed line, or None when the core printed something first (a question timed out)."""
    line = asyncio.ensure_future(reader.lines.get())
    changed = asyncio.ensure_future(port.changed.wait())
    done, _ = await asyncio.wait({line, changed}, return_when=asyncio.FIRST_COMPLETED)
    if line in done:
        changed.cancel()
        return line.result()
    line.cancel()
    print(file=port.out)
    return None
