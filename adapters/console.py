"""The console adapter: a mock interview in the terminal, or scripted one answer letter per line.

It is the smallest adapter: it reads letters, turns them into the same button tokens the chat
platforms send, and prints the core's neutral messages as plain text.
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
from typing import Any, TextIO

from bot.bank import BankError, load_bank
from bot.bank.loader import Bank
from bot.schedule.clock import SystemClock
from bot.app.config import Settings
from bot.domain import LETTERS, SENIORITIES, ChatRef, InterviewFilters, Report, UserRef
from bot.interview.engine import AnswerRefused, AnswerResult, Delivery, InterviewEngine, InterviewError
from bot.text.i18n import language_from_locale, t
from bot.text.plaintext import render_plain
from bot.interview.view import feedback_message, question_message, report_message
from bot.store import Database
from bot.tokens import answer_token

PLATFORM = "console"


def _width() -> int:
    """Wrap prose to the terminal, within readable bounds."""
    return max(50, min(100, shutil.get_terminal_size((100, 40)).columns - 1))


def add_console_parser(commands: argparse._SubParsersAction) -> None:
    console = commands.add_parser(
        "console", help="a mock interview in this terminal (no token needed)",
        description="A mock interview in this terminal. Type a letter to answer, q to stop. When stdin is "
                    "not a terminal, one answer letter is read per line, so it can be scripted.",
    )
    console.add_argument("--topic", action="append", default=[], metavar="TOPIC",
                         help="only this topic (repeatable, or comma-separated); see `questions stats`")
    console.add_argument("--count", type=int, default=5, metavar="N", help="number of questions (default 5)")
    console.add_argument("--difficulty", type=int, choices=(1, 2, 3), help="only this difficulty")
    console.add_argument("--seniority", choices=SENIORITIES, help="only this seniority")
    console.add_argument("--time-limit", type=int, metavar="SECONDS", help="seconds per question (default: none)")
    console.add_argument("--lang", choices=("tr", "en"), help="language (default: from LANG, else English)")
    console.add_argument("--seed", type=int, help="seed the choice and order of questions (repeatable runs)")
    console.add_argument("--json", action="store_true",
                         help="print the final report as one JSON object on stdout (the interview goes to stderr)")
    console.add_argument("--resume", action="store_true", help="carry on with your unfinished interview")
    console.set_defaults(handler=run_console)


def run_console(args: argparse.Namespace, settings: Settings) -> int:
    if args.count < 1:
        print("interview-bot console: --count must be at least 1", file=sys.stderr)
        return 2
    try:
        bank = load_bank([settings.questions_path] if settings.questions_path else None)
    except BankError as error:
        print(f"interview-bot: the question bank has problems:\n{error}", file=sys.stderr)
        return 1
    return asyncio.run(_interview(args, settings, bank))


async def _interview(args: argparse.Namespace, settings: Settings, bank: Bank) -> int:
    out = sys.stderr if args.json else sys.stdout
    language = args.lang or language_from_locale(os.environ.get("LANG")) or settings.default_language
    user = UserRef(PLATFORM, getpass.getuser(), getpass.getuser(), language)
    chat = ChatRef(PLATFORM, f"terminal:{user.platform_id}", "private", "terminal", language)
    filters = InterviewFilters(topics=tuple(p.strip() for ts in args.topic for p in ts.split(",") if p.strip()),
                               difficulty=args.difficulty, seniority=args.seniority, count=args.count,
                               time_limit_s=args.time_limit)
    async with await Database.open(settings.db_path) as db:
        engine = InterviewEngine(db, bank, SystemClock(), random.Random(args.seed))
        delivery = await engine.current(user) if args.resume else None
        if delivery is not None:
            print(t(delivery.language, "interview.resumed"), file=out)
        else:
            try:
                delivery = await engine.start(user, chat, filters)
            except InterviewError as error:
                print(t(language, error.key, **error.values), file=sys.stderr)
                return 1
            topics = ", ".join(filters.topics) or t(delivery.language, "interview.all_topics")
            print(t(delivery.language, "interview.started", count=delivery.total, topics=topics), file=out)
        report = await _ask_all(engine, bank, user, delivery, out)
        print(file=out)
        print(render_plain(report_message(bank, report, delivery.language), width=_width()), file=out)
        if args.json:
            print(json.dumps(report_json(report), ensure_ascii=False))
    return 0


async def _ask_all(engine: InterviewEngine, bank: Bank, user: UserRef, delivery: Delivery, out: TextIO) -> Report:
    """Question, letter, verdict and explanation, until the interview finishes or is stopped."""
    current: Delivery | None = delivery
    while current is not None:
        print("\n" + render_plain(question_message(bank, current, list_options=True), with_buttons=False,
                                       width=_width()), file=out)
        letter = _read_letter(current, out)
        if letter is None:
            report = await engine.stop(user)
            assert report is not None
            return report
        result = await _answer(engine, user, current, letter)
        print("\n" + render_plain(feedback_message(result), width=_width()), file=out)
        if result.report is not None:
            return result.report
        current = result.next
    raise AssertionError("an interview ended without a report")


async def _answer(engine: InterviewEngine, user: UserRef, delivery: Delivery, letter: str) -> AnswerResult:
    try:
        return await engine.answer(user, answer_token(delivery.asked.id, letter))
    except AnswerRefused as refusal:
        if refusal.reason != "expired":
            raise
        expired = [r for r in await engine.expire_overdue() if r.delivery.asked.id == delivery.asked.id]
        return expired[0]


def _read_letter(delivery: Delivery, out: TextIO) -> str | None:
    """A valid letter, or None to stop (q, or the end of input)."""
    letters = LETTERS[: len(delivery.asked.option_order)]
    shown = "/".join(letters)
    while True:
        print(t(delivery.language, "console.prompt", letters=shown), end="", file=out, flush=True)
        line = sys.stdin.readline()
        if not line:
            print("\n" + t(delivery.language, "console.no_input"), file=out)
            return None
        if not sys.stdin.isatty():
            print(line.rstrip("\n"), file=out)  # echo scripted answers so the transcript reads naturally
        choice = line.strip().lower().rstrip(")")
        if choice in ("q", "quit", "exit"):
            print(t(delivery.language, "console.quit"), file=out)
            return None
        if len(choice) == 1 and choice in letters:
            return choice
        print(t(delivery.language, "console.invalid", letters=shown), file=out)


def report_json(report: Report) -> dict[str, Any]:
    """The report as one JSON-able object, for scripts."""
    return {
        "interview_id": report.interview_id,
        "status": report.status,
        "score": report.score,
        "total": report.total,
        "accuracy": round(report.score / report.total, 3) if report.total else 0.0,
        "total_time_ms": report.total_time_ms,
        "mean_time_ms": report.mean_time_ms,
        "weakest_topic": report.weakest_topic,
        "by_topic": {name: {"right": b.right, "total": b.total} for name, b in report.by_topic.items()},
        "by_difficulty": {str(level): {"right": b.right, "total": b.total} for level, b in report.by_difficulty.items()},
        "questions": [
            {"id": r.question.id, "topic": r.question.topic, "difficulty": r.question.difficulty,
             "chosen": r.chosen_letter, "correct_letter": r.correct_letter, "right": r.correct,
             "latency_ms": r.latency_ms}
            for r in report.results
        ],
    }
