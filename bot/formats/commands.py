"""`interview-bot questions import` and `questions export`: other formats in and out of the bank.

A bad file ends in one `FILE:LINE: problem` line per problem, exit 1 and nothing written; a good one
in one line saying what was written where.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bot.bank.loader import check_bank
from bot.domain import LANGUAGES
from bot.formats.bank_file import Target, build_topic_file, every_problem, write_topic_file
from bot.formats.export import EXPORT_FORMATS, export_bytes, select
from bot.formats.files import read_file, write_atomically
from bot.formats.model import MAX_FILE_BYTES, MAX_QUESTIONS, FormatError
from bot.limits import OPTION_MAX, STEM_MAX

if TYPE_CHECKING:
    from bot.app.config import Settings

READERS = ("opentdb", "gift", "moodle", "csv")  # modules of bot.formats, loaded when used (the XML one is slow)


def add_format_parsers(actions: argparse._SubParsersAction) -> None:
    """`questions import` and `questions export`, under the `questions` command."""
    importer = actions.add_parser(
        "import", help="turn an OpenTDB, GIFT, Moodle XML or CSV file into a topic file of the bank",
        description="Read a quiz file and write DIR/TOPIC.yaml in the bank's format, checked by the bank's "
                    "validator first; serve it with INTERVIEW_BOT_QUESTIONS=DIR. A bad file gets FILE:LINE: "
                    f"problem lines, exit 1, and nothing is written. Limits: a file of at most "
                    f"{MAX_FILE_BYTES // 2**20} MB and {MAX_QUESTIONS:,} questions, stems of at most {STEM_MAX:,} "
                    f"characters, options of at most {OPTION_MAX}.")
    importer.add_argument("file", type=Path, metavar="FILE")
    importer.add_argument("--from", dest="source", choices=READERS, required=True, help="the file's format")
    importer.add_argument("--topic", required=True, help="the new topic's name, lowercase-with-dashes")
    importer.add_argument("--specialty", default="imported", help="its specialty (default: imported)")
    importer.add_argument("--lang", choices=LANGUAGES, default="en", help="the language the file is in (default en)")
    importer.add_argument("--out", type=Path, required=True, metavar="DIR", help="the folder to write TOPIC.yaml in")
    importer.add_argument("--replace", action="store_true", help="overwrite DIR/TOPIC.yaml if it exists")
    importer.set_defaults(handler=run_import)
    exporter = actions.add_parser(
        "export", help="write the bank (or a topic) as an Anki deck, a GIFT file or a CSV file",
        description="Write the configured bank, or one topic of it, in another format, in one language "
                    "(questions without it come in the other language).")
    exporter.add_argument("--to", dest="target", choices=EXPORT_FORMATS, required=True)
    exporter.add_argument("--topic", help="only this topic (its name or title)")
    exporter.add_argument("--lang", choices=LANGUAGES, default="en", help="the language to export (default en)")
    exporter.add_argument("--out", type=Path, required=True, metavar="FILE",
                          help="the file to write (- for stdout); an existing one only with --force")
    exporter.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    exporter.set_defaults(handler=run_export)


def questions_written(count: int) -> str:
    """ "1 question", "3 questions": the tool's own English lines."""
    return f"{count} question" if count == 1 else f"{count} questions"


def _fail(problems: list[str] | str) -> int:
    print(problems if isinstance(problems, str) else "\n".join(problems), file=sys.stderr)
    print("nothing written", file=sys.stderr)
    return 1


def run_import(args: argparse.Namespace, settings: Settings) -> int:
    target = Target(args.topic, args.source, args.lang, args.specialty)
    try:
        reader = importlib.import_module(f"bot.formats.{args.source}")
        try:
            questions = reader.read(read_file(args.file), str(args.file), args.lang)
        except FormatError as error:
            raise every_problem(error, target, str(args.file)) from error
        text = build_topic_file(questions, target)
        path = write_topic_file(text, target, args.out, replace=args.replace)
    except FormatError as error:
        return _fail(str(error))
    except OSError as error:
        return _fail(f"{args.out}: cannot be written: {error.strerror or error}")
    untold = sum(1 for question in questions if not question.explanation)
    note = f" ({untold} without an explanation)" if untold else ""
    print(f"wrote {questions_written(len(questions))}{note} to {path}; serve them with INTERVIEW_BOT_QUESTIONS={args.out}")
    return 0


def run_export(args: argparse.Namespace, settings: Settings) -> int:
    bank, problems = check_bank([settings.questions_path] if settings.questions_path else None)
    if problems:
        return _fail([str(problem) for problem in problems] + ["the bank has problems: run `questions validate`"])
    try:
        questions = select(bank, args.topic)
        topic = bank.topic_named(args.topic) if args.topic else None
        data = export_bytes(questions, args.target, args.lang, deck_name=f"interview-bot::{topic}" if topic
                            else "interview-bot", timestamp=time.time())
        if str(args.out) == "-":  # a pipe: the data alone on stdout, the summary on stderr
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            print(f"wrote {questions_written(len(questions))} ({args.lang}) to stdout", file=sys.stderr)
            return 0
        if args.out.exists() and not args.force:
            return _fail(f"{args.out}: exists; choose another --out or add --force to overwrite it")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(args.out, data)
    except FormatError as error:
        return _fail(str(error))
    except OSError as error:
        return _fail(f"{args.out}: cannot be written: {error.strerror or error}")
    print(f"wrote {questions_written(len(questions))} ({args.lang}) to {args.out}")
    return 0
