"""`questions export`: GIFT and CSV give the same questions back when imported; Anki decks hold one note per
question with stable ids; in both languages."""

from __future__ import annotations

import io
import sqlite3
import zipfile
from pathlib import Path

import pytest

from bot.app.cli import main
from bot.bank.loader import Bank, load_bank
from bot.formats import anki, csv, gift
from bot.formats.export import export_bytes, exported, select
from bot.formats.model import FormatError, ImportedQuestion
from tests.conftest import FIXTURE_BANK

SHIPPED = Path(__file__).parents[3] / "questions"


def content(question: ImportedQuestion) -> tuple:
    """What a round trip must keep: everything but where the question came from."""
    return (question.stem, question.options, question.key, question.explanation, question.difficulty,
            question.tags, question.seniority)


@pytest.fixture(scope="module")
def shipped() -> Bank:
    return load_bank([SHIPPED])


@pytest.mark.parametrize("language", ["en", "tr"])
@pytest.mark.parametrize("fmt", ["gift", "csv"])
def test_export_then_import_gives_the_same_questions_back(shipped: Bank, fmt: str, language: str) -> None:
    """The whole shipped bank: code blocks, tables, backticks, pipes, colons and braces included."""
    questions = list(shipped.questions.values())
    data = export_bytes(questions, fmt, language)
    reader = {"gift": gift.read, "csv": csv.read}[fmt]
    back = reader(data, f"export.{fmt}", language)
    assert [content(q) for q in back] == [content(exported(q, language)) for q in questions]


def test_a_question_without_an_explanation_or_in_one_language_round_trips(tmp_path: Path) -> None:
    odd = [ImportedQuestion("Braces { } and # and ~ and = and :: and \\ back\nslash", ("a|b", "c ~ d"), 1,
                            difficulty=3, tags=("x-y",), seniority="senior", origin="f:1"),
           ImportedQuestion("Plain", ("True", "False"), 0, "Why: because", origin="f:2")]
    for fmt, write, read in (("gift", lambda qs: gift.write(qs, ["q1", "q2"]), gift.read),
                             ("csv", csv.write, csv.read)):
        back = read(write(odd).encode(), f"odd.{fmt}")
        assert [content(q) for q in back] == [content(q) for q in odd], fmt


def apkg_notes(data: bytes) -> tuple[list[tuple], dict]:
    with zipfile.ZipFile(io.BytesIO(data)) as package, package.open("collection.anki2") as stream:
        collection = stream.read()
    with sqlite3.connect(":memory:") as db:
        db.deserialize(collection)
        notes = db.execute("SELECT guid, mid, flds, tags FROM notes ORDER BY id").fetchall()
        decks = db.execute("SELECT decks FROM col").fetchone()[0]
    import json
    return notes, json.loads(decks)


def test_an_anki_deck_has_one_note_per_question_with_stable_ids(bank: Bank) -> None:
    questions = list(bank.questions.values())
    data = export_bytes(questions, "anki", "tr", deck_name="interview-bot::sync-basics", timestamp=1_700_000_000)
    notes, decks = apkg_notes(data)
    assert len(notes) == len(questions)
    deck_id = anki.deck_id("interview-bot::sync-basics")
    assert decks[str(deck_id)]["name"] == "interview-bot::sync-basics"
    first, question = notes[0], questions[0]
    fields = first[2].split("\x1f")
    assert first[1] == anki.MODEL_ID and len(fields) == len(anki.FIELDS)
    assert fields[0].startswith("<p>") and "<li>" in fields[1] and fields[4] == question.id
    letter = question.correct_letter.upper()
    assert f"Cevap: {letter}. " in fields[2]
    assert question.topic in first[3].split() and f"difficulty-{question.difficulty}" in first[3].split()
    again, _ = apkg_notes(export_bytes(questions, "anki", "tr", deck_name="interview-bot::sync-basics",
                                       timestamp=1_800_000_000))
    assert [note[0] for note in again] == [note[0] for note in notes]  # the same guids: Anki updates, not copies
    english, _ = apkg_notes(export_bytes(questions, "anki", "en"))
    assert {note[0] for note in english}.isdisjoint(note[0] for note in notes)


def test_markup_becomes_card_html() -> None:
    html = anki.markup_html("Use `x<y` **now**:\n\n```python\nif a < b:\n    pass\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert html == ("<p>Use <code>x&lt;y</code> <b>now</b>:</p><pre><code>if a &lt; b:\n    pass</code></pre>"
                    "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>")


def test_the_export_command(tmp_path: Path, capsys) -> None:
    out = tmp_path / "deck" / "sync.apkg"
    args = ["--questions", str(FIXTURE_BANK), "questions", "export"]
    assert main([*args, "--to", "anki", "--topic", "sync-basics", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out and zipfile.is_zipfile(out)
    gift_file = tmp_path / "all.gift"
    assert main([*args, "--to", "gift", "--lang", "tr", "--out", str(gift_file)]) == 0
    assert len(gift.read(gift_file.read_bytes(), "all.gift", "tr")) == 5
    assert main([*args, "--to", "csv", "--topic", "no-such-topic", "--out", str(tmp_path / "x.csv")]) == 1
    assert "no such topic" in capsys.readouterr().err and not (tmp_path / "x.csv").exists()


def test_export_refuses_to_overwrite_without_force_and_writes_stdout_for_dash(tmp_path: Path, capfdbinary) -> None:
    """Issue 27, finding 8: export overwrote silently, `--out -` wrote a file named `-`, "wrote 1 questions"."""
    args = ["--questions", str(FIXTURE_BANK), "questions", "export", "--to", "csv"]
    target = tmp_path / "mine.csv"
    target.write_text("precious", encoding="utf-8")
    assert main([*args, "--out", str(target)]) == 1
    assert b"--force" in capfdbinary.readouterr().err and target.read_text(encoding="utf-8") == "precious"
    assert main([*args, "--out", str(target), "--force"]) == 0
    assert target.read_text(encoding="utf-8") != "precious"
    capfdbinary.readouterr()
    assert main([*args, "--topic", "leakage-basics", "--out", "-"]) == 0
    out, err = capfdbinary.readouterr()
    assert not (Path.cwd() / "-").exists() and b"scaler" in out.lower(), out
    assert b"wrote 2 questions (en) to stdout" in err
    from bot.formats.commands import questions_written
    assert questions_written(1) == "1 question" and questions_written(0) == "0 questions"


def test_nothing_to_export_is_an_error() -> None:
    with pytest.raises(FormatError, match="nothing to export"):
        export_bytes([], "csv", "en")
    assert select(load_bank([FIXTURE_BANK]), None)


@pytest.mark.parametrize("source", ["opentdb", "gift", "moodle", "csv"])
@pytest.mark.parametrize("through", ["gift", "csv"])
def test_every_format_round_trips_through_the_bank(tmp_path: Path, source: str, through: str) -> None:
    """A file of each format imported into the bank, exported again and read back: the same questions."""
    import json

    from bot.formats import moodle, opentdb
    from bot.formats.bank_file import Target, build_topic_file
    from tests.bot.formats import test_readers as files

    data = {"opentdb": json.dumps(files.OPENTDB), "gift": files.GIFT, "moodle": files.MOODLE,
            "csv": files.CSV}[source].encode()
    reader = {"opentdb": opentdb.read, "gift": gift.read, "moodle": moodle.read, "csv": csv.read}[source]
    first = reader(data, f"in.{source}", "en")
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "t.yaml").write_text(build_topic_file(first, Target("t", source)), encoding="utf-8")
    bank = load_bank([folder])
    again = {"gift": gift.read, "csv": csv.read}[through](export_bytes(select(bank, "t"), through, "en"), "x", "en")

    def kept(question: ImportedQuestion) -> tuple:  # the bank fills in a seniority where the file had none
        return content(question)[:-1] + (question.seniority or {1: "junior", 2: "mid", 3: "senior"}[question.difficulty],)

    assert [kept(q) for q in again] == [kept(q) for q in first]
