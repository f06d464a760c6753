"""Moodle XML (`<quiz><question type="multichoice">`, `<answer fraction="100">`, `<generalfeedback>`).

The file comes from a stranger, so it is parsed with defusedxml (no entity expansion bombs, no
external entities or DTDs) through SAX, which knows the line each element starts on. Multichoice
questions with one right answer and truefalse questions are read; categories are skipped; any other
question type is refused with its line. HTML texts become the bank's text subset.
"""

from __future__ import annotations

import xml.sax
from dataclasses import dataclass, field

import defusedxml.sax
from defusedxml import DefusedXmlException

from bot.formats.html_text import html_to_markup, single_line
from bot.formats.model import FormatError, ImportedQuestion, check_count, read_text, slug
from bot.text.i18n import t

MAX_DEPTH = 64


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)
    text: str = ""

    def child(self, tag: str) -> Node | None:
        return next((node for node in self.children if node.tag == tag), None)

    def all(self, tag: str) -> list[Node]:
        return [node for node in self.children if node.tag == tag]

    def body(self, tag: str) -> str:
        """The text of `<tag><text>...</text></tag>`, as the bank's text subset ("" when absent)."""
        holder = self.child(tag)
        inner = holder.child("text") if holder is not None else None
        if inner is None:
            return ""
        return html_to_markup(inner.text) if holder.attrs.get("format", "html") == "html" else inner.text.strip()


class _Builder(xml.sax.ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.root = Node("", {}, 1)
        self.stack = [self.root]
        self.locator: xml.sax.xmlreader.Locator | None = None

    def setDocumentLocator(self, locator: xml.sax.xmlreader.Locator) -> None:
        self.locator = locator

    def startElement(self, name: str, attrs: xml.sax.xmlreader.AttributesImpl) -> None:
        if len(self.stack) > MAX_DEPTH:
            raise xml.sax.SAXParseException(f"elements nested deeper than {MAX_DEPTH}", None, self.locator)
        line = self.locator.getLineNumber() if self.locator else 1
        node = Node(name, dict(attrs.items()), line)
        self.stack[-1].children.append(node)
        self.stack.append(node)

    def endElement(self, name: str) -> None:
        self.stack.pop()

    def characters(self, content: str) -> None:
        self.stack[-1].text += content


def parse(text: str, filename: str) -> Node:
    builder = _Builder()
    try:
        defusedxml.sax.parseString(text.encode("utf-8"), builder, forbid_dtd=True)
    except xml.sax.SAXParseException as error:
        raise FormatError([f"{filename}:{error.getLineNumber() or 1}: not valid XML: {error.getMessage()}"]) from error
    except DefusedXmlException as error:
        line = builder.locator.getLineNumber() if builder.locator else 1
        raise FormatError([f"{filename}:{line}: refused: {type(error).__name__} (DTDs and entities are not read)"]) from error
    return builder.root


def _fraction(answer: Node) -> float | None:
    try:
        return float(answer.attrs.get("fraction", "0"))
    except ValueError:
        return None


def _question(node: Node, filename: str, language: str, problems: list[str]) -> ImportedQuestion | None:
    where = f"{filename}:{node.line}"
    kind = node.attrs.get("type", "")
    stem = node.body("questiontext")
    if not stem:
        problems.append(f"{where}: <questiontext> is missing or empty")
        return None
    explanation = node.body("generalfeedback")
    answers = node.all("answer")
    fractions = [_fraction(answer) for answer in answers]
    if None in fractions:
        problems.append(f"{filename}:{answers[fractions.index(None)].line}: <answer fraction=...> must be a number")
        return None
    keyed = [index for index, fraction in enumerate(fractions) if fraction is not None and fraction >= 100]
    if kind == "truefalse":
        texts = [_answer_text(answer) for answer in answers]
        if sorted(text.lower() for text in texts) != ["false", "true"] or len(keyed) != 1:
            problems.append(f"{where}: a truefalse question needs a true and a false <answer>, one with fraction=100")
            return None
        key = 0 if texts[keyed[0]].lower() == "true" else 1
        return ImportedQuestion(stem, (t(language, "formats.true"), t(language, "formats.false")), key,
                                explanation or answers[keyed[0]].body("feedback"), origin=where)
    if kind != "multichoice":
        problems.append(f"{where}: a {kind or 'typeless'} question: only multichoice and truefalse can be imported")
        return None
    single = node.child("single")
    if single is not None and single.text.strip().lower() in ("false", "0") and len(keyed) != 1:
        problems.append(f"{where}: a multiple-answer question (<single>false</single>): exactly one right answer "
                        "is needed")
        return None
    if len(keyed) != 1:
        problems.append(f"{where}: {len(keyed)} answers with fraction=100; exactly one is needed")
        return None
    options = tuple(_answer_text(answer) for answer in answers)
    explanation = explanation or answers[keyed[0]].body("feedback")
    tags = (slug(_answer_text(tag)) for holder in node.all("tags") for tag in holder.all("tag"))
    return ImportedQuestion(stem, options, keyed[0], explanation, tags=tuple(dict.fromkeys(t for t in tags if t)),
                            origin=where)


def _answer_text(answer: Node) -> str:
    """An `<answer>`'s (or a `<tag>`'s) own text, one line."""
    inner = answer.child("text")
    raw = inner.text if inner is not None else ""
    return single_line(html_to_markup(raw) if answer.attrs.get("format", "html") == "html" else raw)


def read(data: bytes, filename: str, language: str = "en") -> list[ImportedQuestion]:
    """Every question of a Moodle XML quiz, or FormatError listing every problem with its line."""
    root = parse(read_text(data, filename), filename)
    quiz = root.child("quiz")
    if quiz is None:
        raise FormatError([f"{filename}:1: expected a <quiz> element (Moodle XML)"])
    nodes = [node for node in quiz.all("question") if node.attrs.get("type") != "category"]
    check_count(len(nodes), filename)
    problems: list[str] = []
    questions = [_question(node, filename, language, problems) for node in nodes]
    good = [question for question in questions if question is not None]
    if problems:
        raise FormatError(problems, read=good)
    return good
