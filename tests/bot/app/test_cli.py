"""The command line: help documents configuration, and the questions tools exit as documented."""

from __future__ import annotations

import json

from bot.app.cli import main
from tests.conftest import FIXTURE_BANK


def test_help_documents_environment(capsys) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    for variable in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "INTERVIEW_BOT_DB", "INTERVIEW_BOT_QUESTIONS"):
        assert variable in out


def test_validate_ok_and_broken(tmp_path, capsys) -> None:
    assert main(["questions", "validate", str(FIXTURE_BANK)]) == 0
    assert capsys.readouterr().out.startswith("ok: 5 questions in 2 topics")
    (tmp_path / "broken.yaml").write_text("role: ml-engineer\nspecialty: x\ntopic: y\nquestions: []\n", encoding="utf-8")
    assert main(["questions", "validate", str(tmp_path)]) == 1
    assert "broken.yaml:4: questions: must be a non-empty list" in capsys.readouterr().out


def test_stats_json(capsys) -> None:
    assert main(["questions", "stats", "--json", str(FIXTURE_BANK)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["total"] == 5 and stats["topics"]["sync-basics"]["by_difficulty"]["2"] == {"en": 1, "tr": 1, "total": 1}
    assert stats["verify"]["count"] == 3 and sum(v["count"] for v in stats["keyed_letter"].values()) == 5


def test_verify_command(capsys) -> None:
    assert main(["questions", "verify", "--id", "fx-102", str(FIXTURE_BANK)]) == 0
    out = capsys.readouterr().out
    assert "PASS  fx-102" in out and "verify: 1 passed, 0 failed" in out
    assert main(["questions", "verify", "--id", "nope", str(FIXTURE_BANK)]) == 1


def test_config_file_and_bad_config(tmp_path, capsys, monkeypatch) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("default_language: de\n", encoding="utf-8")
    assert main(["--config", str(config), "questions", "validate", str(FIXTURE_BANK)]) == 2
    assert "default_language must be tr or en" in capsys.readouterr().err
    config.write_text(f"questions_path: {FIXTURE_BANK}\n", encoding="utf-8")
    monkeypatch.delenv("INTERVIEW_BOT_QUESTIONS", raising=False)
    assert main(["--config", str(config), "questions", "validate"]) == 0


def _seed_answers(db_path, rows: list[tuple[str, str, int, bool]]) -> None:
    """A real store holding interview answers: (user, question id, option index, right?)."""
    import asyncio

    from bot.domain import ChatRef, InterviewFilters, RecordedAnswer, UserRef
    from bot.store import Database
    from bot.store.interviews import create_interview, insert_answer, insert_asked
    from bot.store.people import ensure_chat, ensure_user

    async def seed() -> None:
        db = await Database.open(db_path)
        try:
            for n, (name, question_id, option, right) in enumerate(rows):
                user = await ensure_user(db, UserRef("test", name), 0.0)
                chat = await ensure_chat(db, ChatRef("test", f"dm-{name}"), 0.0)
                interview = await create_interview(db, user.id, chat.id, InterviewFilters(), [question_id], "en",
                                                   float(n))
                async with db.transaction() as connection:
                    asked = await insert_asked(connection, question_id, chat.id, interview, 0, (0, 1, 2, 3),
                                               float(n), None)
                    await insert_answer(connection, RecordedAnswer(asked, user.id, option, right, 100, float(n)))
        finally:
            await db.close()

    asyncio.run(seed())


def test_questions_report_on_a_seeded_database(tmp_path, capsys) -> None:
    from bot.bank import load_bank

    bank = load_bank([FIXTURE_BANK])
    rows = []
    for user in range(12):  # strong users (high numbers) answer everything right except fx-002, which they miss
        for question in bank.questions.values():
            strong = user >= 6
            right = strong != (question.id == "fx-002") if user % 3 else not strong
            option = question.correct_index if right else (question.correct_index + 1) % 4
            rows.append((f"u{user}", question.id, option, right))
    db_path = tmp_path / "store.sqlite3"
    _seed_answers(db_path, rows)
    args = ["--db", str(db_path), "--questions", str(FIXTURE_BANK), "questions", "report"]
    assert main([*args, "--json", "--min-answers", "5"]) == 0
    report = json.loads(capsys.readouterr().out)
    by_id = {item["id"]: item for item in report["questions"]}
    assert set(by_id) == set(bank.questions) and report["questions"][0]["id"] == "fx-002"
    assert "wrong_key" in by_id["fx-002"]["flags"] and by_id["fx-002"]["discrimination"] < 0
    assert by_id["fx-002"]["answers"] == 12 and len(by_id["fx-002"]["options"]) == 4
    assert {"id", "answers", "p_correct", "discrimination", "options", "flags"} <= set(by_id["fx-001"])
    assert main([*args, "--min-answers", "5"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1].startswith("fx-002") and "wrong_key" in text and "5 question(s) analysed" in text
    assert main([*args, "--min-answers", "13"]) == 0
    assert "no question has enough answers" in capsys.readouterr().out
    assert main(["--db", str(tmp_path / "none.sqlite3"), "questions", "report"]) == 1
    assert "no database at" in capsys.readouterr().err


def test_version(capsys) -> None:
    """Issue 27, finding 8."""
    import pytest

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("interview-bot ")


def test_help_documents_the_bank_cache_and_the_import_limits(capsys) -> None:
    """Issue 27, finding 8: INTERVIEW_BOT_BANK_CACHE and the import limits were documented nowhere."""
    import pytest

    assert main([]) == 0
    assert "INTERVIEW_BOT_BANK_CACHE" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["questions", "import", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(limit in help_text for limit in ("20 MB", "10,000 questions", "2,500 characters", "at most 200"))
