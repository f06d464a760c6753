"""HTML from other quiz tools (Moodle's editor, GIFT's [html]) as the bank's text subset.

Only what survives into a chat is kept: paragraphs and line breaks, **bold**, `code`, and <pre> as a
fenced block. Every other tag is dropped with its text kept; scripts and styles go entirely.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr", "blockquote"}
_DROPPED = {"script", "style"}
_INLINE = {"b": "**", "strong": "**", "code": "`", "tt": "`", "kbd": "`"}


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.pre = 0
        self.dropped = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in _DROPPED:
            self.dropped += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag == "pre":
            self.pre += 1
            self.parts.append("\n\n```text\n")
        else:
            self._mark(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropped = max(0, self.dropped - 1)
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self.parts.append("\n```\n\n")
        else:
            self._mark(tag)

    def _mark(self, tag: str) -> None:
        """A block boundary or an inline mark, the same at a tag's start and end; none inside <pre>."""
        if self.pre:
            return
        if tag in _BLOCKS:
            self.parts.append("\n\n")
        elif tag in _INLINE:
            self.parts.append(_INLINE[tag])

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        self.parts.append(data if self.pre else re.sub(r"[ \t\r\n]+", " ", data))


def html_to_markup(html: str) -> str:
    """Moodle/GIFT HTML as plain paragraphs with the bank's inline marks; entities decoded."""
    parser = _Markup()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts).replace("\xa0", " ")
    text = re.sub(r"\*\*(\s*)\*\*", r"\1", text)  # an empty <b></b>
    lines = [line.rstrip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def single_line(text: str) -> str:
    """An option: one line, whitespace collapsed (options cannot hold code blocks or line breaks)."""
    return " ".join(text.replace("```", "").split())
