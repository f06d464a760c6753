"""Neutral Messages as Telegram HTML: escaped text, <pre> code and tables, marked options, inline keyboards.

Every piece of text goes through `html.escape`, and every block renders to balanced HTML on its own,
so a message can be split between blocks (or inside an oversized block) without breaking a tag.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.limits import CALLBACK_DATA_MAX_BYTES
from bot.text.plaintext import table_text as plain_table
from bot.text.messages import (Block, CodeBlock, CommandHint, Message, Moment, OptionList, Paragraph, Table, fill_slot,
                               inline_spans)
from bot.text.plaintext import chat_command

MESSAGE_LIMIT = 4096  # Telegram counts text after parsing; we count the HTML, which is never shorter
CAPTION_LIMIT = 1024
MARKS = {"correct": "✅ ", "wrong": "❌ ", "none": "▫️ "}


@dataclass(frozen=True)
class Rendered:
    """A message ready to send: an optional photo (with its caption), then text parts; buttons go last."""

    texts: tuple[str, ...]
    keyboard: InlineKeyboardMarkup | None = None
    image: bytes | None = None
    caption: str | None = None


def render(message: Message, limit: int = MESSAGE_LIMIT) -> Rendered:
    """The message as Telegram HTML parts, each within `limit`; a short text rides as the photo's caption."""
    parts = split_html([render_block(block) for block in _fitting_blocks(message.blocks, limit)], limit)
    markup = keyboard(message)
    if message.image is not None and len(parts) == 1 and telegram_length(parts[0]) <= CAPTION_LIMIT:
        return Rendered((), markup, message.image, parts[0])
    return Rendered(tuple(parts), markup, message.image)


def telegram_length(text: str) -> int:
    """Length as Telegram measures limits (UTF-16 code units), of the HTML: an upper bound."""
    return len(text.encode("utf-16-le")) // 2


def keyboard(message: Message) -> InlineKeyboardMarkup | None:
    """One inline button per neutral Button; callback_data is the core's token (ids only, <= 64 bytes)."""
    if not message.buttons:
        return None
    rows = []
    for row in message.buttons:
        for button in row:
            if len(button.token.encode()) > CALLBACK_DATA_MAX_BYTES:
                raise ValueError(f"callback_data over {CALLBACK_DATA_MAX_BYTES} bytes: {button.token[:80]!r}")
        rows.append([InlineKeyboardButton(button.label, callback_data=button.token) for button in row])
    return InlineKeyboardMarkup(rows)


def split_html(blocks: list[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    """Join rendered blocks with blank lines into as few parts as fit `limit` (each block must fit)."""
    parts: list[str] = []
    current = ""
    for block in blocks:
        joined = f"{current}\n\n{block}" if current else block
        if current and telegram_length(joined) > limit:
            parts.append(current)
            current = block
        else:
            current = joined
    if current or not parts:
        parts.append(current or "…")
    return parts


# --- blocks -----------------------------------------------------------------------------------------

def render_block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return _paragraph(block)
    if isinstance(block, CodeBlock):
        code = html.escape(block.code, quote=False)
        if block.language:
            return f'<pre><code class="language-{html.escape(block.language)}">{code}</code></pre>'
        return f"<pre>{code}</pre>"
    if isinstance(block, Table):
        return f"<pre>{html.escape(table_text(block), quote=False)}</pre>"
    return _options(block)


def _inline(text: str, *, bold_allowed: bool = True) -> str:
    """Inline `code` and **bold** spans as tags, everything else escaped."""
    out = []
    for kind, value in inline_spans(text):
        escaped = html.escape(value, quote=False)
        if kind == "code":
            out.append(f"<code>{escaped}</code>")
        elif kind == "bold" and bold_allowed:
            out.append(f"<b>{escaped}</b>")
        else:
            out.append(escaped)
    return "".join(out)


def inline_value(paragraph: Paragraph) -> str | None:
    """A moment in the chat's own zone (Telegram cannot show each reader theirs); a command as typed:
    a bare one stays tappable, one with an argument is code (tap to copy)."""
    value = paragraph.inline
    if isinstance(value, Moment):
        return html.escape(value.local, quote=False)
    if isinstance(value, CommandHint):
        typed = html.escape(chat_command(value), quote=False)
        return f"<code>{typed}</code>" if value.argument else typed
    return None


def _paragraph(paragraph: Paragraph) -> str:
    if paragraph.style == "title":
        text = f"<b>{_inline(paragraph.text, bold_allowed=False)}</b>"
    elif paragraph.style == "muted":
        text = f"<i>{_inline(paragraph.text)}</i>"
    else:
        text = _inline(paragraph.text)
    return fill_slot(text, inline_value(paragraph))


def _options(options: OptionList) -> str:
    marked = any(line.mark != "none" for line in options.options)
    lines = []
    for line in options.options:
        prefix = MARKS[line.mark] if marked else ""
        lines.append(f"{prefix}<b>{html.escape(line.letter.upper())}.</b> {_inline(line.text)}")
    return "\n".join(lines)


def table_text(table: Table) -> str:
    return plain_table(table, rule="─")


# --- oversized blocks ---------------------------------------------------------------------------------

def _fitting_blocks(blocks: tuple[Block, ...], limit: int) -> list[Block]:
    """Blocks whose rendering fits `limit`, cutting any that does not into smaller blocks of its kind."""
    out: list[Block] = []
    for block in blocks:
        if telegram_length(render_block(block)) <= limit:
            out.append(block)
        else:
            out.extend(_fitting_blocks(_halves(block), limit))
    return out


def _halves(block: Block) -> tuple[Block, ...]:
    """Two smaller blocks of the same kind, cut at a line (or in the middle of a single long line)."""
    if isinstance(block, Table) and len(block.rows) < 2:
        return (CodeBlock(table_text(block)),)
    if isinstance(block, OptionList) and len(block.options) < 2:
        return tuple(Paragraph(f"{line.letter.upper()}. {line.text}") for line in block.options)
    if isinstance(block, Table):
        middle = max(1, len(block.rows) // 2)
        return Table(block.header, block.rows[:middle]), Table(block.header, block.rows[middle:])
    if isinstance(block, OptionList):
        middle = max(1, len(block.options) // 2)
        return OptionList(block.options[:middle]), OptionList(block.options[middle:])
    text = block.code if isinstance(block, CodeBlock) else block.text
    first, second = _cut(text)
    if isinstance(block, CodeBlock):
        return CodeBlock(first, block.language), CodeBlock(second, block.language)
    return Paragraph(first, block.style, block.inline), Paragraph(second, block.style, block.inline)


def _cut(text: str) -> tuple[str, str]:
    lines = text.split("\n")
    if len(lines) > 1:
        middle = len(lines) // 2
        return "\n".join(lines[:middle]), "\n".join(lines[middle:])
    middle = len(text) // 2
    space = text.rfind(" ", 0, middle)
    cut = space if space > middle // 2 else middle
    return text[:cut], text[cut:].lstrip(" ") or text[cut:]
