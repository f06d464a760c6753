"""`progress`, `history` and `review` in the terminal, as subprocesses over the console's own store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.adapters.test_console import run


def interview(db: Path) -> None:
    done = run(["console", "--count", "3", "--seed", "1"], "a\nb\nc\n", db)
    assert done.returncode == 0, done.stderr
    assert f"Your answers are kept in {db}." in done.stdout  # the end of a report says where


def test_progress_with_a_chart_and_history(tmp_path: Path) -> None:
    db, chart = tmp_path / "db.sqlite3", tmp_path / "charts" / "progress.png"
    empty = run(["progress"], "", db)
    assert empty.returncode == 0 and "No answers yet" in empty.stdout
    assert run(["progress", "--chart", str(tmp_path / "none.png")], "", db).returncode == 1
    assert not (tmp_path / "none.png").exists()
    interview(db)
    done = run(["progress", "--lang", "tr"], "", db)
    assert done.returncode == 0 and "İlerlemen" in done.stdout and "3 soru cevapladın" in done.stdout, done.stdout
    (tmp_path / "charts").mkdir()
    saved = run(["progress", "--chart", str(chart)], "", db)
    assert saved.returncode == 0 and f"Chart saved to {chart}." in saved.stdout
    assert chart.read_bytes().startswith(b"\x89PNG")
    history = run(["history"], "", db)
    assert history.returncode == 0 and "Interview" in history.stdout and "/3 (" in history.stdout


def test_a_chart_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    interview(db)
    done = run(["progress", "--chart", str(tmp_path / "no" / "such" / "dir.png")], "", db)
    assert done.returncode == 1 and "Could not write the chart" in done.stderr and "Traceback" not in done.stderr


def test_review_asks_the_missed_questions_once_they_are_due(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    interview(db)
    early = run(["review"], "", db)
    assert early.returncode == 0 and "Nothing to review right now" in early.stdout
    with sqlite3.connect(db) as connection:  # a day later, as far as the cards know
        missed = connection.execute("UPDATE review_cards SET due_at = 0").rowcount
    assert missed >= 1
    done = run(["review"], "a\n" * missed, db)
    assert done.returncode == 0, done.stderr
    assert f"Question 1/{missed}" in done.stdout and "Interview report" in done.stdout
    assert f"Your answers are kept in {db}." in done.stdout
    history = run(["history"], "", db)
    assert "Review" in history.stdout


def test_a_report_points_the_terminal_at_its_own_review() -> None:
    from adapters.console import console_command
    from bot.core import CommandHint

    assert console_command(CommandHint("review")) == "interview-bot review"
    assert console_command(CommandHint("interview", "sync-basics")) == "interview-bot console --topic sync-basics"


def test_empty_history_and_progress_point_to_the_terminal_command(tmp_path: Path) -> None:
    """Issue 27, finding 8: the terminal pointed to the chats' /interview."""
    for command in ("history", "progress"):
        done = run([command], "", tmp_path / "db.sqlite3")
        assert "interview-bot console" in done.stdout and "/interview" not in done.stdout, done.stdout
