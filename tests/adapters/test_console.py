"""The console adapter end to end, as a subprocess with piped answers, as a script would use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_BANK


def run(args: list[str], stdin: str, db: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "INTERVIEW_BOT_DB": str(db), "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK),
                   "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8", **env}
    return subprocess.run([sys.executable, "-m", "bot", *args], input=stdin, capture_output=True, text=True,
                          env=environment, timeout=60)


def test_scripted_interview_with_json_report(tmp_path) -> None:
    done = run(["console", "--count", "3", "--seed", "4", "--json"], "a\nb\nc\n", tmp_path / "db.sqlite3")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["total"] == 3 and report["status"] == "finished"
    assert [q["chosen"] for q in report["questions"]] == ["a", "b", "c"]
    assert report["score"] == sum(q["right"] for q in report["questions"])
    assert all(q["right"] == (q["chosen"] == q["correct_letter"]) for q in report["questions"])
    assert sum(t["total"] for t in report["by_topic"].values()) == 3
    assert "Question 1/3" in done.stderr and "Interview report" in done.stderr


def test_the_same_seed_asks_the_same_questions(tmp_path) -> None:
    first = json.loads(run(["console", "--count", "2", "--seed", "9", "--json"], "a\na\n", tmp_path / "1.db").stdout)
    second = json.loads(run(["console", "--count", "2", "--seed", "9", "--json"], "a\na\n", tmp_path / "2.db").stdout)
    assert [q["id"] for q in first["questions"]] == [q["id"] for q in second["questions"]]


def test_invalid_letters_are_asked_again_and_end_of_input_stops(tmp_path) -> None:
    done = run(["console", "--count", "3", "--seed", "1", "--json"], "x\n\nb\n", tmp_path / "db.sqlite3")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "stopped" and report["questions"][0]["chosen"] == "b"
    assert "Please type one of" in done.stderr and "No more input" in done.stderr


def test_turkish_text_mode(tmp_path) -> None:
    done = run(["console", "--count", "1", "--lang", "tr", "--topic", "leakage-basics", "--difficulty", "2"], "a\n",
               tmp_path / "db.sqlite3")
    assert done.returncode == 0, done.stderr
    assert "Soru 1/1" in done.stdout and "Mülakat raporu" in done.stdout and "Neden" in done.stdout


@pytest.mark.parametrize("language,opening,no_answers,score", [
    ("en", "Mock interview: 1 question. Topics: Leakage basics (test fixture).", "No answers yet", "Score:"),
    ("tr", "Deneme mülakatı: 1 soru. Konular: Sızıntı temelleri (test verisi).", "Henüz cevap yok", "Puan:"),
])
def test_quitting_before_the_first_answer_reports_no_answers(tmp_path, language, opening, no_answers, score) -> None:
    done = run(["console", "--count", "1", "--lang", language, "--topic", "leakage-basics"], "q\n",
               tmp_path / "db.sqlite3")
    assert done.returncode == 0, done.stderr
    assert opening in done.stdout and no_answers in done.stdout and score not in done.stdout
    report, kept = done.stdout.rstrip().rsplit("\n\n", 1)  # the console's last word: where the answers are kept
    assert report.endswith("interview-bot console"), "the next step as the terminal types it"
    assert str(tmp_path / "db.sqlite3") in kept


def test_a_console_report_names_the_next_step_as_a_terminal_command(tmp_path) -> None:
    done = run(["console", "--count", "3", "--topic", "sync-basics", "--seed", "4"], "d\nd\nd\n", tmp_path / "db")
    assert done.returncode == 0, done.stderr
    assert "You chose D" in done.stdout and "/review" not in done.stdout
    report, kept = done.stdout.rstrip().rsplit("\n\n", 1)
    assert " ".join(report.split()).endswith("interview-bot console --topic sync-basics")
    assert kept.startswith(f"Your answers are kept in {tmp_path / 'db'}.")


def test_quit_and_resume_after_a_restart(tmp_path) -> None:
    db = tmp_path / "db.sqlite3"
    stopped = run(["console", "--count", "3", "--seed", "2"], "a\nq\n", db)
    assert stopped.returncode == 0 and "Interview stopped." in stopped.stdout
    # A process killed mid-interview: the open question is still there for --resume.
    killed = subprocess.Popen([sys.executable, "-m", "bot", "console", "--count", "3", "--seed", "3"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "INTERVIEW_BOT_DB": str(db),
                                   "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK)})
    assert killed.stdout is not None and killed.stdin is not None
    killed.stdin.write("a\n")
    killed.stdin.flush()
    while "Question 2/3" not in killed.stdout.readline():
        pass
    killed.kill()
    killed.wait()
    resumed = run(["console", "--resume", "--json"], "a\na\n", db)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["total"] == 3 and report["status"] == "finished" and report["questions"][0]["chosen"] == "a"
    assert "Carrying on" in resumed.stderr


@pytest.mark.parametrize("args, words", [
    (["console", "--topic", "nope"], "Unknown topic nope"),
    (["console", "--count", "0"], "--count must be at least 1"),
])
def test_bad_requests_get_one_clear_line(tmp_path, args, words) -> None:
    done = run(args, "", tmp_path / "db.sqlite3")
    assert done.returncode != 0 and words in done.stderr and "Traceback" not in done.stderr


def test_a_broken_bank_is_reported_not_raised(tmp_path) -> None:
    (tmp_path / "bad.yaml").write_text("role: [", encoding="utf-8")
    done = run(["console"], "", tmp_path / "db.sqlite3", INTERVIEW_BOT_QUESTIONS=str(tmp_path))
    assert done.returncode == 1 and "bad.yaml:1: yaml: syntax error" in done.stderr
    assert "Traceback" not in done.stderr


def test_forget_in_the_terminal_asks_then_deletes(tmp_path) -> None:
    db = tmp_path / "db.sqlite3"
    assert run(["console", "--count", "1", "--seed", "1"], "a\n", db).returncode == 0
    kept = run(["forget"], "no\n", db)
    assert kept.returncode == 1 and "Nothing was deleted" in kept.stdout
    done = run(["forget"], "yes\n", db)
    assert done.returncode == 0 and "everything about you is deleted" in done.stdout
    import sqlite3
    assert sqlite3.connect(db).execute("SELECT count(*) FROM users").fetchone()[0] == 0
    assert "I hold nothing about you" in run(["forget", "--yes"], "", db).stdout


def test_an_explicit_language_setting_beats_lang(tmp_path) -> None:
    done = run(["console", "--count", "1", "--seed", "1"], "a\n", tmp_path / "db.sqlite3", LANG="en_US.UTF-8",
               INTERVIEW_BOT_LANGUAGE="tr")
    assert "Soru 1/1" in done.stdout


def test_resume_with_nothing_to_resume_and_a_plain_start_over_an_unfinished_one_say_so(tmp_path) -> None:
    db = tmp_path / "db.sqlite3"
    fresh = run(["console", "--resume", "--count", "1", "--seed", "1"], "a\n", db)
    assert "No unfinished interview" in fresh.stdout
    run(["console", "--count", "3", "--seed", "1"], "a\n", db)  # input ends: stopped, not unfinished
    killed = subprocess.Popen([sys.executable, "-m", "bot", "console", "--count", "3", "--seed", "2"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "INTERVIEW_BOT_DB": str(db), "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK)})
    assert killed.stdout is not None
    while "Question 1/3" not in killed.stdout.readline():
        pass
    killed.kill()
    killed.wait()
    again = run(["console", "--count", "1", "--seed", "3"], "a\n", db)
    assert "unfinished interview is stopped" in again.stdout


def _console_at_first_question(db: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "bot", "console", "--count", "3", "--seed", "2"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "INTERVIEW_BOT_DB": str(db),
                                    "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK), "LANG": "C.UTF-8"})
    assert process.stdout is not None and process.stdin is not None
    while "Question 1/3" not in process.stdout.readline():
        pass
    return process


def _interrupt_when_prompted(process: subprocess.Popen) -> None:
    """SIGINT once the console waits for a line (its prompt has no newline: read up to it)."""
    import signal

    assert process.stdout is not None
    seen = ""
    while "q to stop" not in seen:
        seen += process.stdout.read(1)
    process.send_signal(signal.SIGINT)


def test_ctrl_c_keeps_the_interview_for_resume(tmp_path) -> None:
    db = tmp_path / "db.sqlite3"
    process = _console_at_first_question(db)
    _interrupt_when_prompted(process)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and "Traceback" not in err, err
    assert "your interview is kept" in out and "--resume" in out and "Interview report" not in out
    resumed = run(["console", "--resume", "--json"], "a\na\na\n", db)
    assert resumed.returncode == 0 and json.loads(resumed.stdout)["total"] == 3, resumed.stderr


def test_a_second_ctrl_c_stops_with_the_report(tmp_path) -> None:
    import signal

    process = _console_at_first_question(tmp_path / "db.sqlite3")
    _interrupt_when_prompted(process)
    assert process.stdout is not None
    while "your interview is kept" not in process.stdout.readline():
        pass
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and "Interview report" in out and "Traceback" not in err, err


def test_ctrl_c_while_the_program_starts_is_no_traceback(monkeypatch, capsys) -> None:
    """Ctrl-C during the imports (the first half second) lands in `run`, not in a traceback; before that
    the interpreter itself is starting, which no program can change."""
    import types

    import bot.__main__ as entry

    class Importing(types.ModuleType):
        def __getattr__(self, name: str):
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "bot.app.cli", Importing("bot.app.cli"))
    assert entry.run() == 130 and capsys.readouterr().err == "\n"


def test_the_console_enters_through_the_facade_only() -> None:
    import ast

    source = (Path(__file__).parents[2] / "adapters" / "console.py").read_text(encoding="utf-8")
    modules = {node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
    assert {m for m in modules if m and m.startswith("bot")} == {"bot.core", "bot.app.config"}


def test_the_same_seed_repeats_the_questions_whatever_the_history(tmp_path) -> None:
    db = tmp_path / "db.sqlite3"
    first = json.loads(run(["console", "--count", "3", "--seed", "9", "--json"], "a\na\na\n", db).stdout)
    again = json.loads(run(["console", "--count", "3", "--seed", "9", "--json"], "a\na\na\n", db).stdout)
    assert [q["id"] for q in first["questions"]] == [q["id"] for q in again["questions"]]


def test_the_console_strips_control_characters_from_what_it_prints() -> None:
    import io

    from adapters.console import ConsolePort
    from bot.core import Message
    from bot.text.messages import Button, Paragraph

    out = io.StringIO()
    ConsolePort(out).show(Message((Paragraph("Stem \x1b[31mred\x1b]0;title\x07?\nnext\tline"),),
                                  ((Button("A. option \x1b[2J with a long label", "t:1"), Button("B. \x9b", "t:2")),)))
    printed = out.getvalue()
    assert "Stem [31mred]0;title?" in printed and "a) option [2J with a long label" in printed
    assert not any(char in printed for char in "\x1b\x07\x9b")


@pytest.mark.parametrize("saved", [False, True])
def test_a_store_failing_mid_run_is_one_line_saying_whether_the_answer_was_saved(tmp_path, monkeypatch, capsys,
                                                                                 saved) -> None:
    import io
    import sqlite3

    from bot.app.cli import main
    from bot.core import Core

    click, current = Core.click, Core.current_question
    clicked = []

    async def failing_click(self, *args, **kwargs):  # the store fails while the answer is recorded ...
        if not saved:
            raise sqlite3.OperationalError("database is locked")
        clicked.append(1)
        return await click(self, *args, **kwargs)

    async def failing_current(self, *args, **kwargs):  # ... or right after it was
        if clicked:
            raise sqlite3.OperationalError("database is locked")
        return await current(self, *args, **kwargs)

    monkeypatch.setattr(Core, "click", failing_click)
    monkeypatch.setattr(Core, "current_question", failing_current)
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\na\n"))
    monkeypatch.setenv("INTERVIEW_BOT_QUESTIONS", str(FIXTURE_BANK))
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(["--db", str(tmp_path / "db.sqlite3"), "console", "--count", "2", "--seed", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "database is locked" in err[0] and "--resume" in err[0], err
    assert ("was saved" if saved else "was not saved") in err[0]


def test_forget_from_another_terminal_ends_the_running_console_in_one_line(tmp_path) -> None:
    """Issue 27, finding 4: the next answer after `forget --yes` said why it ended, not AssertionError."""
    db = tmp_path / "db.sqlite3"
    process = _console_at_first_question(db)
    assert run(["forget", "--yes"], "", db).returncode == 0
    out, err = process.communicate("a\n", timeout=30)
    assert "Traceback" not in err and "AssertionError" not in err, err
    assert process.returncode == 1 and "Your records were deleted" in out
    assert "not valid any more" not in out and "Your answers are kept" not in out


def test_one_interview_shows_its_options_in_one_style(tmp_path) -> None:
    """Issue 27, finding 8: long options were listed as `a)` and short ones (from buttons) as `A.`."""
    done = run(["console", "--count", "3", "--seed", "4"], "a\nb\nc\n", tmp_path / "db.sqlite3")
    lines = [line.strip() for line in done.stdout.splitlines() if line.startswith("  ")]
    assert any(line.startswith("a) The input wait") for line in lines)
    assert "a) 4.0" in lines and not any(line[:3] in ("A. ", "B. ", "C. ", "D. ") for line in lines)


def test_a_refused_start_leaves_the_unfinished_interview_and_says_nothing_of_stopping_it(tmp_path) -> None:
    """Issue 27, finding 8: `--count 31` or an unknown topic said the unfinished interview was stopped."""
    db = tmp_path / "db.sqlite3"
    process = _console_at_first_question(db)
    process.kill()
    process.wait()
    for args in (["--count", "31"], ["--topic", "nope"]):
        refused = run(["console", *args], "", db)
        assert refused.returncode == 1 and "unfinished interview is stopped" not in refused.stdout
    resumed = run(["console", "--resume", "--json"], "a\na\na\n", db)
    assert resumed.returncode == 0 and json.loads(resumed.stdout)["total"] == 3, resumed.stderr


def test_console_help_states_the_thirty_question_maximum(capsys) -> None:
    from bot.app.cli import main

    with pytest.raises(SystemExit):
        main(["console", "--help"])
    assert "1-30" in capsys.readouterr().out


def test_a_second_console_is_refused_or_takes_over_and_the_first_is_told(tmp_path) -> None:
    """Issue 27, finding 1: the second console stopped the first, which then printed the second's report."""
    db = tmp_path / "db.sqlite3"
    first = _console_at_first_question(db)
    second = run(["console", "--count", "2", "--seed", "5"], "a\na\n", db)
    assert second.returncode == 1 and "running in another terminal" in second.stderr and "--takeover" in second.stderr
    assert "Interview report" not in second.stdout
    taken = run(["console", "--takeover", "--json"], "a\na\na\n", db)
    assert taken.returncode == 0 and json.loads(taken.stdout)["total"] == 3, taken.stderr
    out, err = first.communicate("q\n", timeout=30)
    assert first.returncode == 1 and "moved to another terminal" in out and "Traceback" not in err, (out, err)
    assert "Interview report" not in out and "Interview stopped" not in out
