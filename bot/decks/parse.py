"""A group's uploaded file read as a deck: its format found from its content and name, then the readers
of `questions import` (bot/formats) and the bank's own validator, so a deck obeys every rule the bank
does (control characters, duplicate options, a missing key, over-long fields, XML without entities).

Nothing here trusts the file: the size is checked before anything is decoded, and every problem comes
back as one `line N: what is wrong` line, in file order, for the person who uploaded it.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from pathlib import PurePosixPath

from bot.bank.validate import validate_file
from bot.decks.codec import content_hash, line_of
from bot.domain import Question
from bot.formats.bank_file import Target, build_topic_file, every_problem
from bot.formats.model import FormatError
from bot.limits import DECK_MAX_BYTES, DECK_MAX_QUESTIONS
from bot.text.i18n import t

FORMATS = ("yaml", "gift", "moodle", "opentdb", "csv")
EXTENSIONS = {".yaml": "yaml", ".yml": "yaml", ".gift": "gift", ".xml": "moodle", ".json": "opentdb",
              ".csv": "csv"}
SNIFFED = 8192  # characters looked at to tell a format by its content
_PLACE = re.compile(r"^:(\d+):\s*(.*)$", re.DOTALL)
_INDEX = re.compile(r"^:?\s*results\[(\d+)\]:\s*(.*)$", re.DOTALL)


class DeckRefused(Exception):
    """The file cannot be a deck; `problems` are the lines to show (in file order), nothing is stored."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def detect(filename: str, data: bytes) -> str | None:
    """The file's format: its extension when it names one, else what its first characters say."""
    by_name = EXTENSIONS.get(PurePosixPath(filename.lower()).suffix)
    if by_name is not None:
        return by_name
    head = data[:SNIFFED].decode("utf-8-sig", errors="replace").lstrip()
    if head.startswith("<"):
        return "moodle"
    if head.startswith("{") and re.match(r'^\{\s*"', head):
        return "opentdb"
    if re.search(r"^questions:\s*$", head, re.MULTILINE) and re.search(r"^topic:", head, re.MULTILINE):
        return "yaml"
    first = head.split("\n", 1)[0].lower()
    if "," in first and "stem" in first:
        return "csv"
    if re.search(r"\{[^{}]*[=~]", head) or head.startswith("::") or re.search(r"\{\s*(T|F|TRUE|FALSE)\s*\}", head):
        return "gift"
    return None


def _line(problem: str, name: str) -> str:
    """A reader's `FILE:LINE: problem` (or `FILE: results[3]: problem`) as `line N: problem`."""
    rest = problem[len(name):] if problem.startswith(name) else problem
    placed = _PLACE.match(rest)
    if placed:
        return f"line {placed.group(1)}: {placed.group(2)}"
    indexed = _INDEX.match(rest.strip())
    if indexed:
        return f"question {int(indexed.group(1)) + 1}: {indexed.group(2)}"
    return rest.lstrip(": ")


def _field(field: str) -> str:
    """`x-003.options[2].en` -> `options[2]`: the part of a question a person wrote."""
    part = field.split(".", 1)[1] if "." in field else field
    return re.sub(r"\.(en|tr)$", "", part)


def _from_yaml(text: str, name: str) -> list[Question]:
    _, questions, problems = validate_file(text, name)
    if problems:
        raise DeckRefused([f"line {p.line}: {_field(p.field)}: {p.message}"
                           for p in sorted(problems, key=lambda p: p.line)])
    return questions


def _from_reader(fmt: str, data: bytes, name: str, language: str) -> list[Question]:
    target = Target("deck", fmt, language, "deck")
    reader = importlib.import_module(f"bot.formats.{fmt}")
    try:
        try:
            imported = reader.read(data, name, language)
        except FormatError as error:
            raise every_problem(error, target, name) from error
        _count(len(imported), language)  # before the validator reads 10,000 of them
        text = build_topic_file(imported, target)
    except FormatError as error:
        raise DeckRefused([_line(problem, name) for problem in error.problems]) from error
    _, questions, problems = validate_file(text, f"{name}.yaml")
    if problems:  # the builder validated this very text: only a defect gets here
        raise DeckRefused([f"{problem.field}: {problem.message}" for problem in problems])
    # the built file's lines are not the person's: each question takes its origin's line
    return [replace(question, source=f"{name}:{_origin_line(origin.origin)}")
            for question, origin in zip(questions, imported)]


def _origin_line(origin: str) -> int:
    """The line of `FILE:LINE`, or the position (from 1) of OpenTDB's `FILE: results[3]`."""
    found = re.search(r":(\d+)$", origin)
    if found:
        return int(found.group(1))
    indexed = re.search(r"results\[(\d+)\]", origin)
    return int(indexed.group(1)) + 1 if indexed else 0


def parse_deck(filename: str, data: bytes, language: str) -> tuple[str, list[Question]]:
    """(format, questions) of an uploaded file, or DeckRefused with every problem. `language`: the one
    the texts are in for the one-language formats (the chat's)."""
    if len(data) > DECK_MAX_BYTES:
        raise DeckRefused([t(language, "deck.too_big", size=f"{len(data):,}", limit=f"{DECK_MAX_BYTES:,}")])
    fmt = detect(filename, data)
    if fmt is None:
        raise DeckRefused([t(language, "deck.unknown_format")])
    name = "deck" + {"yaml": ".yaml", "gift": ".gift", "moodle": ".xml", "opentdb": ".json", "csv": ".csv"}[fmt]
    if fmt == "yaml":
        try:
            text = data.decode("utf-8-sig").replace("\r\n", "\n")
        except UnicodeDecodeError as error:
            line = data[:error.start].count(b"\n") + 1
            raise DeckRefused([f"line {line}: not UTF-8 text"]) from error
        questions = _from_yaml(text, name)
    else:
        questions = _from_reader(fmt, data, name, language)
    _count(len(questions), language)
    _same_twice(questions)
    return fmt, questions


def _count(count: int, language: str) -> None:
    if count > DECK_MAX_QUESTIONS:
        raise DeckRefused([t(language, "deck.too_many", count=count, limit=DECK_MAX_QUESTIONS)])


def _same_twice(questions: list[Question]) -> None:
    """Two questions of one deck that read the same (stem, options and key) would share an id: refused."""
    first: dict[str, int] = {}
    problems = []
    for question in questions:
        key = content_hash(question)
        if key in first:
            problems.append(f"line {line_of(question)}: the same question as line {first[key]}")
        else:
            first[key] = line_of(question)
    if problems:
        raise DeckRefused(problems)

