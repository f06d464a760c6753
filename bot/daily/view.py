"""Daily questions, reveals and subscription settings as neutral messages."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.bank.loader import Bank
from bot.asking.delivery import Delivery
from bot.text.i18n import t
from bot.text.names import clean_name, short_name
from bot.text.markup import parse_markup
from bot.text.messages import SLOT, Block, Message, Paragraph
from bot.text.units import moment, percent, seconds_exact, span
from bot.asking.view import explanation_blocks, language_note, option_lines, question_message, topic_label
from bot.daily.schedule import chat_zone
from bot.schedule.localtime import local_date
from bot.store.daily import PostStats, Subscription

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def reveal_note(delivery: Delivery, tz: ZoneInfo) -> Paragraph | None:
    """When the answer is revealed: in the chat's zone, or each reader's own time where the platform can."""
    asked = delivery.asked
    if asked.deadline is None:
        return None
    return Paragraph(t(delivery.language, "question.reveal_at", slot=SLOT), "muted",
                     moment(delivery.language, asked.deadline, tz, asked.asked_at))


def daily_question_message(bank: Bank, delivery: Delivery, answered: int, tz: ZoneInfo,
                           no_poll_fits: bool = False) -> Message:
    """The posted question, when its answer comes (in the chat's zone `tz`), and a counter of answers
    (never who answered what) while it is open. `no_poll_fits`: the chat asked for quiz polls and no
    question of its filter fits one, so it comes with buttons and says why in one line."""
    message = question_message(bank, delivery, note=reveal_note(delivery, tz))
    extra: list[Block] = []
    if no_poll_fits:
        extra.append(Paragraph(t(delivery.language, "daily.no_poll_fits"), "muted"))
    if answered:
        extra.append(Paragraph(t(delivery.language, "daily.answered_so_far", count=answered), "muted"))
    return Message((*message.blocks, *extra), message.buttons) if extra else message


def reveal_message(bank: Bank, delivery: Delivery, stats: PostStats) -> Message:
    """The closed question: the correct option marked, the explanation, the share right, the fastest."""
    question, language = delivery.question, delivery.language
    letter = delivery.asked.shown_letter_of(question.correct_index).upper()
    blocks: list[Block] = [
        Paragraph(t(language, "daily.reveal_header", topic=topic_label(bank, question.topic, language)), "title"),
        *language_note(question, language),
        *parse_markup(question.stem(language)),
        option_lines(delivery, reveal=True),
        Paragraph(t(language, "daily.answer_is", letter=letter)),
        *explanation_blocks(question, language),
    ]
    blocks.append(Paragraph(t(language, "daily.stats", answered=stats.answered,
                              percent=percent(stats.right, stats.answered))))
    if stats.fastest:
        names = ", ".join(f"{short_name(clean_name(name))} ({seconds_exact(language, ms)})" for name, ms in stats.fastest)
        blocks.append(Paragraph(t(language, "daily.fastest", names=names)))
    return Message(tuple(blocks))


def subscription_message(bank: Bank, subscription: Subscription | None, language: str) -> Message:
    """The chat's daily-question settings, or how to subscribe; first, when it is paused, why and since when
    (the day in the chat's zone)."""
    if subscription is None or not subscription.active:
        return Message((Paragraph(t(language, "daily.not_subscribed")),))
    paused: tuple[Paragraph, ...] = ()
    if subscription.paused_at is not None:
        since = local_date(subscription.paused_at, chat_zone(subscription)).isoformat()
        paused = (Paragraph(t(language, f"daily.paused.{subscription.paused_reason or 'forbidden'}", date=since)),)
    days = (", ".join(t(language, f"daily.weekday.{WEEKDAYS[d]}") for d in subscription.weekdays)
            if subscription.weekdays else t(language, "daily.every_day"))
    topic = topic_label(bank, subscription.topic, language) if subscription.topic else t(language, "interview.all_topics")
    level = t(language, f"difficulty.{subscription.difficulty}") if subscription.difficulty else t(language, "daily.any_level")
    return Message((
        Paragraph(t(language, "daily.settings_title"), "title"),
        *paused,
        Paragraph(t(language, "daily.settings", time=subscription.post_time, timezone=subscription.timezone,
                    days=days, topic=topic, level=level, hours=span(language, subscription.reveal_after_s))),
        Paragraph(t(language, "daily.mode_poll" if subscription.as_poll else "daily.mode_buttons"), "muted"),
    ))
