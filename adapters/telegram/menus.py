"""The /interview menus: topic, then level, then length, as inline buttons whose data carries only ids.

    m:t:<topic>                     a topic was chosen   -> the level menu
    m:l:<topic>:<level>[:s]         a level was chosen   -> the length menu
    m:c:<topic>:<level>:<count>[:s] a length was chosen  -> the interview starts

<topic> is an index into the bank's topic names in sorted order, or * for all topics; <level> is a
difficulty 1-3, or 0 for any. A trailing :s is the length menu's "stop once my level is clear" tick
(the console's --stop-when-sure): ticking it re-draws the length menu with longer lengths, read as
"at most", since the interview ends by itself once every topic's band is sure. Every step's choices
travel in the data, so a menu needs no stored state and still works after a restart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.bank.loader import Bank
from bot.domain import InterviewFilters
from bot.text.i18n import t
from bot.text.units import counted
from bot.limits import CALLBACK_DATA_MAX_BYTES
from bot.text.messages import Button, Message, Paragraph
from bot.asking.view import topic_label

COUNTS = (3, 5, 10)
SURE_COUNTS = (10, 20, 30)  # with the tick: the most it may take (it ends after 5 answers at the earliest)
LEVELS = (1, 2, 3)
PATTERN = r"^m:"
SURE = ":s"
_DATA = re.compile(r"^m:(t|l|c):(\*|\d{1,4})(?::([0-3]))?(?::(\d{1,2}))?(:s)?$")


@dataclass(frozen=True)
class MenuChoice:
    """Where a menu click stands: the step just chosen and everything chosen so far."""

    step: str  # "t", "l" or "c"
    topic_key: str  # as carried in the data: an index or *
    topic: str | None  # None: all topics
    level: int | None = None
    count: int | None = None
    stop_when_sure: bool = False

    def filters(self) -> InterviewFilters:
        return InterviewFilters(topics=(self.topic,) if self.topic else (), difficulty=self.level or None,
                                count=self.count or COUNTS[1], stop_when_sure=self.stop_when_sure)


def topic_names(bank: Bank) -> list[str]:
    return sorted(bank.topics)


def _button(label: str, data: str) -> Button:
    assert len(data.encode()) <= CALLBACK_DATA_MAX_BYTES, data
    return Button(label, data)


def topic_menu(bank: Bank, language: str) -> Message:
    names = topic_names(bank)
    by_label = sorted(range(len(names)), key=lambda i: topic_label(bank, names[i], language))
    rows = [(_button(topic_label(bank, names[i], language), f"m:t:{i}"),) for i in by_label]
    rows.append((_button(t(language, "help.any_topic"), "m:t:*"),))
    return Message((Paragraph(t(language, "help.choose_topic")),), tuple(rows))


def level_menu(language: str, topic_key: str) -> Message:
    buttons = [_button(t(language, f"difficulty.{level}"), f"m:l:{topic_key}:{level}") for level in LEVELS]
    rows = (tuple(buttons), (_button(t(language, "help.any_level"), f"m:l:{topic_key}:0"),))
    return Message((Paragraph(t(language, "help.choose_level")),), rows)


def count_menu(language: str, topic_key: str, level: int, sure: bool = False) -> Message:
    """The lengths, and the tick that makes the interview stop once the level is clear (a click on it
    re-draws this menu the other way)."""
    tick = SURE if sure else ""
    buttons = tuple(_button(str(count), f"m:c:{topic_key}:{level}:{count}{tick}")
                    for count in (SURE_COUNTS if sure else COUNTS))
    toggle = _button(t(language, "telegram.menu_sure_on" if sure else "telegram.menu_sure_off"),
                     f"m:l:{topic_key}:{level}" + ("" if sure else SURE))
    prompt = t(language, "telegram.choose_count_sure") if sure else t(language, "help.choose_count")
    return Message((Paragraph(prompt),), (buttons, (toggle,)))


def chosen_message(bank: Bank, language: str, choice: MenuChoice) -> Message:
    """The menu after the last step: what was chosen, without buttons."""
    topic = topic_label(bank, choice.topic, language) if choice.topic else t(language, "help.any_topic")
    level = t(language, f"difficulty.{choice.level}") if choice.level else t(language, "help.any_level")
    count = choice.count or COUNTS[1]
    chosen = counted(language, "telegram.menu_chosen", count, topic=topic, level=level)
    if choice.stop_when_sure:
        chosen += " · " + t(language, "telegram.menu_chosen_sure")
    return Message((Paragraph(chosen, "muted"),))


def parse_menu(bank: Bank, data: str) -> MenuChoice | None:
    """The choice a menu button carries; None for anything malformed or out of range."""
    match = _DATA.match(data or "")
    if match is None:
        return None
    step, topic_key, level, count, sure = match.groups()
    names = topic_names(bank)
    if topic_key != "*" and int(topic_key) >= len(names):
        return None
    topic = None if topic_key == "*" else names[int(topic_key)]
    if (step == "t") != (level is None) or (step == "c") != (count is not None):
        return None
    if (step == "t" and sure) or (count is not None and int(count) not in (SURE_COUNTS if sure else COUNTS)):
        return None
    return MenuChoice(step, topic_key, topic, int(level) if level else None, int(count) if count else None,
                      bool(sure))


def next_menu(language: str, choice: MenuChoice) -> Message:
    """The menu that follows a topic or level choice."""
    if choice.step == "t":
        return level_menu(language, choice.topic_key)
    return count_menu(language, choice.topic_key, choice.level or 0, choice.stop_when_sure)
