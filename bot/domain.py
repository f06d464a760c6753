"""Domain values shared by the core: questions as loaded from the bank, and what an interview produces.

They are frozen dataclasses so that a loaded bank can be shared by every adapter without copies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping
from typing import Literal, TypeVar

from bot.learner.verdict import Level

Language = Literal["tr", "en"]
LANGUAGES: tuple[Language, ...] = ("en", "tr")
SENIORITIES: tuple[str, ...] = ("junior", "mid", "senior")
LETTERS = "abcdef"
K = TypeVar("K")


def pick_language(texts: Mapping[str, str], language: str) -> str:
    """The text in `language`, else in the other language: every text exists in at least one."""
    if language in texts:
        return texts[language]
    for other in LANGUAGES:
        if other in texts:
            return texts[other]
    return ""


@dataclass(frozen=True, slots=True)  # the bank holds thousands
class Option:
    """One answer option; `texts` maps a language to its text."""

    texts: dict[str, str]
    correct: bool = False

    def text(self, language: str) -> str:
        return pick_language(self.texts, language)


@dataclass(frozen=True, slots=True)  # the bank holds thousands
class Verify:
    """A proof by running code: a snippet that must derive the keyed letter."""

    code: str
    requires: tuple[str, ...] = ()
    timeout: float = 60.0


@dataclass(frozen=True, slots=True)  # the bank holds thousands
class Question:
    """A multiple-choice question; option letters are a, b, ... in file order."""

    id: str
    role: str
    specialty: str
    topic: str
    difficulty: int
    seniority: str
    text: Mapping[str, str]  # bot.bank.packed.PackedTexts once loaded: kept compressed
    options: tuple[Option, ...]
    explanation: Mapping[str, str]
    tags: tuple[str, ...] = ()
    verify: Verify | None = None
    source: str = ""  # "file:line", for messages about this question

    @property
    def correct_index(self) -> int:
        return next(i for i, option in enumerate(self.options) if option.correct)

    @property
    def correct_letter(self) -> str:
        return LETTERS[self.correct_index]

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(lang for lang in LANGUAGES if lang in self.text)

    def stem(self, language: str) -> str:
        return pick_language(self.text, language)

    def explain(self, language: str) -> str:
        return pick_language(self.explanation, language)


@dataclass(frozen=True, slots=True)  # the bank holds thousands
class Topic:
    """A topic file's header: where its questions sit in the taxonomy and how menus name it."""

    role: str
    specialty: str
    name: str
    title: dict[str, str]

    def label(self, language: str) -> str:
        return pick_language(self.title, language) or self.name


@dataclass(frozen=True)
class InterviewFilters:
    """What a user asked for when starting an interview."""

    topics: tuple[str, ...] = ()
    difficulty: int | None = None
    seniority: str | None = None
    count: int = 5
    time_limit_s: int | None = None
    repeatable: bool = False  # the same questions for the same seed, whatever was asked before (no "fresh first")
    adaptive: bool | None = None  # None: adaptive unless the difficulty is pinned
    stop_when_sure: bool = False  # an adaptive interview may end early once every topic's level is known


@dataclass(frozen=True)
class UserRef:
    """A person as a platform knows them; the store maps it to its own id."""

    platform: str
    platform_id: str
    name: str = ""
    locale: str | None = None


@dataclass(frozen=True)
class ChatRef:
    """A conversation (a DM, a group, a channel) as a platform knows it."""

    platform: str
    platform_id: str
    kind: Literal["private", "group", "channel"] = "private"
    title: str = ""
    locale: str | None = None


@dataclass(frozen=True)
class ChatAddress:
    """Where a delivery port sends: the platform and its own id of the chat, nothing of the store."""

    platform: str
    platform_id: str


@dataclass(frozen=True)
class AskedQuestion:
    """One delivery of a question, with the option order shown (indices into the file's options)."""

    id: int
    question_id: str
    chat_id: int
    interview_id: int | None
    position: int
    option_order: tuple[int, ...]
    asked_at: float
    deadline: float | None
    closed_at: float | None

    def shown_letter_of(self, option_index: int) -> str:
        return LETTERS[self.option_order.index(option_index)]

    def option_index_of(self, shown_letter: str) -> int | None:
        position = LETTERS.find(shown_letter)
        if position < 0 or position >= len(self.option_order):
            return None
        return self.option_order[position]


@dataclass(frozen=True)
class RecordedAnswer:
    """An answer as committed to the store."""

    asked_id: int
    user_id: int
    option_index: int | None  # None: the time ran out
    correct: bool
    latency_ms: int | None
    answered_at: float
    points: int = 0


@dataclass(frozen=True)
class QuestionResult:
    """How one question of an interview went, for the report."""

    question: Question
    asked: AskedQuestion
    chosen_index: int | None
    correct: bool
    latency_ms: int | None

    @property
    def chosen_letter(self) -> str | None:
        return None if self.chosen_index is None else self.asked.shown_letter_of(self.chosen_index)

    @property
    def correct_letter(self) -> str:
        return self.asked.shown_letter_of(self.question.correct_index)


@dataclass(frozen=True)
class Breakdown:
    """Right answers out of questions for one topic or difficulty."""

    right: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.right / self.total if self.total else 0.0


def tally(pairs: Iterable[tuple[K, bool]]) -> dict[K, Breakdown]:
    """(key, right?) pairs counted into a Breakdown per key, in key order."""
    counts: dict[K, list[int]] = {}
    for key, correct in pairs:
        cell = counts.setdefault(key, [0, 0])
        cell[0] += bool(correct)
        cell[1] += 1
    return {key: Breakdown(right, total) for key, (right, total) in sorted(counts.items())}  # type: ignore[type-var]


@dataclass(frozen=True)
class Report:
    """The scored end of an interview."""

    interview_id: int
    status: str
    results: tuple[QuestionResult, ...]
    by_topic: dict[str, Breakdown] = field(default_factory=dict)
    by_difficulty: dict[int, Breakdown] = field(default_factory=dict)
    total_time_ms: int = 0
    mean_time_ms: int = 0
    weakest_topic: str | None = None
    levels: dict[str, Level] = field(default_factory=dict)  # the verdict per topic asked
    level: Level | None = None  # ... and overall
    ended_sure: bool = False  # asked to stop when sure, it ended before its count: every topic's band >= 90% sure

    @property
    def score(self) -> int:
        return sum(1 for result in self.results if result.correct)

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def missed(self) -> tuple[QuestionResult, ...]:
        return tuple(result for result in self.results if not result.correct)
