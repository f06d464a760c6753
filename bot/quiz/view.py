"""A quiz round in words: the start, each question with its closing time, each question's result with the
top three so far, and the final ranking; in the chat's language."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.asking.delivery import Delivery
from bot.asking.poll import short_explanation
from bot.asking.view import question_message, topic_label
from bot.bank.loader import Bank
from bot.quiz.scoring import Standing
from bot.text.i18n import t
from bot.text.messages import SLOT, Message, Paragraph, Table
from bot.text.names import clean_name, short_name
from bot.text.units import counted, moment

UTC = ZoneInfo("UTC")


def started_message(bank: Bank, language: str, topic: str | None, count: int, seconds: int) -> Message:
    label = topic_label(bank, topic, language) if topic else t(language, "help.any_topic")
    return Message((Paragraph(t(language, "quiz.started", count=count, topic=label, seconds=seconds)),))


def round_question_message(bank: Bank, delivery: Delivery, seconds: int, closes_at: float) -> Message:
    """The question with the round's header (n/N) and its closing time, read natively where it can be."""
    question, language = delivery.question, delivery.language
    header = Paragraph(t(language, "quiz.header", number=delivery.number, total=delivery.total,
                         topic=topic_label(bank, question.topic, language),
                         difficulty=t(language, f"difficulty.{question.difficulty}")), "title")
    closes = Paragraph(t(language, "quiz.closes", seconds=seconds, slot=SLOT), "muted",
                       moment(language, closes_at, UTC, delivery.asked.asked_at))
    message = question_message(bank, delivery, note=closes)
    return Message((header, *message.blocks[1:]), message.buttons)


def points_text(language: str, points: int) -> str:
    """2,850 / 2.850: thousands grouped as the reader writes them."""
    return f"{points:,}".replace(",", "." if language == "tr" else ",")


def top_names(language: str, standings: list[Standing], count: int = 3) -> str:
    return ", ".join(f"{s.place}. {short_name(clean_name(s.name))} ({points_text(language, s.points)})"
                     for s in standings[:count])


def result_message(bank: Bank, delivery: Delivery, answered: int, right: int, standings: list[Standing]) -> Message:
    """After a question closes: the right answer, one line of why, how many got it, the top three so far."""
    question, language = delivery.question, delivery.language
    letter = delivery.asked.shown_letter_of(question.correct_index).upper()
    blocks = [
        Paragraph(t(language, "quiz.header", number=delivery.number, total=delivery.total,
                    topic=topic_label(bank, question.topic, language),
                    difficulty=t(language, f"difficulty.{question.difficulty}")), "title"),
        Paragraph(t(language, "quiz.answer_was", letter=letter,
                    option=question.options[question.correct_index].text(language))),
        Paragraph(short_explanation(question, language), "muted"),
        Paragraph(counted(language, "quiz.got_it", answered, right=right) if answered else t(language, "quiz.nobody")),
    ]
    if standings:
        blocks.append(Paragraph(t(language, "quiz.top", names=top_names(language, standings))))
    return Message(tuple(blocks))


def final_message(language: str, reason: str, asked: int, total: int, standings: list[Standing]) -> Message:
    """The final ranking: place, name, points, right answers, for everyone who played."""
    blocks: list = [Paragraph(t(language, f"quiz.over_{reason}", asked=asked, total=total), "title")]
    if standings:
        header = tuple(t(language, "quiz.ranking_columns").split("|"))
        rows = tuple((str(s.place), short_name(clean_name(s.name)), points_text(language, s.points), f"{s.right}/{asked}")
                     for s in standings)
        blocks += [Table(header, rows), Paragraph(t(language, "quiz.counted"), "muted")]
    else:
        blocks.append(Paragraph(t(language, "quiz.nobody_played"), "muted"))
    return Message(tuple(blocks))


def text_message(language: str, key: str, **values: object) -> Message:
    return Message((Paragraph(t(language, key, **values)),))
