"""The neutral message model: what the core says, kept as structure for adapters to render natively.

Text blocks keep code and tables apart from prose so that Telegram can use <pre><code>, Discord code
fences and the console plain indentation. Inline `code` and **bold** stay in Paragraph text as the
Markdown subset described in questions/README.md; adapters convert them (see `inline_spans`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class Moment:
    """An instant in a sentence. Discord shows each reader their own time (`<t:at:t>`); elsewhere
    `local` is shown: the same instant already written in the chat's zone and language by the core."""

    at: int  # Unix seconds
    local: str


@dataclass(frozen=True)
class CommandHint:
    """A command to tap or type as the next step, with its one argument (a topic name) if any; each
    platform writes it its own way (`/interview x`, `/interview topic:x`, `--topic x`)."""

    name: str
    argument: str | None = None
    language: str = "en"  # the message's: a platform that names its commands per language (Discord) needs it


Inline = Moment | CommandHint
SLOT = "{slot}"  # where a paragraph's inline value goes in its text


@dataclass(frozen=True)
class Paragraph:
    text: str
    style: Literal["plain", "title", "muted"] = "plain"
    inline: Inline | None = None  # fills the text's one SLOT, rendered natively by each platform


def fill_slot(rendered: str, shown: str | None) -> str:
    """A paragraph's rendered text with its slot filled (`shown` already in the renderer's markup)."""
    return rendered if shown is None else rendered.replace(SLOT, shown, 1)


@dataclass(frozen=True)
class CodeBlock:
    code: str
    language: str = ""


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


Mark = Literal["correct", "wrong", "none"]


@dataclass(frozen=True)
class OptionLine:
    """An option as listed in a message; `mark` is set once the answer is known."""

    letter: str
    text: str
    mark: Mark = "none"


@dataclass(frozen=True)
class OptionList:
    options: tuple[OptionLine, ...]


Block = Paragraph | CodeBlock | Table | OptionList


@dataclass(frozen=True)
class Button:
    """A button: what it says and the token the core receives when it is pressed."""

    label: str
    token: str


@dataclass(frozen=True)
class Poll:
    """The same question as a native quiz poll, for a platform that has them (Telegram); plain text only,
    already within Telegram's poll limits. A platform without polls shows the message's blocks and buttons."""

    question: str
    options: tuple[str, ...]  # in the order shown: position p answers as letter p
    correct: int  # position of the key in `options`
    explanation: str  # shown on a wrong vote; the full one comes at the reveal
    open_seconds: int  # until the reveal, for a platform that can close the poll by itself


@dataclass(frozen=True)
class Message:
    """A whole message: blocks, rows of buttons, an optional image (PNG bytes), and optionally the same
    question as a quiz poll (`poll`), which a platform with polls may send instead of blocks and buttons.
    The model knows no renderer: adapters render it, and bot.text.plaintext gives its plain text."""

    blocks: tuple[Block, ...]
    buttons: tuple[tuple[Button, ...], ...] = ()
    image: bytes | None = field(default=None, repr=False)
    poll: Poll | None = None


Span = tuple[Literal["text", "code", "bold"], str]
_INLINE = re.compile(r"`([^`\n]+)`|\*\*([^*\n]+)\*\*")


def inline_spans(text: str) -> list[Span]:
    """Split paragraph text into plain, `code` and **bold** spans."""
    spans: list[Span] = []
    position = 0
    for match in _INLINE.finditer(text):
        if match.start() > position:
            spans.append(("text", text[position : match.start()]))
        if match.group(1) is not None:
            spans.append(("code", match.group(1)))
        else:
            spans.append(("bold", match.group(2)))
        position = match.end()
    if position < len(text):
        spans.append(("text", text[position:]))
    return spans
