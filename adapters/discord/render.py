"""Neutral Messages as Discord embeds and button views, within Discord's limits.

A message becomes one or more `Part`s (what one Discord message can carry: up to 10 embeds and
6000 characters of embed text, one view, files). Paragraphs keep Discord's own Markdown for
`code` and **bold**, code blocks become ```python fences, tables monospaced code blocks, option
lists lettered lines with marks. A question (a message with buttons) carries its header, topic and
level in the footer; other messages use the first title as the embed title. Trailing muted lines
go to the footer. An image becomes an attached PNG shown in the last embed.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any

import discord

from adapters.discord.buttons import AnswerButton
from adapters.discord.translator import command_name, typed_both
from bot.text.i18n import t
from bot.limits import BUTTON_LABEL_MAX
from bot.text.plaintext import table_text as plain_table
from bot.text.messages import (Block, Button, CodeBlock, CommandHint, Message, Moment, OptionList, Paragraph, Table,
                               fill_slot, inline_spans)

TITLE_MAX, DESCRIPTION_MAX, FOOTER_MAX = 256, 4096, 2048
EMBEDS_PER_MESSAGE, EMBED_TEXT_PER_MESSAGE = 10, 6000
BUTTONS_PER_ROW, ROWS_MAX = 5, 5
IMAGE_NAME = "chart.png"
COLOUR = discord.Colour.blurple()
_MARKS = {"correct": " ✅", "wrong": " ❌", "none": ""}
_SPECIAL = re.compile(r"([\\*_~|`])")
_LINE_START = re.compile(r"^([#>])", re.MULTILINE)


@dataclass
class Part:
    """What one Discord message carries; files are made fresh for each send (a File is read once)."""

    embeds: list[discord.Embed]
    buttons: tuple[tuple[Button, ...], ...] = ()
    image: bytes | None = field(default=None, repr=False)

    def view(self) -> discord.ui.View | None:
        return answer_view(self.buttons) if self.buttons else None

    def files(self) -> list[discord.File]:
        return [discord.File(io.BytesIO(self.image), filename=IMAGE_NAME)] if self.image else []

    def send_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for channel.send, response.send_message or followup.send."""
        kwargs: dict[str, Any] = {"embeds": self.embeds}
        view = self.view()
        if view is not None:
            kwargs["view"] = view
        files = self.files()
        if files:
            kwargs["files"] = files
        return kwargs


def escape(text: str) -> str:
    """Plain text safe from Discord Markdown (lists and line breaks are kept)."""
    return _LINE_START.sub(r"\\\1", _SPECIAL.sub(r"\\\1", text))


def inline(text: str) -> str:
    """Paragraph text: `code` and **bold** kept as Discord Markdown, everything else escaped."""
    pieces = []
    for kind, part in inline_spans(text):
        if kind == "code":
            pieces.append(f"`{part.replace('`', 'ˋ')}`")
        elif kind == "bold":
            pieces.append(f"**{escape(part)}**")
        else:
            pieces.append(escape(part))
    return "".join(pieces)


def plain(text: str) -> str:
    """Text for places without Markdown (titles, footers): the markers dropped."""
    return "".join(part for _kind, part in inline_spans(text))


def fence(code: str, language: str = "python") -> str:
    return f"```{language}\n{code.replace('```', '`ˋ`')}\n```"


def table_text(block: Table) -> str:
    return fence(plain_table(block), "")


def inline_value(paragraph: Paragraph) -> str | None:
    """A moment as Discord timestamps (each reader sees their own time, and how far off it is); a
    command as code: `/interview topic:x`."""
    value = paragraph.inline
    if isinstance(value, Moment):
        return f"<t:{value.at}:t> (<t:{value.at}:R>)"
    if isinstance(value, CommandHint):
        return command_hint(value)
    return None


def command_hint(hint: CommandHint) -> str:
    """`/interview topic:x`, in the hint's language (`/mülakat konu:x`) with the English beside."""
    def written(language: str) -> str:
        name = f"/{command_name(hint.name, language)}"
        return f"{name} {t(language, 'discord.option.topic.name')}:{hint.argument}" if hint.argument else name

    return typed_both(written(hint.language), written("en"))


def block_text(block: Block) -> str:
    if isinstance(block, Paragraph):
        text = inline(block.text)
        text = f"**{text}**" if block.style == "title" else f"*{text}*" if block.style == "muted" else text
        return fill_slot(text, inline_value(block))
    if isinstance(block, CodeBlock):
        return fence(block.code, block.language or "python")
    if isinstance(block, Table):
        return table_text(block)
    if isinstance(block, OptionList):
        return "\n".join(f"**{line.letter.upper()}.** {inline(line.text)}{_MARKS[line.mark]}" for line in block.options)
    raise TypeError(f"unknown block {block!r}")


def _pieces(text: str, limit: int) -> list[str]:
    """A block's text cut at line ends to fit `limit` (a code fence closed and reopened around each piece)."""
    if len(text) <= limit:
        return [text]
    opening = text.split("\n", 1)[0] if text.startswith("```") and text.endswith("\n```") else ""
    body = text[len(opening) + 1 : -4] if opening else text
    room = limit - (len(opening) + 5 if opening else 0)
    lines = [line[start : start + room] for line in body.split("\n") for start in range(0, max(len(line), 1), room)]
    chunks: list[str] = []
    current: str | None = None
    for line in lines:
        if current is None:
            current = line
        elif len(current) + 1 + len(line) > room:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}"
    chunks.append(current or "")
    return [f"{opening}\n{chunk}\n```" if opening else chunk for chunk in chunks]


def _split_header(message: Message) -> tuple[str | None, list[str], list[Block]]:
    """(title, footer lines, body blocks): the first title and the trailing muted paragraphs taken out
    (not one with an inline value: a footer shows no timestamps or Markdown)."""
    blocks = list(message.blocks)
    footer: list[str] = []
    while blocks and isinstance(blocks[-1], Paragraph) and blocks[-1].style == "muted" and blocks[-1].inline is None:
        footer.insert(0, plain(blocks.pop().text))
    title = None
    if blocks and isinstance(blocks[0], Paragraph) and blocks[0].style == "title":
        title = plain(blocks.pop(0).text)
    if title and message.buttons:  # a question: header, topic and level in the footer
        footer.insert(0, title)
        title = None
    return title, footer, blocks


def descriptions(blocks: list[Block]) -> list[str]:
    """Block texts packed into embed descriptions of at most 4096 characters."""
    out: list[str] = []
    current = ""
    for block in blocks:
        for piece in _pieces(block_text(block), DESCRIPTION_MAX):
            candidate = f"{current}\n\n{piece}" if current else piece
            if len(candidate) > DESCRIPTION_MAX:
                out.append(current)
                current = piece
            else:
                current = candidate
    if current or not out:
        out.append(current)
    return out


def render(message: Message) -> list[Part]:
    """The message as Discord messages: embeds grouped within the per-message limits, buttons and
    image on the last part."""
    title, footer, blocks = _split_header(message)
    embeds = [discord.Embed(description=text or None, colour=COLOUR) for text in descriptions(blocks)]
    if title:
        embeds[0].title = title[:TITLE_MAX]
    if footer:
        embeds[-1].set_footer(text="\n".join(footer)[:FOOTER_MAX])
    if message.image:
        embeds[-1].set_image(url=f"attachment://{IMAGE_NAME}")
    parts: list[Part] = []
    group: list[discord.Embed] = []
    for embed in embeds:
        if group and (len(group) == EMBEDS_PER_MESSAGE or sum(map(len, group)) + len(embed) > EMBED_TEXT_PER_MESSAGE):
            parts.append(Part(group))
            group = []
        group.append(embed)
    parts.append(Part(group, message.buttons, message.image))
    return parts


def button_rows(rows: tuple[tuple[Button, ...], ...]) -> list[list[Button]]:
    """The message's rows re-flowed to Discord's 5 per row and 5 rows (25 buttons at most)."""
    flowed: list[list[Button]] = []
    for row in rows:
        for start in range(0, len(row), BUTTONS_PER_ROW):
            flowed.append(list(row[start : start + BUTTONS_PER_ROW]))
    return flowed[:ROWS_MAX]


def answer_view(rows: tuple[tuple[Button, ...], ...]) -> discord.ui.View:
    """A view of answer buttons that needs no memory: every button is a DynamicItem found by its custom_id."""
    view = discord.ui.View(timeout=None)
    for number, row in enumerate(button_rows(rows)):
        for button in row:
            view.add_item(AnswerButton.from_token(button.token, plain(button.label)[:BUTTON_LABEL_MAX], number))
    return view
