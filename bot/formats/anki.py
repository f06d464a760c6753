"""Questions as an Anki deck (.apkg) through genanki: one note per question, the stem and lettered options
on the front, the key and the explanation on the back, tagged by topic and difficulty.

The model id and each deck's id are fixed (the deck's from its name), and each note's guid comes from
the question id and language, so importing a newer export into Anki updates the cards a person already
studies instead of adding copies.
"""

from __future__ import annotations

import hashlib
import html
import io
from collections.abc import Sequence

from bot.domain import LETTERS, Question
from bot.text.i18n import t
from bot.text.markup import parse_markup
from bot.text.messages import CodeBlock, Paragraph, Table, inline_spans

MODEL_ID = 1_838_257_041  # chosen once; changing it would make Anki see a new note type
MODEL_NAME = "interview-bot multiple choice"
FIELDS = ("Question", "Options", "Answer", "Explanation", "Id")
CSS = """.card { font-family: sans-serif; font-size: 18px; text-align: left; }
ol.options { list-style-type: upper-alpha; }
pre { background: #f4f4f4; padding: 6px; overflow-x: auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #999; padding: 2px 6px; }
.muted { color: #777; }"""


def deck_id(name: str) -> int:
    """A deck id from the deck's name: the same deck every export, in genanki's suggested range."""
    digest = int(hashlib.sha256(f"interview-bot deck:{name}".encode()).hexdigest()[:12], 16)
    return (1 << 30) + digest % (1 << 30)


def _inline(text: str) -> str:
    parts = []
    for kind, part in inline_spans(text):
        escaped = html.escape(part)
        parts.append({"code": f"<code>{escaped}</code>", "bold": f"<b>{escaped}</b>"}.get(kind, escaped))
    return "".join(parts).replace("\n", "<br>")


def markup_html(text: str) -> str:
    """The bank's text subset as HTML for a card: paragraphs, code blocks, tables."""
    out = []
    for block in parse_markup(text):
        if isinstance(block, Paragraph):
            out.append(f"<p>{_inline(block.text)}</p>")
        elif isinstance(block, CodeBlock):
            out.append(f"<pre><code>{html.escape(block.code)}</code></pre>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{_inline(cell)}</th>" for cell in block.header)
            rows = "".join("<tr>" + "".join(f"<td>{_inline(cell)}</td>" for cell in row) + "</tr>"
                           for row in block.rows)
            out.append(f"<table><tr>{head}</tr>{rows}</table>")
    return "".join(out)


def _model():  # noqa: ANN202 - genanki has no types
    import genanki

    return genanki.Model(
        MODEL_ID, MODEL_NAME, fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Question", "qfmt": "{{Question}}{{Options}}",
                    "afmt": "{{FrontSide}}<hr id=answer>{{Answer}}{{Explanation}}"}],
        css=CSS)


def note_fields(question: Question, language: str) -> list[str]:
    """The note's fields: stem, options, key, explanation (or the note that there is none), id."""
    options = "".join(f"<li>{html.escape(option.text(language))}</li>" for option in question.options)
    key = question.options[question.correct_index].text(language)
    answer = f"<p><b>{html.escape(t(language, 'export.answer', letter=LETTERS[question.correct_index].upper(), text=key))}</b></p>"
    explanation = (markup_html(question.explain(language)) if question.explanation
                   else f"<p class=muted>{html.escape(t(language, 'answer.no_explanation'))}</p>")
    return [markup_html(question.stem(language)), f'<ol class="options">{options}</ol>', answer, explanation,
            html.escape(question.id)]


def tags_of(question: Question) -> list[str]:
    return [question.topic, f"difficulty-{question.difficulty}", *question.tags]


def deck_bytes(questions: Sequence[Question], language: str, deck_name: str, timestamp: float | None = None) -> bytes:
    """The .apkg file's bytes (genanki writes its collection to a temporary file first)."""
    import genanki

    model = _model()
    deck = genanki.Deck(deck_id(deck_name), deck_name)
    for question in questions:
        deck.add_note(genanki.Note(model=model, fields=note_fields(question, language), tags=tags_of(question),
                                   guid=genanki.guid_for("interview-bot", question.id, language)))
    buffer = io.BytesIO()
    genanki.Package(deck).write_to_file(buffer, timestamp=timestamp)
    return buffer.getvalue()
