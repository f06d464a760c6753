"""Neutral messages as plain text: for the console, logs and tests."""

from __future__ import annotations

import textwrap

from bot.text.messages import Block, CodeBlock, Message, OptionList, Paragraph, Table, inline_spans

_MARKS = {"correct": "  <- correct", "wrong": "  <- your answer", "none": ""}


def _paragraph(block: Paragraph, width: int | None) -> str:
    text = "".join(f"`{part}`" if kind == "code" else part for kind, part in inline_spans(block.text))
    if width:
        text = "\n".join(textwrap.fill(line, width, subsequent_indent="  " if line.startswith("- ") else "")
                         for line in text.split("\n"))
    if block.style == "title":
        return f"{text}\n{'-' * min(len(text), 72)}"
    return text


def _table(block: Table) -> str:
    rows = [block.header, *block.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(block.header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(f"    {line}" for line in lines)


def render_block(block: Block, width: int | None = None) -> str:
    """One block as text; paragraphs wrap at `width` when given (code and tables never do)."""
    if isinstance(block, Paragraph):
        return _paragraph(block, width)
    if isinstance(block, CodeBlock):
        return "\n".join(f"    {line}" for line in block.code.split("\n"))
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, OptionList):
        return "\n".join(textwrap.fill(f"{line.letter}) {line.text}{_MARKS[line.mark]}", width or 10_000,
                                       initial_indent="  ", subsequent_indent="     ")
                         for line in block.options)
    raise TypeError(f"unknown block {block!r}")


def render_plain(message: Message, with_buttons: bool = True, width: int | None = None) -> str:
    parts = [render_block(block, width) for block in message.blocks]
    if with_buttons and message.buttons:
        parts.append("\n".join("  " + "   ".join(f"[{b.label}]" for b in row) for row in message.buttons))
    return "\n\n".join(parts)
