"""Turns engine results into neutral Messages in the user's language; adapters only render them."""

from __future__ import annotations

from bot.bank.loader import Bank
from bot.domain import Breakdown, Question, QuestionResult, Report
from bot.asking.view import explanation_blocks, language_note, option_lines, question_header, topic_label
from bot.interview.engine import AnswerResult
from bot.learner.view import level_blocks
from bot.text.i18n import t
from bot.text.units import counted, duration, percent
from bot.text.markup import parse_markup
from bot.text.messages import SLOT, Block, CommandHint, Message, Paragraph


def verdict(result: AnswerResult) -> str:
    delivery = result.delivery
    letter = delivery.asked.shown_letter_of(delivery.question.correct_index).upper()
    if result.chosen_index is None:
        return t(delivery.language, "answer.timeout", letter=letter)
    if result.correct:
        return t(delivery.language, "answer.right", letter=letter)
    chosen = delivery.asked.shown_letter_of(result.chosen_index).upper()
    return t(delivery.language, "answer.wrong", chosen=chosen, letter=letter)


def feedback_message(result: AnswerResult) -> Message:
    """Just the verdict and the explanation, for a place that keeps the question on screen."""
    delivery = result.delivery
    return Message((Paragraph(verdict(result)), *explanation_blocks(delivery.question, delivery.language)))


def result_message(bank: Bank, result: AnswerResult) -> Message:
    """The question edited after an answer: options marked, the verdict, and the explanation."""
    delivery = result.delivery
    blocks: list[Block] = [question_header(bank, delivery), *language_note(delivery.question, delivery.language),
                           *parse_markup(delivery.question.stem(delivery.language)),
                           option_lines(delivery, result.chosen_index, reveal=True),
                           Paragraph(verdict(result)),
                           *explanation_blocks(delivery.question, delivery.language)]
    return Message(tuple(blocks))


def report_message(bank: Bank, report: Report, language: str, due: int = 0) -> Message:
    """The scored report: score, time, per topic and difficulty, what to review (what was chosen, what
    is right), and the next step as a command; `due` is how many review cards wait."""
    blocks: list[Block] = [Paragraph(t(language, "report.title"), "title")]
    if report.status == "stopped":
        blocks.append(Paragraph(t(language, "report.stopped"), "muted"))
    if report.ended_sure:
        blocks.append(Paragraph(t(language, "report.ended_sure", count=report.total), "muted"))
    if report.total == 0:
        blocks.append(Paragraph(t(language, "report.no_answers")))
    else:
        blocks += score_blocks(bank, report, language)
        blocks += level_blocks(report.levels, report.level, language, lambda name: topic_label(bank, name, language))
        blocks += review_blocks(report, language)
    blocks += next_step_blocks(bank, report, language, due)
    return Message(tuple(blocks))


def _tally_line(language: str, name: str, tally: Breakdown) -> str:
    return "- " + t(language, "report.line", name=name, right=tally.right, total=tally.total,
                    percent=percent(tally.right, tally.total))


def score_blocks(bank: Bank, report: Report, language: str) -> list[Block]:
    """Score, time, and accuracy per topic and per difficulty."""
    return [
        Paragraph(t(language, "report.score", score=report.score, total=report.total,
                    percent=percent(report.score, report.total))),
        Paragraph(t(language, "report.time", total=duration(language, report.total_time_ms),
                    mean=duration(language, report.mean_time_ms))),
        Paragraph(t(language, "report.by_topic"), "title"),
        Paragraph("\n".join(_tally_line(language, topic_label(bank, name, language), tally)
                            for name, tally in report.by_topic.items())),
        Paragraph(t(language, "report.by_difficulty"), "title"),
        Paragraph("\n".join(_tally_line(language, t(language, f"difficulty.{level}"), tally)
                            for level, tally in report.by_difficulty.items())),
    ]


STEM_SHOWN = 140  # characters of a missed question's stem in the report
OPTION_SHOWN = 80  # characters of an option quoted in "you chose ..."


def cut_at_word(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut at a word (never mid-word unless one word is that long)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    if cut < limit // 2:
        cut = limit - 1
    return text[:cut].rstrip(" ,;:.") + "…"


def _first_paragraph(question: Question, language: str) -> str:
    stem = parse_markup(question.stem(language))
    return next((block.text for block in stem if isinstance(block, Paragraph)), question.id)


def choice_line(missed: QuestionResult, language: str) -> str:
    """'You chose C (28 GB); the answer is A (42 GB).', or that the time ran out."""
    question = missed.question

    def option(index: int) -> str:
        return cut_at_word(question.options[index].text(language), OPTION_SHOWN)

    values = {"letter": missed.correct_letter.upper(), "answer": option(question.correct_index)}
    if missed.chosen_index is None:
        return t(language, "report.ran_out", **values)
    return t(language, "report.you_chose", chosen=(missed.chosen_letter or "?").upper(),
             chosen_text=option(missed.chosen_index), **values)


def review_blocks(report: Report, language: str) -> list[Block]:
    """Each missed question: its stem cut at a word, what was chosen and what is right, the explanation."""
    if not report.missed:
        return [Paragraph(t(language, "report.perfect"))]
    blocks: list[Block] = [Paragraph(t(language, "report.missed"), "title")]
    for missed in report.missed:
        stem = cut_at_word(_first_paragraph(missed.question, language), STEM_SHOWN)
        blocks.append(Paragraph(t(language, "report.missed_line", id=missed.question.id, stem=stem)))
        blocks.append(Paragraph(choice_line(missed, language)))
        if missed.question.explanation:
            blocks.extend(parse_markup(missed.question.explain(language)))
    return blocks


def next_step_blocks(bank: Bank, report: Report, language: str, due: int) -> list[Block]:
    """The report's last word: what to do next, as a command to tap or type (reviews when due, the
    weakest topic, else a new interview)."""
    steps: list[Block] = []
    if due:
        steps.append(Paragraph(counted(language, "report.next_review", due, slot=SLOT), inline=CommandHint("review", language=language)))
    if report.weakest_topic:
        steps.append(Paragraph(t(language, "report.next_weakest", slot=SLOT,
                                 topic=topic_label(bank, report.weakest_topic, language)),
                               inline=CommandHint("interview", report.weakest_topic, language)))
    else:
        steps.append(Paragraph(t(language, "report.next_again", slot=SLOT), inline=CommandHint("interview", language=language)))
    return [Paragraph(t(language, "report.next_title"), "title"), *steps]
