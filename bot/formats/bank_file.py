"""Imported questions as a topic file of the bank, checked by the bank's own validator before it is written.

The file is built in memory, run through `validate_file` (the rules `questions validate` applies), and
each problem is traced back to the question it came from, so a person sees `their-file.gift:12:` and
not a line of a YAML file that was never written. Only a file that passes is written, and atomically.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from bot.bank.loader import check_bank
from bot.bank.validate import validate_file
from bot.formats.files import write_atomically
from bot.formats.model import SENIORITY_OF, FormatError, ImportedQuestion
from bot.limits import ID_MAX

SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Target:
    """Where imported questions go: their topic and specialty, the language they are in, the format they came from."""

    topic: str
    source: str
    language: str = "en"
    specialty: str = "imported"
    role: str = "ml-engineer"


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]  # libyaml's: 5x faster
    """Multi-line texts as literal blocks, as a person would write them in the bank."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def _dump(value: object) -> str:
    return yaml.dump(value, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=4096)


def question_ids(topic: str, count: int) -> list[str]:
    """`<topic>-001`, ...: derived from the topic (unique across the bank), within the id limit."""
    width = max(3, len(str(count)))
    prefix = topic[: ID_MAX - width - 1].rstrip("-")
    return [f"{prefix}-{number:0{width}d}" for number in range(1, count + 1)]


def _entry(question: ImportedQuestion, qid: str, language: str) -> dict:
    entry: dict = {"id": qid, "difficulty": question.difficulty,
                   "seniority": question.seniority or SENIORITY_OF[question.difficulty]}
    if question.tags:
        entry["tags"] = list(question.tags)
    entry["text"] = {language: question.stem.strip()}
    entry["options"] = [{language: option.strip(), **({"correct": True} if index == question.key else {})}
                        for index, option in enumerate(question.options)]
    if question.explanation.strip():
        entry["explanation"] = {language: question.explanation.strip()}
    return entry


def topic_text(questions: Sequence[ImportedQuestion], target: Target) -> tuple[str, list[int]]:
    """The topic file's YAML and the line each question starts on."""
    title = target.topic.replace("-", " ").capitalize()
    header = {"role": target.role, "specialty": target.specialty, "topic": target.topic,
              "title": {target.language: title}, "imported_from": target.source}
    chunks = [_dump(header) + "questions:\n"]
    lines = chunks[0].count("\n")
    starts: list[int] = []
    for question, qid in zip(questions, question_ids(target.topic, len(questions))):
        starts.append(lines + 1)
        chunks.append(_dump([_entry(question, qid, target.language)]))
        lines += chunks[-1].count("\n")
    return "".join(chunks), starts


def _field(field: str) -> str:
    """`abc-003.text.en` -> `stem`: the part of a question a person wrote, named in their terms."""
    part = field.split(".", 1)[1] if "." in field else field
    part = re.sub(r"\.(en|tr)$", "", part)
    return {"text": "stem", "en": "text", "tr": "text"}.get(part, part)


def _target_problems(target: Target) -> list[str]:
    problems = []
    if not SLUG.match(target.topic):
        problems.append(f"--topic {target.topic!r}: lowercase-with-dashes, e.g. world-capitals")
    if not SLUG.match(target.specialty):
        problems.append(f"--specialty {target.specialty!r}: lowercase-with-dashes, e.g. general-knowledge")
    return problems


def _rule_problems(questions: Sequence[ImportedQuestion], target: Target) -> tuple[str, list[str]]:
    """The topic file's text and the bank's rules it breaks, each at its question's origin."""
    text, starts = topic_text(questions, target)
    _, _, found = validate_file(text, f"{target.topic}.yaml")
    problems = []
    for problem in sorted(found, key=lambda p: p.line):
        index = bisect.bisect_right(starts, problem.line) - 1
        if index < 0:
            problems.append(f"{target.topic}.yaml: {problem.field}: {problem.message}")
        else:
            problems.append(f"{questions[index].origin}: {_field(problem.field)}: {problem.message}")
    return text, problems


def build_topic_file(questions: Sequence[ImportedQuestion], target: Target) -> str:
    """The topic file's text, or FormatError with each problem at its question's origin."""
    problems = _target_problems(target)
    if problems:
        raise FormatError(problems)
    text, problems = _rule_problems(questions, target)
    if problems:
        raise FormatError(list(dict.fromkeys(problems)))
    return text


def _place(problem: str, filename: str) -> int:
    """A problem line's position in the file (its line, or OpenTDB's result index), to list them in order."""
    found = re.match(r":(\d+):| results\[(\d+)\]:", problem[len(filename):]) if problem.startswith(filename) else None
    return int(found.group(1) or found.group(2)) if found else 0


def every_problem(error: FormatError, target: Target, filename: str) -> FormatError:
    """A reader's problems together with the bank's rules broken by the questions it did read, in file
    order: one pass shows them all (up to MAX_REPORTED), so fixing one round never reveals the next."""
    problems = _target_problems(target) + list(error.problems)
    if error.read and not _target_problems(target):
        problems += _rule_problems(error.read, target)[1]
    return FormatError(sorted(dict.fromkeys(problems), key=lambda problem: _place(problem, filename)))


def topics_in(folder: Path) -> dict[str, str]:
    """Topic name -> file of every topic already in `folder` (a bank being built up by imports)."""
    if not folder.is_dir():
        return {}
    bank, _ = check_bank([folder])
    files: dict[str, str] = {}
    for question in bank.questions.values():
        files.setdefault(question.topic, question.source.rsplit(":", 1)[0])
    for name in bank.topics:
        files.setdefault(name, "")
    return files


def write_topic_file(text: str, target: Target, folder: Path, *, replace: bool = False) -> Path:
    """Write `<folder>/<topic>.yaml` atomically; FormatError if the topic is already another file's, or the
    file exists and `replace` is not set."""
    path = folder / f"{target.topic}.yaml"
    if path.exists() and not replace:
        raise FormatError([f"{path}: exists already (--replace to overwrite it)"])
    other = topics_in(folder).get(target.topic)
    if other and Path(other).resolve() != path.resolve():
        raise FormatError([f"{other}: already holds topic {target.topic!r}: choose another --topic"])
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(path, text.encode("utf-8"))
    return path
