"""What the core hands back to an adapter: messages to send and what a button press did.

Adapters render these with their platform's UI; the fields are the whole contract between a use
case and a platform.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.text.messages import Message

if TYPE_CHECKING:
    from bot.interview.engine import AnswerResult


@dataclass(frozen=True)
class Outgoing:
    """A message to send; when it carries a question, report where it went with `Core.posted`."""

    message: Message
    asked_id: int | None = None
    total: int | None = None  # an interview's number of questions, when this starts one


@dataclass(frozen=True)
class Document:
    """A file to send (a Telegram document, a Discord attachment) with a line of text beside it."""

    filename: str
    data: bytes = field(repr=False)
    caption: str = ""


@dataclass(frozen=True)
class ClickReply:
    """What a button click does: a pop-up for the clicker, maybe an edit of the clicked message, and more."""

    popup: str
    alert: bool = False
    edit: Message | None = None
    follow_ups: tuple[Outgoing, ...] = ()
    counter: tuple[int, int] | None = None  # (asked id, answers so far) for a group question's counter
    correct: bool | None = None  # the verdict of a recorded answer
    refused: str | None = None  # why nothing was recorded (AnswerRefused.reason), for logs and tests
    result: AnswerResult | None = None  # an interview answer's outcome, for the console's report
    feedback: Message | None = None  # the verdict and explanation alone, for a place that keeps the question shown
