"""The `interview-bot` command: one argparse tree, each subcommand a small function.

Bad input (a broken bank, a bad option) ends in a one-line message and a non-zero exit, never a
traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path

from bot.bank.loader import check_bank
from bot.bank.stats import bank_stats, format_stats
from bot.bank.verify import summary, verify_all
from bot.store import StoreError
from bot.app.secrets import hide_token_lines, redact_logs
from bot.app.item_report import add_report_parser
from bot.app.config import ENVIRONMENT_HELP, ConfigError, Settings, default_db_path, load_settings, store_setting


def _version() -> str:
    """The installed distribution's version (a bug report names it); a source tree not installed says so."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("interview-bot")
    except PackageNotFoundError:
        return "(not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="interview-bot",
        description="A bilingual (tr/en) ML-engineering interview bot: a terminal mock interview, "
                    "and Telegram and Discord bots.",
        epilog=ENVIRONMENT_HELP.format(db=default_db_path()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"interview-bot {_version()}")
    parser.add_argument("--config", metavar="FILE", help="a YAML settings file (also INTERVIEW_BOT_CONFIG)")
    parser.add_argument("--db", metavar="FILE_OR_URL",
                        help="the store: a SQLite file or postgresql://... (overrides INTERVIEW_BOT_DB)")
    parser.add_argument("--questions", metavar="PATH", help="the question bank (overrides INTERVIEW_BOT_QUESTIONS)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    # The composition root: adapters register their subcommands; platform libraries load only when run.
    from adapters.console import add_console_parser, add_forget_parser
    from adapters.console_records import add_records_parsers
    from adapters.platform_commands import add_platform_parsers
    from bot.app.db_commands import add_db_parser
    from bot.app.deck_commands import add_deck_parser

    add_console_parser(commands)
    add_forget_parser(commands)
    add_records_parsers(commands)
    _add_questions_parser(commands)
    add_platform_parsers(commands)
    add_db_parser(commands)
    add_deck_parser(commands)
    return parser


def _add_questions_parser(commands: argparse._SubParsersAction) -> None:
    questions = commands.add_parser("questions", help="check and describe the question bank",
                                    description="Check and describe the question bank.")
    actions = questions.add_subparsers(dest="action", metavar="ACTION", required=True)
    validate = actions.add_parser("validate", help="check files; one FILE:LINE: FIELD: problem line each",
                                  description="Check bank files (default: the configured bank). Exit 0 with a "
                                              "summary, or 1 with one line per problem.")
    validate.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    validate.set_defaults(handler=_validate)
    stats = actions.add_parser("stats", help="counts per topic x difficulty x language, balance figures",
                               description="Counts per topic x difficulty x language, verify coverage, "
                                           "keyed-letter balance and the longest-is-correct rate.")
    stats.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.set_defaults(handler=_stats)
    verify = actions.add_parser("verify", help="run every question's verify snippet",
                                description="Run each `verify` snippet in its own subprocess and check that it "
                                            "derives the keyed option. Exit 1 on any failure.")
    verify.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    verify.add_argument("--id", dest="ids", action="append", metavar="ID", help="only this question (repeatable)")
    verify.add_argument("--file", dest="files", action="append", type=Path, metavar="FILE",
                        help="only this file (repeatable)")
    verify.add_argument("--jobs", type=int, default=None, help="snippets run at once (default: CPU count)")
    verify.add_argument("--strict", action="store_true",
                        help="treat a skipped snippet (missing torch or numpy) as a failure, as CI does")
    verify.set_defaults(handler=_verify)
    add_report_parser(actions)
    from bot.formats.commands import add_format_parsers

    add_format_parsers(actions)


def _bank_paths(args: argparse.Namespace, settings: Settings) -> list[Path] | None:
    paths = list(getattr(args, "paths", None) or []) + list(getattr(args, "files", None) or [])
    if paths:
        return paths
    return [settings.questions_path] if settings.questions_path else None


def _validate(args: argparse.Namespace, settings: Settings) -> int:
    bank, problems = check_bank(_bank_paths(args, settings))
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) in {len(bank.files)} file(s)", file=sys.stderr)
        return 1
    if not bank.questions:
        where = ", ".join(str(path) for path in _bank_paths(args, settings)) or "the shipped bank"
        print(f"no question files found in {where} (*.yaml, looping links skipped)", file=sys.stderr)
        return 1
    print(f"ok: {_many(len(bank.questions), 'question')} in {_many(len(bank.topics), 'topic')}, "
          f"{_many(len(bank.files), 'file')}")
    return 0


def _many(count: int, noun: str) -> str:
    """'1 question', '3 questions': the bank report is English-only developer output."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _stats(args: argparse.Namespace, settings: Settings) -> int:
    bank, problems = check_bank(_bank_paths(args, settings))
    stats = bank_stats(bank.questions.values())
    stats["problems"] = len(problems)
    print(json.dumps(stats, indent=2, ensure_ascii=False) if args.json else format_stats(stats))
    if problems and not args.json:
        print(f"({len(problems)} problem(s): run `interview-bot questions validate`)", file=sys.stderr)
    return 0


def _verify(args: argparse.Namespace, settings: Settings) -> int:
    bank, problems = check_bank(_bank_paths(args, settings))
    for problem in problems:
        print(problem)
    questions = [q for q in bank.questions.values() if not args.ids or q.id in args.ids]
    if args.ids and not questions:
        print(f"no question with id {', '.join(args.ids)}", file=sys.stderr)
        return 1
    results = asyncio.run(verify_all(questions, args.jobs))
    for result in results:
        print(result.line(), flush=True)
    print(summary(results))
    bad = any(r.outcome in ("fail", "error") or (args.strict and r.outcome == "skip") for r in results)
    return 1 if bad or problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        settings = load_settings(args.config)
    except ConfigError as error:
        print(f"interview-bot: {hide_token_lines(str(error))}", file=sys.stderr)
        return 2
    if args.db:
        settings = replace(settings, db_path=store_setting(args.db))
    if args.questions:
        settings = replace(settings, questions_path=Path(args.questions))
    level = logging.getLevelName(settings.log_level.upper())
    if not isinstance(level, int):
        print(f"interview-bot: unknown log level {settings.log_level[:32]!r} (DEBUG, INFO, WARNING, ERROR)",
              file=sys.stderr)
        return 2
    terminal = getattr(args, "terminal", False)
    if terminal and settings.log_level.upper() == "WARNING":
        level = logging.ERROR  # a person at a prompt: the command's own lines say what failed
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    redact_logs([settings.telegram_token or "", settings.discord_token or ""])
    if terminal:
        for handler in logging.getLogger().handlers:
            handler.addFilter(_without_traceback)
    try:
        return args.handler(args, settings)
    except StoreError as error:
        print(f"interview-bot: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the interpreter's final flush quiet
        return 141


def _without_traceback(record: logging.LogRecord) -> bool:
    """A terminal command logs one line per record: a library's traceback (asyncpg's pool retrying a stopped
    server, say) would bury the one line that says what happened to the person's answer."""
    record.exc_info, record.exc_text, record.stack_info = None, None, None
    return True
