"""The bot's commands, shared by every platform: name, where it is offered, and its help text key.

Telegram registers them with setMyCommands (one list for private chats, one for groups), Discord as
slash commands; both take descriptions from the catalogs (`command.<name>`), in Turkish and English.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Collection
from typing import Literal

from bot.text.i18n import t
from bot.text.messages import Message, Paragraph

Where = Literal["private", "group", "both"]


@dataclass(frozen=True)
class Command:
    name: str
    where: Where
    admin: bool = False  # group settings: chat administrators (Telegram) / Manage Server (Discord)

    def description(self, language: str) -> str:
        return t(language, f"command.{self.name}")


COMMANDS: tuple[Command, ...] = (
    Command("start", "private"),
    Command("interview", "private"),
    Command("stop", "private"),
    Command("progress", "both"),
    Command("history", "private"),
    Command("review", "private"),
    Command("export", "private"),
    Command("daily", "group", admin=True),
    Command("subscribe", "group", admin=True),
    Command("unsubscribe", "group", admin=True),
    Command("settings", "group"),
    Command("leaderboard", "group"),
    Command("quiz", "group"),
    Command("deck", "group"),  # add and remove: administrators (checked by each platform); list and export: anyone
    Command("groups", "both"),
    Command("language", "both"),
    Command("forget", "private"),
    Command("help", "both"),
)


def commands_for(where: Literal["private", "group"]) -> tuple[Command, ...]:
    return tuple(command for command in COMMANDS if command.where in (where, "both"))


def typed(name: str) -> str:
    """A command as it is typed: `/name`."""
    return f"`/{name}`"


def help_message(language: str, where: Literal["private", "group"], *, keys: str = "command",
                 offered: Collection[str] | None = None, shown: Callable[[str], str] = typed) -> Message:
    """What the bot does and every command offered here, one line each; every platform's /help.

    `keys` names the catalog of descriptions (a platform may word its commands its own way, e.g.
    Discord's slash options instead of typed arguments); `offered` leaves out what a platform lacks;
    `shown` writes a command's name (Discord names its commands in the reader's language)."""
    lines = "\n".join(f"- {shown(command.name)}: {t(language, f'{keys}.{command.name}')}"
                      for command in commands_for(where) if offered is None or command.name in offered)
    return Message((Paragraph(t(language, "help.title"), "title"), Paragraph(t(language, f"help.intro_{where}")),
                    Paragraph(t(language, "help.commands_title"), "title"), Paragraph(lines)))


def group_welcome_message(language: str, start_key: str = "help.group_welcome_start") -> Message:
    """The first words in a group the bot was just added to: what it does here and how an admin starts
    the daily question (`start_key`: the platform's way of typing /subscribe)."""
    return Message((Paragraph(t(language, "help.group_welcome_title"), "title"),
                    Paragraph(t(language, "help.group_welcome")), Paragraph(t(language, start_key))))


def welcome_message(language: str) -> Message:
    return Message((Paragraph(t(language, "help.welcome_title"), "title"), Paragraph(t(language, "help.welcome")),
                    Paragraph(t(language, "help.welcome_next"))))
