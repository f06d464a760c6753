"""CSV with a header row: `stem,options,key,explanation,difficulty,tags` (and an optional `seniority`).

- `options`: the options separated by `|` (a literal bar as `\\|`, a backslash as `\\\\`), 2 to 6;
- `key`: the letter of the right option (A-F, in the order of `options`);
- `explanation`: may be empty (the question then says it came without one);
- `difficulty`: 1, 2, 3 or easy, medium, hard (empty: 2);
- `tags`: lowercase-with-dashes words separated by `|` (may be empty);
- `seniority`: junior, mid or senior (empty or absent: from the difficulty).

Columns may come in any order; unknown columns are an error (a typo would otherwise be lost). Line
numbers are the file's, so a quoted field over several lines still points at its row's first line.
Options that read the same are refused by the bank's validator, like every other format's.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from bot.domain import LETTERS, SENIORITIES
from bot.formats.model import FormatError, ImportedQuestion, check_count, difficulty_of, read_text

REQUIRED = ("stem", "options", "key")
COLUMNS = ("stem", "options", "key", "explanation", "difficulty", "tags", "seniority")


def split_list(value: str) -> list[str]:
    """`a|b\\|c` -> ["a", "b|c"]: bars separate, a backslash escapes."""
    items, current, chars = [], [], iter(value)
    for char in chars:
        if char == "\\":
            current.append(next(chars, "\\"))
        elif char == "|":
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    items.append("".join(current).strip())
    return items


def join_list(items: Iterable[str]) -> str:
    return "|".join(item.replace("\\", "\\\\").replace("|", "\\|") for item in items)


def _row(row: dict[str, str], where: str, problems: list[str]) -> ImportedQuestion | None:
    before = len(problems)
    stem = (row.get("stem") or "").strip()
    if not stem:
        problems.append(f"{where}: stem: empty")
    options = split_list(row.get("options") or "")
    if any(not option for option in options) or len(options) < 2:
        problems.append(f"{where}: options: give 2 to 6 non-empty options separated by |")
    key_text = (row.get("key") or "").strip().lower()
    key = LETTERS.find(key_text) if len(key_text) == 1 else -1
    if key < 0 or key >= len(options):
        problems.append(f"{where}: key: the letter of the right option (a to {LETTERS[max(0, len(options) - 1)]}), "
                        f"not {key_text[:20]!r}")
    difficulty = difficulty_of(row.get("difficulty") or "2")
    if difficulty is None:
        problems.append(f"{where}: difficulty: 1, 2, 3, easy, medium or hard, not {row.get('difficulty', '')[:20]!r}")
    seniority = (row.get("seniority") or "").strip() or None
    if seniority is not None and seniority not in SENIORITIES:
        problems.append(f"{where}: seniority: {', '.join(SENIORITIES)} or empty, not {seniority[:20]!r}")
    tags = tuple(tag for tag in split_list(row.get("tags") or "") if tag)
    if len(problems) > before:
        return None
    return ImportedQuestion(stem, tuple(options), key, (row.get("explanation") or "").strip(), difficulty or 2, tags,
                            seniority, where)


def _first_line_after(lines: list[str], consumed: int) -> int:
    """The line the next row starts on: the first non-blank line after the `consumed` ones (1-based)."""
    number = consumed + 1
    while number <= len(lines) and not lines[number - 1].strip():
        number += 1
    return number


def read(data: bytes, filename: str, language: str = "en") -> list[ImportedQuestion]:
    """Every row of a CSV file as a question, or FormatError listing every problem with its line.

    Strict CSV: a stray or unclosed quote is an error at the line its row starts on (a lenient reader
    would swallow the rest of the file into one field), and reading goes on with the next row."""
    text = read_text(data, filename)
    lines = text.split("\n")
    reader = csv.DictReader(io.StringIO(text, newline=""), restkey="\0extra", strict=True)
    try:
        header = [name.strip().lower() for name in reader.fieldnames or ()]
    except csv.Error as error:
        raise FormatError([f"{filename}:1: not valid CSV: {error}"]) from error
    reader.fieldnames = header
    missing = [name for name in REQUIRED if name not in header]
    unknown = [name for name in header if name not in COLUMNS]
    if missing or unknown:
        problems = [f"{filename}:1: header: missing column {name!r}" for name in missing]
        problems += [f"{filename}:1: header: unknown column {name[:40]!r} (known: {', '.join(COLUMNS)})"
                     for name in unknown]
        raise FormatError(problems)
    problems: list[str] = []
    questions: list[ImportedQuestion | None] = []
    while True:
        where = f"{filename}:{_first_line_after(lines, reader.line_num)}"
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            unclosed = " (a quote opened in this row is never closed)" if "end of data" in str(error) else ""
            problems.append(f"{where}: not valid CSV: {error}{unclosed}")
            continue
        if "\0extra" in row:
            problems.append(f"{where}: more fields than the header has columns")
            continue
        if not any((value or "").strip() for value in row.values()):
            continue  # a line of blanks
        questions.append(_row(row, where, problems))
    good = [question for question in questions if question is not None]
    if problems:
        raise FormatError(problems, read=good)
    check_count(len(questions), filename)
    return good


def write(questions: Iterable[ImportedQuestion]) -> str:
    """The questions as CSV with the documented header (the key as a letter)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for question in questions:
        writer.writerow([question.stem, join_list(question.options), LETTERS[question.key], question.explanation,
                         question.difficulty, join_list(question.tags), question.seniority or ""])
    return buffer.getvalue()
