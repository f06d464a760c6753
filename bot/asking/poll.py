"""A question being asked as a native quiz poll (a daily question, a quiz round), when it fits one
(bot/bank/poll_fit.py); otherwise None and the buttons stay."""

from __future__ import annotations

from bot.bank.poll_fit import fits_poll, option_text, plain, stem_text
from bot.domain import Question
from bot.asking.delivery import Delivery
from bot.limits import POLL_EXPLANATION_MAX
from bot.text.messages import Poll

ELLIPSIS = "…"


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
    if not fits_poll(question, language):
        return None
    stem = stem_text(question, language)
    assert stem is not None
    options = tuple(option_text(question, index, language) for index in delivery.asked.option_order)
    correct = delivery.asked.option_order.index(question.correct_index)
    return Poll(stem, options, correct, short_explanation(question, language), max(0, open_seconds))
