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
