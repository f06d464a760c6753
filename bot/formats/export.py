"""The bank (or one topic of it) in another format, in one language: bytes ready to write to a file."""

from __future__ import annotations

from collections.abc import Sequence

from bot.bank.loader import Bank
from bot.domain import Question
from bot.formats import anki, csv, gift
from bot.formats.model import FormatError, ImportedQuestion

EXPORT_FORMATS = ("anki", "gift", "csv")


def exported(question: Question, language: str) -> ImportedQuestion:
    """A bank question in one language, as the writers take it (the other language where it lacks one)."""
    explanation = question.explain(language) if question.explanation else ""
    return ImportedQuestion(question.stem(language), tuple(option.text(language) for option in question.options),
                            question.correct_index, explanation, question.difficulty, question.tags,
                            question.seniority, question.source)


def select(bank: Bank, topic: str | None) -> list[Question]:
    """Every question, or one topic's (named by its id or its title in either language)."""
    if topic is None:
        return list(bank.questions.values())
    name = bank.topic_named(topic)
    if name is None:
        known = ", ".join(sorted(bank.topics)) or "none"
        raise FormatError([f"--topic {topic[:60]!r}: no such topic (known: {known})"])
    return bank.select(topics=(name,))


def export_bytes(questions: Sequence[Question], fmt: str, language: str, *, deck_name: str = "interview-bot",
                 timestamp: float | None = None) -> bytes:
    """The questions as an Anki package, a GIFT file or a CSV file."""
    if not questions:
        raise FormatError(["nothing to export: the selection holds no questions"])
    if fmt == "anki":
        return anki.deck_bytes(questions, language, deck_name, timestamp)
    plain = [exported(question, language) for question in questions]
    if fmt == "gift":
        return gift.write(plain, (question.id for question in questions)).encode("utf-8")
    if fmt == "csv":
        return csv.write(plain).encode("utf-8")
    raise FormatError([f"--to {fmt!r}: one of {', '.join(EXPORT_FORMATS)}"])
