"""GIFT, Moodle's plain-text quiz format: `::title:: stem { =right ~wrong #feedback ####general feedback }`.

Multiple-choice (one `=` answer, or one `~%100%`) and true/false (`{T}`, `{FALSE}`) questions are read;
other kinds (short answer, numeric, matching, essay) are refused with their line, since the bank holds
multiple choice only. The general feedback (`####`), else the right answer's `#feedback` (a true/false
question's second one: `{T#shown when wrong#shown when right}`), becomes the explanation. A comment line `// interview-bot: difficulty=2 seniority=mid tags=a,b` before a question
carries what GIFT has no place for; Moodle ignores it, and the export writes it, so a round trip keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.domain import SENIORITIES
from bot.formats.html_text import html_to_markup, single_line
from bot.formats.model import FormatError, ImportedQuestion, check_count, difficulty_of, read_text
from bot.text.i18n import t

SPECIAL = "~=#{}:"
_PLACEHOLDER = {char: chr(0xE000 + index) for index, char in enumerate(SPECIAL + "\\")}
_LITERAL = {code: char for char, code in _PLACEHOLDER.items()}
META = "// interview-bot:"
_FORMAT = re.compile(r"^\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_WEIGHT = re.compile(r"^%(-?\d+(?:\.\d+)?)%")
TRUE_WORDS, FALSE_WORDS = ("t", "true"), ("f", "false")


@dataclass(frozen=True)
class _Block:
    text: str
    line: int
    meta: str = ""


def _protect(text: str) -> str:
    """Escaped specials as private-use placeholders, so the parser can split on the real ones."""
    def one(match: re.Match[str]) -> str:
        char = match.group(1)
        if char == "n":
            return "\n"
        return _PLACEHOLDER.get(char, "\\" + char)
    return re.sub(r"\\(.)", one, text)


def _restore(text: str) -> str:
    return "".join(_LITERAL.get(char, char) for char in text)


def _blocks(text: str) -> Iterable[_Block]:
    """Questions separated by blank lines (not inside an answer block), with the line each starts on and
    the meta comment before it."""
    lines: list[str] = []
    start, meta, pending_meta, depth = 0, "", "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("//"):
            if line.startswith(META):
                pending_meta = line[len(META):]
            continue
        if (not line and depth <= 0) or line.startswith("$CATEGORY:"):
            if lines:
                yield _Block("\n".join(lines), start, meta)
            lines, depth = [], 0
            continue
        if not lines:
            start, meta, pending_meta = number, pending_meta, ""
        lines.append(raw)
        unescaped = re.sub(r"\\.", "", raw)
        depth += unescaped.count("{") - unescaped.count("}")
    if lines:
        yield _Block("\n".join(lines), start, meta)


def _text(raw: str) -> str:
    """A question text: its [format] marker applied, escapes restored."""
    marker = _FORMAT.match(raw)
    body = raw[marker.end():] if marker else raw
    body = _restore(body)
    if marker and marker.group(1).lower() == "html":
        return html_to_markup(body)
    return body.strip()


def _answers(body: str) -> list[tuple[str, str, str]]:
    """(mark, text, feedback) for each `=`/`~` answer of an answer block."""
    answers = []
    for match in re.finditer(r"([=~])([^=~]*)", body):
        text, _, feedback = match.group(2).partition("#")
        answers.append((match.group(1), text.strip(), feedback.strip()))
    return answers


def _correct(mark: str, text: str) -> tuple[bool, str]:
    weight = _WEIGHT.match(text)
    if weight:
        return float(weight.group(1)) >= 100, text[weight.end():].strip()
    return mark == "=", text


class _Refused(Exception):
    """What is wrong with one question (its line is added by `read`)."""


def _meta(meta: str) -> dict[str, object]:
    values: dict[str, object] = {}
    for pair in meta.split():
        name, _, value = pair.partition("=")
        if name == "difficulty" and difficulty_of(value) is not None:
            values["difficulty"] = difficulty_of(value)
        elif name == "seniority" and value in SENIORITIES:
            values["seniority"] = value
        elif name == "tags":
            values["tags"] = tuple(tag for tag in value.split(",") if tag)
        else:
            raise _Refused(f"{META} {pair[:40]!r}: expected difficulty=1-3, seniority=junior|mid|senior or tags=a,b")
    return values


def _parts(text: str) -> tuple[str, str, str]:
    """(stem, answer block, general feedback) of a protected question text; a missing-word question's
    text after the block joins the stem after a blank."""
    title = re.match(r"^\s*::(.*?)::", text, re.DOTALL)
    if title:
        text = text[title.end():]
    opening = text.find("{")
    closing = text.find("}", opening + 1)
    if opening < 0 or closing < 0:
        raise _Refused("no answers: a question needs { =right ~wrong }")
    before, body, after = text[:opening], text[opening + 1:closing], text[closing + 1:]
    if "{" in after or "}" in after:
        raise _Refused("more than one answer block { }: escape a literal brace as \\{ or \\}")
    body, _, general = body.partition("####")
    return before.rstrip() + (" _____ " + after.strip() if after.strip() else ""), body, general


def _choices(body: str) -> tuple[tuple[str, ...], int, str]:
    """(options, index of the right one, its feedback) of a multiple-choice answer block; other kinds refused."""
    if body.strip().startswith("#"):
        raise _Refused("a numeric question: only multiple choice and true/false can be imported")
    answers = _answers(body)
    if not answers:
        raise _Refused("an essay or description (no = or ~ answers): only multiple choice and true/false can be "
                       "imported")
    if all(mark == "=" for mark, _, _ in answers):
        kind = "a matching" if all("->" in text for _, text, _ in answers) else "a short-answer"
        raise _Refused(f"{kind} question (only = answers): only multiple choice and true/false can be imported")
    options, keys, feedback = [], [], ""
    for index, (mark, raw, answer_feedback) in enumerate(answers):
        right, option = _correct(mark, raw)
        options.append(single_line(_text(option)))
        if right:
            keys.append(index)
            feedback = feedback or _text(answer_feedback)
    if len(keys) != 1:
        raise _Refused(f"{len(keys)} right answers; exactly one = (or ~%100%) is needed")
    return tuple(options), keys[0], feedback


def _question(block: _Block, where: str, language: str) -> ImportedQuestion:
    extra: dict = _meta(block.meta)
    stem, body, general = _parts(_protect(block.text))
    explanation = _text(general) if general.strip() else ""
    simple, *feedbacks = body.strip().split("#")
    if simple.strip().lower() in TRUE_WORDS + FALSE_WORDS:
        options = (t(language, "formats.true"), t(language, "formats.false"))
        right_feedback = _text(feedbacks[1]) if len(feedbacks) > 1 else ""  # {T#if wrong#if right}, as Moodle reads it
        return ImportedQuestion(_text(stem), options, 0 if simple.strip().lower() in TRUE_WORDS else 1,
                                explanation or right_feedback, origin=where, **extra)
    options, key, feedback = _choices(body)
    return ImportedQuestion(_text(stem), options, key, explanation or feedback, origin=where, **extra)


def read(data: bytes, filename: str, language: str = "en") -> list[ImportedQuestion]:
    """Every question of a GIFT file, or FormatError listing every problem with its line."""
    blocks = list(_blocks(read_text(data, filename)))
    check_count(len(blocks), filename)
    problems: list[str] = []
    questions = []
    for block in blocks:
        where = f"{filename}:{block.line}"
        try:
            questions.append(_question(block, where, language))
        except _Refused as refused:
            problems.append(f"{where}: {refused}")
    if problems:
        raise FormatError(problems, read=questions)
    return questions


def escape(text: str) -> str:
    """Text as GIFT holds it: specials and backslashes escaped, line breaks as \\n."""
    text = text.replace("\\", "\\\\")
    for char in SPECIAL:
        text = text.replace(char, "\\" + char)
    return text.replace("\r\n", "\n").replace("\n", "\\n")


def write(questions: Iterable[ImportedQuestion], names: Iterable[str]) -> str:
    """A GIFT file: one question per paragraph, its meta comment first, the explanation as general feedback."""
    parts = []
    for question, name in zip(questions, names):
        lines = [f"{META} difficulty={question.difficulty}"
                 + (f" seniority={question.seniority}" if question.seniority else "")
                 + (f" tags={','.join(question.tags)}" if question.tags else ""),
                 f"::{escape(name)}::[markdown]{escape(question.stem)} {{"]
        lines += [f"  {'=' if index == question.key else '~'}{escape(option)}"
                  for index, option in enumerate(question.options)]
        if question.explanation:
            lines.append(f"  ####{escape(question.explanation)}")
        lines.append("}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"
