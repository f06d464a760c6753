"""The bank's text subset parsed into neutral blocks: paragraphs, fenced code and pipe tables."""

from __future__ import annotations

import re

from bot.text.messages import Block, CodeBlock, Paragraph, Table

_FENCE = re.compile(r"^\s*```\s*([\w+-]*)\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


class MarkupError(ValueError):
    """Text that does not follow the subset; `line` is 1-based within the text."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def _cells(row: str) -> tuple[str, ...]:
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return tuple(cell.strip() for cell in row.split("|"))


def _is_table_start(lines: list[str], index: int) -> bool:
    return (
        "|" in lines[index]
        and index + 1 < len(lines)
        and bool(_TABLE_RULE.match(lines[index + 1]))
    )


def _read_table(lines: list[str], start: int) -> tuple[Table, int]:
    header = _cells(lines[start])
    rows: list[tuple[str, ...]] = []
    index = start + 2
    while index < len(lines) and "|" in lines[index] and lines[index].strip():
        row = _cells(lines[index])
        if len(row) != len(header):
            raise MarkupError(index + 1, f"table row has {len(row)} cells, the header has {len(header)}")
        rows.append(row)
        index += 1
    return Table(header, tuple(rows)), index


def parse_markup(text: str) -> tuple[Block, ...]:
    """Blocks of a stem or explanation; raises MarkupError on an unclosed fence or a ragged table."""
    lines = text.strip("\n").split("\n")
    blocks: list[Block] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(Paragraph(_join_lines(paragraph)))
            paragraph.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            flush()
            end = next((j for j in range(index + 1, len(lines)) if _FENCE.match(lines[j])), None)
            if end is None:
                raise MarkupError(index + 1, "code block is not closed with ```")
            blocks.append(CodeBlock(_dedent(lines[index + 1 : end]), fence.group(1)))
            index = end + 1
        elif _is_table_start(lines, index):
            flush()
            table, index = _read_table(lines, index)
            blocks.append(table)
        elif not line.strip():
            flush()
            index += 1
        else:
            paragraph.append(line)
            index += 1
    flush()
    return tuple(blocks)


_LIST_ITEM = re.compile(r"^\s*([-*]|\d+[.)])\s")


def _join_lines(lines: list[str]) -> str:
    """Wrapped lines join with a space (as in Markdown); list items keep their own line."""
    text = lines[0].strip()
    for line in lines[1:]:
        text += ("\n" if _LIST_ITEM.match(line) else " ") + line.strip()
    return text


def _dedent(lines: list[str]) -> str:
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines).rstrip()
