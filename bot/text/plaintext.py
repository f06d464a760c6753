"""Neutral messages as plain text: for the console, logs and tests, and the one table layout every
platform uses (monospaced, by display width)."""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Callable

from bot.text.messages import (Block, CodeBlock, CommandHint, Message, Moment, OptionList, Paragraph, Table, fill_slot,
                               inline_spans)

CommandWriter = Callable[[CommandHint], "str | None"]  # None: this place has no such command

_MARKS = {"correct": "  <- correct", "wrong": "  <- your answer", "none": ""}


def chat_command(hint: CommandHint) -> str:
    """A command as typed in a chat: `/interview ml-scaling-performance`."""
    return f"/{hint.name} {hint.argument}" if hint.argument else f"/{hint.name}"


def inline_text(block: Paragraph, commands: CommandWriter = chat_command) -> str | None:
    """The paragraph's inline value as plain text: a moment in the chat's zone, a command as typed."""
    if isinstance(block.inline, Moment):
        return block.inline.local
    if isinstance(block.inline, CommandHint):
        return commands(block.inline)
    return None


def _paragraph(block: Paragraph, width: int | None, commands: CommandWriter = chat_command) -> str:
    text = "".join(f"`{part}`" if kind == "code" else part for kind, part in inline_spans(block.text))
    shown = inline_text(block, commands)
    if block.inline is not None and shown is None:
        return ""
    if width:
        text = "\n".join(textwrap.fill(line, width, subsequent_indent="  " if line.startswith("- ") else "",
                                        break_on_hyphens=False)
                         for line in text.split("\n"))
    text = fill_slot(text, shown)  # after wrapping: a command or a time is never split across lines
    if block.style == "title":
        return f"{text}\n{'-' * min(len(text), 72)}"
    return text


def _cell(cell: str) -> str:
    """A table cell as plain text: inline markup (backticks, bold) dropped, its text kept."""
    return "".join(value for _, value in inline_spans(cell))


def display_width(text: str) -> int:
    """Columns a monospaced font gives `text`: wide (CJK, most emoji) characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def table_text(table: Table, rule: str = "-") -> str:
    """A monospaced table, the one way every platform draws it: columns padded to their widest cell by
    display width, a rule under the header."""
    rows = [tuple(_cell(c) for c in table.header), *(tuple(_cell(c) for c in row) for row in table.rows)]
    widths = [max(display_width(row[i]) for row in rows if i < len(row)) for i in range(len(table.header))]

    def line(row: tuple[str, ...]) -> str:
        return "  ".join(cell + " " * (widths[i] - display_width(cell)) for i, cell in enumerate(row)).rstrip()

    return "\n".join([line(rows[0]), "  ".join(rule * width for width in widths), *(line(row) for row in rows[1:])])


def _table(block: Table) -> str:
    return "\n".join(f"    {line}" for line in table_text(block).split("\n"))


def render_block(block: Block, width: int | None = None, commands: CommandWriter = chat_command) -> str:
    """One block as text; paragraphs wrap at `width` when given (code and tables never do); a paragraph
    whose command this place lacks (`commands` gives None) is left out."""
    if isinstance(block, Paragraph):
        return _paragraph(block, width, commands)
    if isinstance(block, CodeBlock):
        return "\n".join(f"    {line}" for line in block.code.split("\n"))
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, OptionList):
        return "\n".join(textwrap.fill(f"{line.letter}) {line.text}{_MARKS[line.mark]}", width or 10_000,
                                       initial_indent="  ", subsequent_indent="     ")
                         for line in block.options)
    raise TypeError(f"unknown block {block!r}")


def render_plain(message: Message, with_buttons: bool = True, width: int | None = None,
                 commands: CommandWriter = chat_command) -> str:
    parts = [text for block in message.blocks if (text := render_block(block, width, commands))]
    if with_buttons and message.buttons:
        parts.append("\n".join("  " + "   ".join(f"[{b.label}]" for b in row) for row in message.buttons))
    return "\n\n".join(parts)
