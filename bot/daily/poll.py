"""A daily question as a native quiz poll, when it fits one; otherwise None and the buttons stay.

A poll shows plain text only, within small limits (question 300 characters, options 100, explanation
200 with at most two line feeds). A stem with a code block or a table would lose its meaning in a
poll, so such a question, or one too long for the limits, goes out with buttons instead.
"""

from __future__ import annotations

from bot.domain import Question
from bot.interview.engine import Delivery
from bot.limits import POLL_EXPLANATION_MAX, POLL_OPTION_MAX, POLL_QUESTION_MAX
from bot.text.markup import parse_markup
from bot.text.messages import Paragraph, Poll, inline_spans

ELLIPSIS = "…"


def plain(text: str) -> str:
    """Paragraph text without its markup: `code` keeps its backticks (they mean code), bold drops its stars."""
    return "".join(f"`{part}`" if kind == "code" else part for kind, part in inline_spans(text))


def stem_text(question: Question, language: str) -> str | None:
    """The stem as plain paragraphs, or None when it holds a code block or a table."""
    blocks = parse_markup(question.stem(language))
    if not all(isinstance(block, Paragraph) for block in blocks):
        return None
    return "\n\n".join(plain(block.text) for block in blocks)  # type: ignore[union-attr]


def short_explanation(question: Question, language: str) -> str:
    """The explanation on one line, cut to the poll's limit at a word where it can be."""
    text = " ".join(plain(question.explain(language)).split())
    if len(text) <= POLL_EXPLANATION_MAX:
        return text
    cut = text[: POLL_EXPLANATION_MAX - len(ELLIPSIS)]
    space = cut.rfind(" ")
    return (cut[:space] if space > POLL_EXPLANATION_MAX // 2 else cut).rstrip(" ,;:.") + ELLIPSIS


def quiz_poll(delivery: Delivery, open_seconds: int) -> Poll | None:
    """The asked question as a quiz poll (options in the order shown), or None when it does not fit one."""
    question, language = delivery.question, delivery.language
    stem = stem_text(question, language)
    if stem is None or not 1 <= len(stem) <= POLL_QUESTION_MAX:
        return None
    options = tuple(" ".join(plain(question.options[index].text(language)).split())
                    for index in delivery.asked.option_order)
    if not all(1 <= len(option) <= POLL_OPTION_MAX for option in options):
        return None
    correct = delivery.asked.option_order.index(question.correct_index)
    return Poll(stem, options, correct, short_explanation(question, language), max(0, open_seconds))
