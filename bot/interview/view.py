"""Turns engine results into neutral Messages in the user's language; adapters only render them."""

from __future__ import annotations

from bot.bank.loader import Bank
from bot.domain import LETTERS, Question, Report
from bot.interview.engine import AnswerResult, Delivery
from bot.text.i18n import t
from bot.text.units import duration, percent
from bot.limits import BUTTON_LABEL_MAX, SHORT_OPTION_MAX
from bot.text.markup import parse_markup
from bot.text.messages import Block, Button, Message, OptionLine, OptionList, Paragraph
from bot.tokens import answer_token


def topic_label(bank: Bank, topic: str, language: str) -> str:
    known = bank.topics.get(topic)
    return known.label(language) if known else topic


def _header(bank: Bank, delivery: Delivery) -> Paragraph:
    question = delivery.question
    values = {"topic": topic_label(bank, question.topic, delivery.language),
              "difficulty": t(delivery.language, f"difficulty.{question.difficulty}")}
    if delivery.interview_id is None:
        return Paragraph(t(delivery.language, "question.daily_header", **values), "title")
    return Paragraph(t(delivery.language, "question.header", number=delivery.number, total=delivery.total, **values),
                     "title")


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


def question_message(bank: Bank, delivery: Delivery, *, list_options: bool = False) -> Message:
    """The question as first shown: header, stem, options (listed when they do not fit buttons, or when
    `list_options` asks, as a console does), buttons."""
    blocks: list[Block] = [_header(bank, delivery), *parse_markup(delivery.question.stem(delivery.language))]
    if list_options or not options_fit_buttons(delivery.question, delivery.language):
        blocks.append(option_lines(delivery))
    if delivery.asked.deadline is not None:
        seconds = round(delivery.asked.deadline - delivery.asked.asked_at)
        blocks.append(Paragraph(t(delivery.language, "question.time_limit", seconds=seconds), "muted"))
    return Message(tuple(blocks), answer_buttons(delivery))


def verdict(result: AnswerResult) -> str:
    delivery = result.delivery
    letter = delivery.asked.shown_letter_of(delivery.question.correct_index).upper()
    if result.chosen_index is None:
        return t(delivery.language, "answer.timeout", letter=letter)
    if result.correct:
        return t(delivery.language, "answer.right", letter=letter)
    chosen = delivery.asked.shown_letter_of(result.chosen_index).upper()
    return t(delivery.language, "answer.wrong", chosen=chosen, letter=letter)


def explanation_blocks(question: Question, language: str) -> list[Block]:
    return [Paragraph(t(language, "answer.why"), "title"), *parse_markup(question.explain(language))]


def feedback_message(result: AnswerResult) -> Message:
    """Just the verdict and the explanation, for a place that keeps the question on screen."""
    delivery = result.delivery
    return Message((Paragraph(verdict(result)), *explanation_blocks(delivery.question, delivery.language)))


def result_message(bank: Bank, result: AnswerResult) -> Message:
    """The question edited after an answer: options marked, the verdict, and the explanation."""
    delivery = result.delivery
    blocks: list[Block] = [_header(bank, delivery), *parse_markup(delivery.question.stem(delivery.language)),
                           option_lines(delivery, result.chosen_index, reveal=True),
                           Paragraph(verdict(result)),
                           *explanation_blocks(delivery.question, delivery.language)]
    return Message(tuple(blocks))


def report_message(bank: Bank, report: Report, language: str) -> Message:
    """The scored report: score, time, per topic and difficulty, the weakest topic, what to review."""
    blocks: list[Block] = [Paragraph(t(language, "report.title"), "title")]
    if report.status == "stopped":
        blocks.append(Paragraph(t(language, "report.stopped"), "muted"))
    blocks.append(Paragraph(t(language, "report.score", score=report.score, total=report.total,
                              percent=percent(report.score, report.total))))
    blocks.append(Paragraph(t(language, "report.time", total=duration(language, report.total_time_ms),
                              mean=duration(language, report.mean_time_ms))))
    topic_lines = [t(language, "report.line", name=topic_label(bank, name, language), right=b.right, total=b.total,
                     percent=percent(b.right, b.total)) for name, b in report.by_topic.items()]
    difficulty_lines = [t(language, "report.line", name=t(language, f"difficulty.{level}"), right=b.right,
                          total=b.total, percent=percent(b.right, b.total)) for level, b in report.by_difficulty.items()]
    if topic_lines:
        blocks.append(Paragraph(t(language, "report.by_topic"), "title"))
        blocks.append(Paragraph("\n".join(f"- {line}" for line in topic_lines)))
        blocks.append(Paragraph(t(language, "report.by_difficulty"), "title"))
        blocks.append(Paragraph("\n".join(f"- {line}" for line in difficulty_lines)))
    if report.weakest_topic:
        blocks.append(Paragraph(t(language, "report.weakest", topic=topic_label(bank, report.weakest_topic, language))))
    if report.missed:
        blocks.append(Paragraph(t(language, "report.missed"), "title"))
        for missed in report.missed:
            stem = parse_markup(missed.question.stem(language))
            first = next((b.text for b in stem if isinstance(b, Paragraph)), missed.question.id)
            short = first if len(first) <= 140 else first[:137] + "..."
            blocks.append(Paragraph(t(language, "report.missed_line", id=missed.question.id, stem=short)))
            key = missed.question.options[missed.question.correct_index].text(language)
            blocks.append(Paragraph(t(language, "report.answer_was", answer=key)))
            blocks.extend(parse_markup(missed.question.explain(language)))
    elif report.total:
        blocks.append(Paragraph(t(language, "report.perfect")))
    return Message(tuple(blocks))
