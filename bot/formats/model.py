"""What every reader produces and every failure it reports: one question in one language, and the
`FILE:LINE: problem` lines of a file that cannot be imported."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.text.control import visible

MAX_FILE_BYTES = 20 * 1024 * 1024  # a bigger "question file" is a mistake or an attack, not a quiz
MAX_QUESTIONS = 10_000
MAX_REPORTED = 50  # problems listed before "and N more"
SENIORITY_OF = {1: "junior", 2: "mid", 3: "senior"}  # when a file says nothing of seniority


@dataclass(frozen=True)
class ImportedQuestion:
    """A multiple-choice question read from another format, in one language; `origin` is FILE:LINE
    (or FILE: results[3] where the format has no lines)."""

    stem: str
    options: tuple[str, ...]
    key: int  # index of the right option
    explanation: str = ""
    difficulty: int = 2
    tags: tuple[str, ...] = ()
    seniority: str | None = None
    origin: str = ""


class FormatError(Exception):
    """A file that cannot be imported; every problem is one `FILE:LINE: problem` line. `read` holds the
    questions a reader did read well, so the bank's rules are checked on them in the same pass and a
    person fixes every problem at once, not round by round."""

    def __init__(self, problems: list[str], read: Sequence[ImportedQuestion] = ()) -> None:
        self.read = tuple(read)
        self.problems = [visible(problem) for problem in problems]  # each one line, no raw escapes
        shown = self.problems[:MAX_REPORTED]
        more = len(self.problems) - len(shown)
        super().__init__("\n".join(shown + ([f"... and {more} more problem(s)"] if more > 0 else [])))


def read_text(data: bytes, filename: str) -> str:
    """The file as text (UTF-8, a BOM allowed), or FormatError for something too big or not text."""
    if len(data) > MAX_FILE_BYTES:
        raise FormatError([f"{filename}:1: {len(data)} bytes, over the limit of {MAX_FILE_BYTES}"])
    try:
        return data.decode("utf-8-sig").replace("\r\n", "\n")  # a Windows line end is a newline, not a CR
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise FormatError([f"{filename}:{line}: not UTF-8 text ({error.reason})"]) from error


def check_count(count: int, filename: str) -> None:
    if count == 0:
        raise FormatError([f"{filename}:1: no questions found"])
    if count > MAX_QUESTIONS:
        raise FormatError([f"{filename}:1: {count} questions, over the limit of {MAX_QUESTIONS} per file"])


DIFFICULTY_WORDS = {"easy": 1, "medium": 2, "hard": 3, "1": 1, "2": 2, "3": 3}


def difficulty_of(value: object) -> int | None:
    """1, 2 or 3 from a number or from easy/medium/hard; None for anything else."""
    return DIFFICULTY_WORDS.get(str(value).strip().lower())


def slug(text: str) -> str:
    """A tag or category as the bank's lowercase-with-dashes word ("" when nothing is left)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].rstrip("-")
