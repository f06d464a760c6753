"""The validator: every broken file names FILE:LINE, the field and the problem; never a traceback."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bot.bank.loader import check_bank, load_bank
from bot.bank.problems import BankError

GOOD = """\
role: ml-engineer
specialty: classical-ml
topic: t-one
title:
  en: One
  tr: Bir
questions:
  - id: q-1
    difficulty: 2
    seniority: mid
    text:
      en: |
        Stem?
      tr: |
        Kök?
    options:
      - en: "yes"
        tr: evet
        correct: true
      - en: "no"
        tr: hayır
    explanation:
      en: Because.
      tr: Çünkü.
"""


def write(tmp_path: Path, text: str, name: str = "topic.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(tmp_path: Path, text: str) -> list[str]:
    path = write(tmp_path, text)
    _, problems = check_bank([path])
    return [str(problem) for problem in problems]


def test_a_good_file_loads(tmp_path) -> None:
    bank = load_bank([write(tmp_path, GOOD)])
    question = bank.questions["q-1"]
    assert question.correct_letter == "a" and question.topic == "t-one" and question.languages == ("en", "tr")


BROKEN = [
    # (what, change to GOOD, expected line, expected field, expected words)
    ("yaml syntax", ("    seniority: mid\n", "    seniority: [mid\n"), 11, "yaml", "syntax error"),
    ("no correct option", ("        correct: true\n", ""), 16, "q-1.options", "no option is marked correct"),
    ("two correct options", ('        tr: hayır\n', '        tr: hayır\n        correct: true\n'), 16,
     "q-1.options", "2 options are marked correct"),
    ("difficulty out of range", ("difficulty: 2", "difficulty: 4"), 9, "q-1.difficulty", "must be 1, 2 or 3"),
    ("missing explanation", ("    explanation:\n      en: Because.\n      tr: Çünkü.\n", ""), 8,
     "q-1.explanation", "missing"),
    ("unknown key", ("    seniority: mid\n", "    seniority: mid\n    explaination: x\n"), 11,
     "q-1.explaination", "unknown key"),
    ("unknown option key", ('      - en: "no"\n', '      - en: "no"\n        corect: true\n'), 21,
     "q-1.options[1].corect", "unknown key"),
    ("bad seniority", ("seniority: mid", "seniority: lead"), 10, "q-1.seniority", "junior, mid, senior"),
    ("one option only", ('      - en: "no"\n        tr: hayır\n', ""), 16, "q-1.options", "needs 2 to 6 options"),
    ("duplicate key", ("    difficulty: 2\n", "    difficulty: 2\n    difficulty: 3\n"), 10, "difficulty",
     "duplicate key"),
    ("option over the limit", ('      - en: "no"\n', f'      - en: "{"n" * 201}"\n'), 20, "q-1.options[1].en",
     "over the limit of 200"),
    ("stem over a Telegram message", ("        Stem?\n", "        " + "x" * 2600 + "\n"), 12, "q-1.text.en",
     "over the limit of 2500"),
    ("half a language", ("      tr: |\n        Kök?\n", ""), 8, "q-1.tr", "missing in: text"),
    ("unclosed code fence", ("        Stem?\n", "        ```python\n        x = 1\n"), 13, "q-1.text.en",
     "not closed"),
    ("bad id", ("id: q-1", "id: 'q 1!'"), 8, "questions[0].id", "letters, digits"),
    ("unknown role", ("role: ml-engineer", "role: chef"), 1, "role", "unknown role"),
    ("verify syntax error", ("    explanation:\n", "    verify:\n      code: |\n        x = (\n    explanation:\n"), 24,
     "q-1.verify.code", "syntax error"),
    ("verify never answers", ("    explanation:\n", "    verify:\n      code: |\n        x = 1\n    explanation:\n"), 23,
     "q-1.verify.code", "never assigns"),
    ("control character", ("Stem?", "Stem\x01?"), 13, "yaml", "not allowed in YAML"),
    ("not a mapping", (GOOD, "- just\n- a list\n"), 1, "file", "must be a mapping"),
    ("empty file", (GOOD, ""), 1, "file", "is empty"),
]


@pytest.mark.parametrize("what, change, line, field, words", BROKEN, ids=[case[0] for case in BROKEN])
def test_broken_files_name_line_field_and_problem(tmp_path, what, change, line, field, words) -> None:
    old, new = change
    text = GOOD.replace(old, new, 1)
    problems = problems_of(tmp_path, text)
    if line is None:
        assert problems == []
        return
    expected = f"topic.yaml:{line}: {field}: "
    assert any(expected in problem and words in problem for problem in problems), problems


def test_duplicate_ids_across_files_name_both_places(tmp_path) -> None:
    write(tmp_path, GOOD, "a.yaml")
    write(tmp_path, GOOD.replace("topic: t-one", "topic: t-two"), "b.yaml")
    _, problems = check_bank([tmp_path])
    lines = sorted(str(problem) for problem in problems)
    assert len(lines) == 2
    assert "a.yaml:8: q-1.id: duplicate id, also at" in lines[0] and "b.yaml:8" in lines[0]
    assert "b.yaml:8: q-1.id: duplicate id, also at" in lines[1] and "a.yaml:8" in lines[1]


def test_load_bank_raises_with_every_problem(tmp_path) -> None:
    write(tmp_path, GOOD.replace("difficulty: 2", "difficulty: 0").replace("seniority: mid", "seniority: x"))
    with pytest.raises(BankError) as error:
        load_bank([tmp_path])
    assert len(error.value.problems) == 2


def test_binary_and_missing_files_are_problems_not_crashes(tmp_path) -> None:
    (tmp_path / "bad.yaml").write_bytes(b"\xff\xfe\x00garbage")
    _, problems = check_bank([tmp_path, tmp_path / "missing"])
    messages = " ".join(str(problem) for problem in problems)
    assert "cannot be read" in messages and "does not exist" in messages


def test_readme_example_is_a_valid_file(tmp_path) -> None:
    readme = (Path(__file__).parents[3] / "questions" / "README.md").read_text(encoding="utf-8")
    example = readme.split("```yaml\n", 1)[1].split("\n```\n", 1)[0]
    bank = load_bank([write(tmp_path, textwrap.dedent(example))], keep_verify=True)
    assert bank.questions["dss-001"].verify is not None


def test_a_yaml_bomb_through_a_mapping_key_is_refused_fast_and_small(tmp_path) -> None:
    """Nine levels of nine aliases used as a key once took 7.7 GB and a minute; aliases are refused unexpanded."""
    import time
    import tracemalloc

    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    lines.append("? *i\n: boom")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tracemalloc.start()
    started = time.perf_counter()
    _, problems = check_bank([tmp_path])
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [p.message for p in problems] == ["anchors and aliases (&name, *name) are not allowed in question files"]
    assert elapsed < 1.0 and peak < 100 * 2**20


def test_validate_on_a_folder_without_questions_says_so(tmp_path) -> None:
    import subprocess
    import sys

    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop.yaml")
    done = subprocess.run([sys.executable, "-m", "bot", "questions", "validate", str(tmp_path)], capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).parents[3])
    assert done.returncode == 1 and "no question files found" in done.stderr



def test_the_bot_loads_questions_without_their_verify_snippets(tmp_path) -> None:
    """Only `questions verify` runs snippets (it reads through check_bank); the running bot drops them."""
    readme = (Path(__file__).parents[3] / "questions" / "README.md").read_text(encoding="utf-8")
    path = write(tmp_path, textwrap.dedent(readme.split("```yaml\n", 1)[1].split("\n```\n", 1)[0]))
    checked, _ = check_bank([path])
    assert checked.questions["dss-001"].verify is not None
    assert load_bank([path]).questions["dss-001"].verify is None


@pytest.mark.parametrize("change, line, field", [
    (("        Stem?\n", '        Stem?\n'), None, None),  # the good file: no problem (the control)
    (("      en: |\n        Stem?\n", '      en: "Stem \\e[31mred\\e]0;title\\a?"\n'), 12, "q-1.text.en"),
    (('      - en: "no"\n', '      - en: "no\\e[2J"\n'), 20, "q-1.options[1].en"),
    (('      - en: "no"\n', '      - en: "n\\0o"\n'), 20, "q-1.options[1].en"),
    (("      en: Because.\n", '      en: "Because\\x9b2J."\n'), 23, "q-1.explanation.en"),
    (("  en: One\n", '  en: "One\\x7f"\n'), 5, "title.en"),
])
def test_control_characters_are_refused_with_their_line(tmp_path, change, line, field) -> None:
    problems = problems_of(tmp_path, GOOD.replace(*change))
    if line is None:
        assert problems == []
        return
    assert any(f"topic.yaml:{line}: {field}: holds the control character" in p for p in problems), problems
    assert all("\x1b" not in p and "\x00" not in p for p in problems)


def test_a_problem_line_never_carries_a_raw_escape(tmp_path) -> None:
    problems = problems_of(tmp_path, GOOD.replace("    seniority: mid\n", '    seniority: mid\n    "x\\e]52;c;aGk=\\a": 1\n'))
    assert any("unknown key" in p for p in problems)
    assert all("\x1b" not in p and "\x07" not in p for p in problems), problems
