"""A question being asked, as a neutral Message: its header, stem, options, buttons and explanation.

Interviews, the daily question and quiz rounds all ask questions; each adds its own notes around this
(a time limit, a reveal time, a countdown), so the shared part lives here, below all of them.
"""

from __future__ import annotations

from bot.asking.delivery import Delivery
from bot.bank.loader import Bank
from bot.domain import LETTERS, Question
from bot.limits import BUTTON_LABEL_MAX, SHORT_OPTION_MAX
from bot.text.i18n import t
from bot.text.markup import parse_markup
from bot.text.messages import Block, Button, Message, OptionLine, OptionList, Paragraph
from bot.text.units import duration
from bot.tokens import answer_token


def topic_label(bank: Bank, topic: str, language: str) -> str:
    known = bank.topics.get(topic)
    return known.label(language) if known else topic


def question_header(bank: Bank, delivery: Delivery) -> Paragraph:
    question = delivery.question
    values = {"topic": topic_label(bank, question.topic, delivery.language),
              "difficulty": t(delivery.language, f"difficulty.{question.difficulty}")}
    if delivery.interview_id is None:
        return Paragraph(t(delivery.language, "question.daily_header", **values), "title")
    return Paragraph(t(delivery.language, "question.header", number=delivery.number, total=delivery.total, **values),
                     "title")


def language_note(question: Question, language: str) -> list[Block]:
    """A question the bank holds only in the other language is shown in it, and says so."""
    if language in question.languages or not question.languages:
        return []
    shown = question.languages[0]
    return [Paragraph(t(language, "question.only_in", language=t(language, f"language.name.{shown}")), "muted")]


def option_lines(delivery: Delivery, chosen: int | None = None, reveal: bool = False) -> OptionList:
    """The options in the order shown; once revealed, the key marked (and a wrong choice, if any)."""
    question, language = delivery.question, delivery.language
    lines = []
    for position, index in enumerate(delivery.asked.option_order):
        mark = "none"
        if reveal and index == question.correct_index:
            mark = "correct"
        elif reveal and index == chosen:
            mark = "wrong"
        lines.append(OptionLine(LETTERS[position], question.options[index].text(language), mark))
    return OptionList(tuple(lines))


def options_fit_buttons(question: Question, language: str) -> bool:
    """Short options go on the buttons themselves; otherwise the buttons carry letters only."""
    return all(len(option.text(language)) <= SHORT_OPTION_MAX for option in question.options)


def answer_buttons(delivery: Delivery) -> tuple[tuple[Button, ...], ...]:
    """One button per option; a row each when labels carry text, one row of letters otherwise."""
    question, language = delivery.question, delivery.language
    letters = [LETTERS[p] for p in range(len(delivery.asked.option_order))]
    if options_fit_buttons(question, language):
        return tuple(
            (Button(f"{letter.upper()}. {question.options[index].text(language)}"[:BUTTON_LABEL_MAX],
                    answer_token(delivery.asked.id, letter)),)
            for letter, index in zip(letters, delivery.asked.option_order)
        )
    return (tuple(Button(letter.upper(), answer_token(delivery.asked.id, letter)) for letter in letters),)


def time_limit_note(delivery: Delivery) -> Paragraph | None:
    """A timed interview question's limit, as a duration in the reader's language."""
    if delivery.asked.deadline is None or delivery.interview_id is None:
        return None
    ms = round(1000 * (delivery.asked.deadline - delivery.asked.asked_at))
    return Paragraph(t(delivery.language, "question.time_limit", time=duration(delivery.language, ms)), "muted")


def question_message(bank: Bank, delivery: Delivery, *, list_options: bool = False,
                     note: Paragraph | None = None) -> Message:
    """The question as first shown: header, stem, options (listed when they do not fit buttons, or when
    `list_options` asks, as a console does), a note (the time limit, or the daily reveal), buttons."""
    blocks: list[Block] = [question_header(bank, delivery), *language_note(delivery.question, delivery.language),
                           *parse_markup(delivery.question.stem(delivery.language))]
    if list_options or not options_fit_buttons(delivery.question, delivery.language):
        blocks.append(option_lines(delivery))
    note = note or time_limit_note(delivery)
    if note is not None:
        blocks.append(note)
    return Message(tuple(blocks), answer_buttons(delivery))


def explanation_blocks(question: Question, language: str) -> list[Block]:
    """Why the key is right; an imported question that came without an explanation says so."""
    if not question.explanation:
        return [Paragraph(t(language, "answer.no_explanation"), "muted")]
    return [Paragraph(t(language, "answer.why"), "title"), *parse_markup(question.explain(language))]
