"""`questions import`: a file in, a topic file the bank accepts out; a bad file names its line and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.app.cli import main
from bot.bank.loader import load_bank
from bot.bank.validate import validate_file
from bot.formats.bank_file import Target, build_topic_file, question_ids
from bot.formats.model import FormatError, ImportedQuestion
from tests.conftest import FIXTURE_BANK

GIFT = """// interview-bot: difficulty=1 tags=optimisers
Which optimiser keeps per-parameter step sizes? {=Adam ~SGD ~Plain gradient descent ####Adam scales by a running RMS.}

Weight decay adds a penalty on the weights. {T}
"""


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_an_imported_file_passes_validate_and_loads_as_a_bank(tmp_path: Path, capsys) -> None:
    source, out = write(tmp_path, "opt.gift", GIFT), tmp_path / "bank"
    assert main(["questions", "import", str(source), "--from", "gift", "--topic", "optimisers", "--out", str(out)]) == 0
    assert "wrote 2 questions (1 without an explanation)" in capsys.readouterr().out
    assert main(["questions", "validate", str(out)]) == 0
    bank = load_bank([out, FIXTURE_BANK])  # served beside another bank, no id or topic clashes
    adam, penalty = bank.select(topics=("optimisers",))
    assert (adam.id, adam.difficulty, adam.seniority, adam.tags) == ("optimisers-001", 1, "junior", ("optimisers",))
    assert adam.text == {"en": "Which optimiser keeps per-parameter step sizes?"} and adam.correct_letter == "a"
    assert adam.explanation == {"en": "Adam scales by a running RMS."}
    assert penalty.explanation == {} and [o.texts for o in penalty.options] == [{"en": "True"}, {"en": "False"}]
    assert bank.topics["optimisers"].specialty == "imported"


def test_a_bad_file_writes_nothing_and_names_the_line(tmp_path: Path, capsys) -> None:
    source, out = write(tmp_path, "bad.gift", GIFT + "\nShort answer? {=yes =sure}\n"), tmp_path / "bank"
    assert main(["questions", "import", str(source), "--from", "gift", "--topic", "t", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{source}:6: a short-answer question" in err and "nothing written" in err
    assert not out.exists()


def test_the_bank_rules_are_traced_back_to_the_source_line(tmp_path: Path, capsys) -> None:
    long_stem = "x" * 2600
    source = write(tmp_path, "q.csv", f"stem,options,key\nFine?,a|b,a\n{long_stem},a|b|c|d|e|f|g,b\n")
    out = tmp_path / "bank"
    assert main(["questions", "import", str(source), "--from", "csv", "--topic", "t", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{source}:3: stem: 2600 characters, over the limit of 2500" in err
    assert f"{source}:3: options: needs 2 to 6 options, found 7" in err
    assert not out.exists()


def test_a_topic_already_in_the_folder_or_a_file_in_the_way_is_refused(tmp_path: Path, capsys) -> None:
    source, out = write(tmp_path, "opt.gift", GIFT), tmp_path / "bank"
    args = ["questions", "import", str(source), "--from", "gift", "--out", str(out)]
    assert main([*args, "--topic", "optimisers"]) == 0
    before = (out / "optimisers.yaml").read_bytes()
    assert main([*args, "--topic", "optimisers"]) == 1
    assert "exists already (--replace to overwrite it)" in capsys.readouterr().err
    (out / "optimisers.yaml").rename(out / "renamed.yaml")
    assert main([*args, "--topic", "optimisers"]) == 1
    assert "already holds topic 'optimisers'" in capsys.readouterr().err
    assert main([*args, "--topic", "optimisers-2", "--replace"]) == 0
    assert (out / "renamed.yaml").read_bytes() == before


def test_bad_arguments_and_unreadable_files(tmp_path: Path, capsys) -> None:
    source, out = write(tmp_path, "opt.gift", GIFT), tmp_path / "bank"
    assert main(["questions", "import", str(source), "--from", "gift", "--topic", "Not A Slug", "--out", str(out)]) == 1
    assert "--topic 'Not A Slug': lowercase-with-dashes" in capsys.readouterr().err
    assert main(["questions", "import", str(tmp_path / "none.gift"), "--from", "gift", "--topic", "t",
                 "--out", str(out)]) == 1
    assert "none.gift: cannot be read" in capsys.readouterr().err
    assert not out.exists()


def test_opentdb_in_turkish_gives_turkish_true_false(tmp_path: Path) -> None:
    document = {"results": [{"type": "boolean", "difficulty": "hard", "category": "Bilim",
                             "question": "ReLU t&uuml;revlenebilir her yerde.", "correct_answer": "False",
                             "incorrect_answers": ["True"]}]}
    source, out = write(tmp_path, "tdb.json", json.dumps(document)), tmp_path / "bank"
    assert main(["questions", "import", str(source), "--from", "opentdb", "--topic", "aktivasyon", "--lang", "tr",
                 "--out", str(out)]) == 0
    (question,) = load_bank([out]).questions.values()
    assert question.text == {"tr": "ReLU türevlenebilir her yerde."} and question.correct_letter == "b"
    assert [option.texts for option in question.options] == [{"tr": "Doğru"}, {"tr": "Yanlış"}]


def test_ids_stay_within_the_limit_and_unique() -> None:
    ids = question_ids("a-" + "b" * 60, 12_000)
    assert len(set(ids)) == 12_000 and max(map(len, ids)) <= 40 and ids[0].endswith("-00001")


def test_yaml_special_text_survives_the_writer() -> None:
    tricky = ImportedQuestion("yes: no # not a comment\n\n```python\nprint('{a}')\n```", ("'quoted'", "- dash", "null"),
                              2, "Trailing spaces   \nand a tab\tinside", origin="f:1")
    text = build_topic_file([tricky], Target("tricky", "csv"))
    _, (question,), problems = validate_file(text, "tricky.yaml")
    assert problems == []
    assert question.text["en"] == tricky.stem and [o.texts["en"] for o in question.options] == list(tricky.options)
    assert question.explanation["en"] == tricky.explanation.strip()


def test_a_markup_error_in_the_source_is_reported_at_its_question() -> None:
    broken = ImportedQuestion("An unclosed fence:\n```python\nx = 1", ("a", "b"), 0, origin="src.gift:7")
    with pytest.raises(FormatError, match=r"^src.gift:7: stem: "):
        build_topic_file([broken], Target("fences", "gift"))


def test_hostile_sizes_are_refused_with_one_line(tmp_path: Path, capsys) -> None:
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as stream:  # sparse: 21 MB that cost nothing to make
        stream.truncate(21 * 1024 * 1024)
    out = tmp_path / "bank"
    assert main(["questions", "import", str(huge), "--from", "csv", "--topic", "t", "--out", str(out)]) == 1
    assert "huge.csv:1: 20971521 bytes, over the limit of 20971520" in capsys.readouterr().err
    many = write(tmp_path, "many.csv", "stem,options,key\n" + "Q,a|b,a\n" * 10_001)
    assert main(["questions", "import", str(many), "--from", "csv", "--topic", "t", "--out", str(out)]) == 1
    assert "10001 questions, over the limit of 10000 per file" in capsys.readouterr().err
    wide = write(tmp_path, "wide.csv", "stem,options,key\n" + "x" * 200_000 + ",a|b,a\n")
    assert main(["questions", "import", str(wide), "--from", "csv", "--topic", "t", "--out", str(out)]) == 1
    assert "wide.csv:2: not valid CSV: field larger than field limit" in capsys.readouterr().err
    assert not out.exists()


def test_a_gift_answer_block_may_hold_blank_lines_and_a_long_one_reads_in_linear_time(tmp_path: Path) -> None:
    from bot.formats import gift

    (question,) = gift.read(b"Stem {\n=right\n\n~wrong\n}\n", "q.gift")
    assert question.options == ("right", "wrong")
    with pytest.raises(FormatError, match=r"^q.gift:1: no answers"):
        gift.read(b"Never closed {\n" + b"~x\n" * 200_000, "q.gift")


def test_written_files_are_readable_by_others(tmp_path: Path) -> None:
    source, out = write(tmp_path, "opt.gift", GIFT), tmp_path / "bank"
    assert main(["questions", "import", str(source), "--from", "gift", "--topic", "optimisers", "--out", str(out)]) == 0
    assert (out / "optimisers.yaml").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in out.iterdir()] == ["optimisers.yaml"]  # no temporary file left


def test_an_out_folder_that_is_a_file_is_one_line(tmp_path: Path, capsys) -> None:
    source, out = write(tmp_path, "opt.gift", GIFT), write(tmp_path, "not-a-folder", "x")
    assert main(["questions", "import", str(source), "--from", "gift", "--topic", "t", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "not-a-folder: cannot be written" in err and "Traceback" not in err
    assert out.read_text() == "x"


@pytest.mark.parametrize("name, source, text, line", [
    ("csv", "csv", "stem,options,key\nFine?,a|b,a\n\"Red \x1b[31mstem\x1b]0;title\x07?\",a|b\x1b[2J,a\n", 3),
    ("gift", "gift", "Fine? {=a ~b}\n\nNUL\x00 here? {=a ~b}\n", 3),
    ("opentdb", "opentdb", json.dumps({"results": [{"question": "Q\x1b[2J?", "correct_answer": "a",
                                                    "incorrect_answers": ["b"], "difficulty": "easy",
                                                    "type": "multiple", "category": "c"}]}), None),
])
def test_control_characters_are_refused_by_every_importer_with_the_line(tmp_path: Path, capsys, name, source,
                                                                         text, line) -> None:
    path, out = write(tmp_path, f"q.{name}", text), tmp_path / "bank"
    assert main(["questions", "import", str(path), "--from", source, "--topic", "t", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    where = f"{path}:{line}:" if line else f"{path}: results[0]:"
    assert where in err and "control character" in err, err
    assert "\x1b" not in err and "\x00" not in err and "\x07" not in err and not out.exists()


def test_a_windows_csv_with_a_multiline_field_imports(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", b"stem,options,key\r\n\"Two\r\nlines?\",a|b,a\r\n")
    out = tmp_path / "bank"
    assert main(["questions", "import", str(path), "--from", "csv", "--topic", "t", "--out", str(out)]) == 0
    assert load_bank([out]).questions["t-001"].stem("en") == "Two\nlines?"


@pytest.mark.parametrize("name, source, text, line", [
    ("csv", "csv", "stem,options,key\nFine?,a|b,a\nSame?,a|A|b,c\n", 3),
    ("gift", "gift", "Fine? {=a ~b}\n\nSame? {=a ~a ~b}\n", 3),
    ("moodle", "moodle", "<quiz>\n<question type='multichoice'><questiontext><text>Same?</text></questiontext>"
                         "<answer fraction='100'><text>a</text></answer><answer fraction='0'><text>a</text></answer>"
                         "</question></quiz>", 2),
])
def test_identical_options_are_refused_with_the_line(tmp_path: Path, capsys, name, source, text, line) -> None:
    path, out = write(tmp_path, f"q.{name}", text), tmp_path / "bank"
    assert main(["questions", "import", str(path), "--from", source, "--topic", "t", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:{line}: options[1]: the same text as options[0]" in err and not out.exists(), err


def test_every_problem_of_a_file_is_reported_in_one_pass_in_line_order(tmp_path: Path, capsys) -> None:
    rows = ["stem,options,key", "x" * 2600 + ",a|b,a", "Bad key?,a|b,z", "Same?,a|a,a", "Fine?,a|b,a",
            "Unknown difficulty?,a|b,a"]
    path = write(tmp_path, "q.csv", "\n".join(rows) + "\n")
    assert main(["questions", "import", str(path), "--from", "csv", "--topic", "t", "--out", str(tmp_path / "b")]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith(str(path))]
    assert [line[len(str(path)) + 1:].split(":")[0] for line in lines] == ["2", "3", "4"], lines
    assert "stem: 2600 characters" in lines[0] and "key:" in lines[1] and "the same text" in lines[2]
