"""Issue 27, finding 5, end to end: the real `interview-bot console` process while its store fails under it.

Each failure is one line on stderr that says whether the last answer was saved and that `--resume` carries
on; no traceback; and once the store works again `--resume` really does carry on with nothing lost.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_BANK
from tests.postgres import PostgresServer, find_bin


def _environment(db: str) -> dict[str, str]:
    return {**os.environ, "INTERVIEW_BOT_DB": db, "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK), "LANG": "C.UTF-8",
            "PYTHONIOENCODING": "utf-8"}


def _start(db: str, *args: str) -> subprocess.Popen:
    """A console of three questions, stopped at its first prompt."""
    process = subprocess.Popen([sys.executable, "-m", "bot", "console", "--count", "3", "--seed", "2", *args],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=_environment(db))
    _read_until(process, "q to stop")
    return process


def _read_until(process: subprocess.Popen, mark: str) -> str:
    assert process.stdout is not None
    seen = ""
    while mark not in seen:
        char = process.stdout.read(1)
        assert char, f"the console ended before {mark!r}: {seen[-400:]}"
        seen += char
    return seen


def _answer(process: subprocess.Popen, letter: str) -> str:
    """One answer typed; what the console printed up to its next prompt."""
    assert process.stdin is not None
    process.stdin.write(letter + "\n")
    process.stdin.flush()
    return _read_until(process, "q to stop")


def _finish(process: subprocess.Popen, letter: str) -> tuple[str, str]:
    out, err = process.communicate(letter + "\n", timeout=60)
    return out, err


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "--resume" in lines[0], lines
    return lines[0]


def _resume(db: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "bot", "console", "--resume", "--json"], input="a\na\na\n",
                          capture_output=True, text=True, env=_environment(db), timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_damaged_database_file_is_one_line_and_nothing_claimed(tmp_path: Path) -> None:
    """A page overwritten while the console runs: 'database disk image is malformed' in one line."""
    db = tmp_path / "db.sqlite3"
    process = _start(str(db))
    _answer(process, "a")
    with sqlite3.connect(db) as writer:  # everything into the main file, so the damage is where it is read
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = db.stat().st_size
    with open(db, "r+b") as damaged:
        for offset in range(4096, size, 4096):  # every page after the first: headers and cells garbage
            damaged.seek(offset)
            damaged.write(b"\xa5" * 64)
    out, err = _finish(process, "b")
    line = _one_line(err)
    assert process.returncode == 1 and "malformed" in line, line
    assert "Interview report" not in out


def test_a_database_locked_by_another_program_is_one_line_then_resume_carries_on(tmp_path: Path) -> None:
    """Another program holds the write lock past the 10 s busy timeout: the answer is not saved, and says so."""
    db = tmp_path / "db.sqlite3"
    process = _start(str(db))
    _answer(process, "a")
    locker = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(13)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        out, err = _finish(process, "b")
    finally:
        locker.kill()
        locker.wait()
    line = _one_line(err)
    assert process.returncode == 1 and "locked" in line and "was not saved" in line, line
    report = _resume(str(db))
    assert report["total"] == 3 and report["questions"][0]["chosen"] == "a", report


def _unopenable(tmp_path: Path) -> tuple[Path, Path | None]:
    """A new store where no file can be created: a read-only folder, or (root writes anywhere) /proc."""
    if os.geteuid() == 0:
        return Path("/proc/interview-bot-test.sqlite3"), None
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    return folder / "db.sqlite3", folder


def test_a_new_store_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    """It used to print a clean line, then an aiosqlite thread's 'Event loop is closed' traceback."""
    path, folder = _unopenable(tmp_path)
    try:
        for _ in range(3):  # the thread's traceback came in most runs, not all: three runs make it show
            done = subprocess.run([sys.executable, "-m", "bot", "console", "--count", "1"], input="a\n",
                                  capture_output=True, text=True, env=_environment(str(path)), timeout=60)
            assert done.returncode == 1 and "Exception in thread" not in done.stderr, done.stderr
            assert len([line for line in done.stderr.splitlines() if line.strip()]) == 1, done.stderr
    finally:
        if folder is not None:
            folder.chmod(0o700)


@pytest.fixture
def own_postgres():
    """A server of this test's own: it is stopped mid-run, which the shared one must never be."""
    bin_dir = find_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed")
    server = PostgresServer(bin_dir)
    server.start()
    yield server
    try:
        server.stop()
    except subprocess.CalledProcessError:  # stopped by the test and not started again: the folder is gone anyway
        pass


def test_postgres_stopped_between_two_answers_is_one_line_then_resume_carries_on(own_postgres) -> None:
    url = own_postgres.url()
    process = _start(url)
    _answer(process, "a")
    own_postgres.pg_ctl("stop")
    out, err = _finish(process, "b")
    line = _one_line(err)
    assert process.returncode == 1 and "was not saved" in line, line
    own_postgres.pg_ctl("start")
    report = _resume(url)
    assert report["total"] == 3 and report["questions"][0]["chosen"] == "a", report


def test_a_failure_after_the_answer_was_recorded_says_it_was_saved(tmp_path: Path, monkeypatch, capsys) -> None:
    """The store fails after the answer's transaction committed (while the report is built): 'was saved', and
    the answer is there."""
    import io

    import bot.interview.service as service
    from bot.app.cli import main

    async def failing_due_count(*args: object, **kwargs: object) -> int:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(service, "due_count", failing_due_count)
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\n"))
    monkeypatch.setenv("INTERVIEW_BOT_QUESTIONS", str(FIXTURE_BANK))
    monkeypatch.setenv("LANG", "C.UTF-8")
    db = tmp_path / "db.sqlite3"
    assert main(["--db", str(db), "console", "--count", "1", "--seed", "2"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert "disk I/O error" in line and "was saved" in line and "not saved" not in line, line
    with sqlite3.connect(db) as reader:
        assert reader.execute("SELECT count(*) FROM answers").fetchone() == (1,)
