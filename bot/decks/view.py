"""What the deck commands say: what a file held (or what to fix in it), the decks of a chat, the
confirmation of a removal. Neutral Messages, in the language of the one who asked."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.domain import Question
from bot.limits import DECK_PROBLEMS_SHOWN
from bot.store.decks import DeckRow, SharedChat
from bot.text.i18n import t
from bot.text.messages import SLOT, Button, CommandHint, Message, Paragraph, Table
from bot.text.units import counted


def questions_counted(language: str, count: int) -> str:
    return counted(language, "deck.questions", count)


def added_message(language: str, name: str, questions: Sequence[Question], kept: int | None) -> Message:
    """"deck `NAME`: 42 questions (12 easy, 20 medium, 10 hard), 3 without explanations", how to play it,
    and, for a replace, how many questions carried over."""
    levels = {level: sum(1 for question in questions if question.difficulty == level) for level in (1, 2, 3)}
    untold = sum(1 for question in questions if not question.explanation)
    blocks = [Paragraph(t(language, "deck.added", name=name, questions=questions_counted(language, len(questions)),
                          easy=levels[1], medium=levels[2], hard=levels[3], untold=untold))]
    if kept is not None:
        blocks.append(Paragraph(t(language, "deck.replaced", kept=kept)))
    blocks.append(Paragraph(t(language, "deck.play", name=name, slot=SLOT), style="muted",
                            inline=CommandHint("quiz", f"deck:{name}", language)))
    return Message(tuple(blocks))


def refused_message(language: str, name: str, problems: Sequence[str]) -> Message:
    """The problems, one `line N: what is wrong` each, at most DECK_PROBLEMS_SHOWN, then "and K more"."""
    shown = list(problems[:DECK_PROBLEMS_SHOWN])
    if len(problems) > len(shown):
        shown.append(t(language, "deck.more", count=len(problems) - len(shown)))
    return Message((Paragraph(t(language, "deck.refused", name=name)), Paragraph("\n".join(shown))))


def _day(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%d")


def list_message(language: str, decks: Sequence[DeckRow]) -> Message:
    """A group's decks: name (as played), questions, who added it (blank once they were forgotten), when."""
    if not decks:
        return Message((Paragraph(t(language, "deck.list_empty")),))
    rows = tuple((f"deck:{deck.name}", str(deck.count), deck.added_by_name or t(language, "deck.someone"),
                  _day(deck.added_at)) for deck in decks)
    return Message((Paragraph(t(language, "deck.list_title"), style="title"),
                    Table(tuple(t(language, "deck.list_columns").split("|")), rows)))


def private_list_message(language: str, decks: Sequence[tuple[SharedChat, DeckRow]]) -> Message:
    """In a DM: the decks of the groups the person shares with the bot, with the group each is in."""
    if not decks:
        return Message((Paragraph(t(language, "deck.list_empty_private")),))
    rows = tuple((f"deck:{deck.name}", f"{chat.title or chat.platform_chat_id} ({chat.platform_chat_id})",
                  str(deck.count), _day(deck.added_at)) for chat, deck in decks)
    return Message((Paragraph(t(language, "deck.list_title_private"), style="title"),
                    Table(tuple(t(language, "deck.list_columns_private").split("|")), rows)))


def removed_message(language: str, name: str, live: bool, reveals: Sequence[tuple[float, str]]) -> Message:
    """The removal done, and what happens to its questions being asked now: they finish normally."""
    blocks = [Paragraph(t(language, "deck.removed", name=name))]
    if reveals:
        blocks.append(Paragraph(t(language, "deck.removed_reveal", time=_local_time(*reveals[0]))))
    elif live:
        blocks.append(Paragraph(t(language, "deck.removed_live")))
    return Message(tuple(blocks))


def _local_time(at: float, zone: str) -> str:
    try:
        local = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        local, zone = ZoneInfo("UTC"), "UTC"
    return f"{datetime.fromtimestamp(at, local).strftime('%H:%M')} ({zone})"


def remove_question(language: str, deck: DeckRow, token: str) -> Message:
    return Message((Paragraph(t(language, "deck.remove_ask", name=deck.name,
                                questions=questions_counted(language, deck.count))),),
                   ((Button(t(language, "deck.remove_button", name=deck.name), token),),))
