"""Whether a question fits a native quiz poll: plain text within the poll's limits.

A poll shows plain text only (question 300 characters, options 100). A stem with a code block or a
table would lose its meaning there, so such a question does not fit. The daily question chooses among
questions that fit when a chat asked for polls, and `questions stats` counts them per topic, so both
use this one rule.
"""

from __future__ import annotations

from bot.domain import Question
from bot.limits import POLL_OPTION_MAX, POLL_QUESTION_MAX
from bot.text.markup import parse_markup
from bot.text.messages import Paragraph, inline_spans


def plain(text: str) -> str:
    """Paragraph text without its markup: `code` keeps its backticks (they mean code), bold drops its stars."""
    return "".join(f"`{part}`" if kind == "code" else part for kind, part in inline_spans(text))


def stem_text(question: Question, language: str) -> str | None:
    """The stem as plain paragraphs, or None when it holds a code block or a table."""
    blocks = parse_markup(question.stem(language))
    if not all(isinstance(block, Paragraph) for block in blocks):
        return None
    return "\n\n".join(plain(block.text) for block in blocks)  # type: ignore[union-attr]


def option_text(question: Question, index: int, language: str) -> str:
    """One option as a poll shows it: plain, on one line."""
    return " ".join(plain(question.options[index].text(language)).split())


def fits_poll(question: Question, language: str) -> bool:
    """True when the question, in `language`, can go out as a quiz poll without losing anything."""
    stem = stem_text(question, language)
    if stem is None or not 1 <= len(stem) <= POLL_QUESTION_MAX:
        return False
    return all(1 <= len(option_text(question, index, language)) <= POLL_OPTION_MAX
               for index in range(len(question.options)))


class PollFit:
    """`fits_poll`, remembered per question and language: a daily minute asks it of the same pool for
    every chat that chose polls."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], bool] = {}

    def __call__(self, question: Question, language: str) -> bool:
        key = (question.id, language)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = fits_poll(question, language)
        return known
