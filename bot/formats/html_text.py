"""HTML from other quiz tools (Moodle's editor, GIFT's [html]) as the bank's text subset.

Only what survives into a chat is kept: paragraphs and line breaks, **bold**, `code`, and <pre> as a
fenced block. Every other tag is dropped with its text kept; scripts and styles go entirely.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr", "blockquote"}
_DROPPED = {"script", "style"}


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
        elif self.pre:
            return
        elif tag in _BLOCKS:
            self.parts.append("\n\n")
        elif tag in ("b", "strong"):
            self.parts.append("**")
        elif tag in ("code", "tt", "kbd"):
            self.parts.append("`")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropped = max(0, self.dropped - 1)
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self.parts.append("\n```\n\n")
        elif self.pre:
            return
        elif tag in _BLOCKS:
            self.parts.append("\n\n")
        elif tag in ("b", "strong"):
            self.parts.append("**")
        elif tag in ("code", "tt", "kbd"):
            self.parts.append("`")

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
