"""Finding topic files, loading them all, and the rules that span files (unique ids and topics)."""

from __future__ import annotations

import ctypes
import gc
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from bot.bank.problems import BankError, Problem
from bot.bank import cache as bank_cache
from bot.bank.validate import validate_file
from bot.domain import Question, Topic


def default_bank_path() -> Path:
    """INTERVIEW_BOT_QUESTIONS if set, else the bank shipped inside the installed package."""
    configured = os.environ.get("INTERVIEW_BOT_QUESTIONS")
    if configured:
        return Path(configured)
    return Path(str(resources.files("questions")))


def find_files(paths: Iterable[Path]) -> list[Path]:
    """Every *.yaml/*.yml file named or found below the named folders, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()))
        else:
            found.append(path)
    return found


def _display_name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@dataclass
class Bank:
    """Every valid question, by id, and every topic, by name."""

    questions: dict[str, Question] = field(default_factory=dict)
    topics: dict[str, Topic] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def get(self, question_id: str) -> Question | None:
        return self.questions.get(question_id)

    def topic_named(self, text: str) -> str | None:
        """The topic a person means: its id or its title in either language, in any letter case."""
        wanted = " ".join(text.split()).casefold()
        for name, topic in self.topics.items():
            if wanted == name.casefold() or wanted in (title.casefold() for title in topic.title.values()):
                return name
        return None

    def select(self, topics: Sequence[str] = (), difficulty: int | None = None,
               seniority: str | None = None) -> list[Question]:
        """Questions matching a filter, in a stable order (bank order)."""
        return [
            question for question in self.questions.values()
            if (not topics or question.topic in topics)
            and (difficulty is None or question.difficulty == difficulty)
            and (seniority is None or question.seniority == seniority)
        ]


def check_bank(paths: Sequence[Path] | None = None) -> tuple[Bank, list[Problem]]:
    """Load everything that is valid and report everything that is not; never raises for bad input.

    The cyclic garbage collector is paused meanwhile: loading creates millions of objects that all
    stay alive, and rescanning them was half the load time of a 10,000-question bank."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _check_bank(paths)
    finally:
        if paused:
            gc.enable()


def _check_bank(paths: Sequence[Path] | None) -> tuple[Bank, list[Problem]]:
    roots = list(paths) if paths else [default_bank_path()]
    bank = Bank()
    problems: list[Problem] = []
    first_seen: dict[str, str] = {}
    topic_files: dict[str, str] = {}
    for root in roots:
        if not root.exists():
            problems.append(Problem(str(root), 1, "path", "does not exist"))
    for path in find_files(root for root in roots if root.exists()):
        name = _display_name(path)
        try:
            data = path.read_bytes()
            cached = bank_cache.load(data, name)
            if cached is None:
                cached = validate_file(data.decode("utf-8"), name)
                bank_cache.store(data, name, cached)
        except (OSError, UnicodeDecodeError) as error:
            problems.append(Problem(name, 1, "file", f"cannot be read: {error}"))
            continue
        topic, questions, file_problems = cached
        problems.extend(file_problems)
        bank.files.append(name)
        if topic is not None:
            if topic.name in topic_files:
                problems.append(Problem(name, 1, "topic", f"{topic.name!r} is already the topic of {topic_files[topic.name]}"))
            topic_files.setdefault(topic.name, name)
            bank.topics.setdefault(topic.name, topic)
        for question in questions:
            if question.id in first_seen:
                file, line = question.source.rsplit(":", 1)
                problems.append(Problem(file, int(line), f"{question.id}.id", f"duplicate id, also at {first_seen[question.id]}"))
                first_file, first_line = first_seen[question.id].rsplit(":", 1)
                problems.append(Problem(first_file, int(first_line), f"{question.id}.id", f"duplicate id, also at {question.source}"))
                continue
            first_seen[question.id] = question.source
            bank.questions[question.id] = question
    return bank, problems


def _return_freed_memory() -> None:
    """Parsing leaves megabytes of freed YAML trees in the heap; hand them back to the system (glibc)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the memory is reused by the process instead
        pass


def load_bank(paths: Sequence[Path] | None = None, keep_verify: bool = False) -> Bank:
    """The bank, or BankError listing every problem: the bot never runs on a half-valid bank.

    The bot never runs the verify snippets (only `questions verify` does, through check_bank), so they
    are dropped unless asked for: with 10,000 questions they were ~25 MB of the running bot's memory."""
    bank, problems = check_bank(paths)
    if not keep_verify:
        bank.questions = {key: replace(question, verify=None) if question.verify else question
                          for key, question in bank.questions.items()}
    _return_freed_memory()
    if problems:
        raise BankError(problems)
    if not bank.questions:
        raise BankError([Problem(", ".join(map(str, paths or [default_bank_path()])), 1, "bank", "holds no questions")])
    return bank
