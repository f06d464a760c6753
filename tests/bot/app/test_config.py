"""Settings: the review retention, from a file or the environment, checked once at start."""

from __future__ import annotations

import pytest

from bot.app.config import ConfigError, load_settings


def test_the_retention_defaults_to_nine_tenths(monkeypatch) -> None:
    monkeypatch.delenv("INTERVIEW_BOT_REVIEW_RETENTION", raising=False)
    monkeypatch.delenv("INTERVIEW_BOT_CONFIG", raising=False)
    assert load_settings().review_retention == 0.9


def test_the_retention_comes_from_a_file_or_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("INTERVIEW_BOT_REVIEW_RETENTION", raising=False)
    config = tmp_path / "bot.yaml"
    config.write_text("review_retention: 0.85\n", encoding="utf-8")
    assert load_settings(str(config)).review_retention == 0.85
    monkeypatch.setenv("INTERVIEW_BOT_REVIEW_RETENTION", "0.95")
    assert load_settings(str(config)).review_retention == 0.95


@pytest.mark.parametrize("value", ["0.5", "1", "nan", "lots", "0.9" * 40])
def test_a_bad_retention_is_one_clear_line(monkeypatch, value) -> None:
    monkeypatch.delenv("INTERVIEW_BOT_CONFIG", raising=False)
    monkeypatch.setenv("INTERVIEW_BOT_REVIEW_RETENTION", value)
    with pytest.raises(ConfigError, match=r"review_retention must be a number from 0.7 to 0.99"):
        load_settings()


def test_the_telegram_file_url_comes_from_a_file_or_the_environment_and_reaches_the_adapter(monkeypatch,
                                                                                             tmp_path) -> None:
    """Group decks download through it: a config-file key like TELEGRAM_BASE_URL's, not an environment-only one."""
    import argparse

    from adapters.platform_commands import _telegram_options

    monkeypatch.delenv("TELEGRAM_BASE_FILE_URL", raising=False)
    config = tmp_path / "bot.yaml"
    config.write_text("telegram_base_file_url: http://files.example/file/bot\n", encoding="utf-8")
    settings = load_settings(str(config))
    assert _telegram_options(argparse.Namespace(), settings)["base_file_url"] == "http://files.example/file/bot"
    monkeypatch.setenv("TELEGRAM_BASE_FILE_URL", "http://other.example/file/bot")
    assert load_settings(str(config)).telegram_base_file_url == "http://other.example/file/bot"
    flag = argparse.Namespace(base_file_url="http://flag.example/file/bot")
    assert _telegram_options(flag, load_settings(str(config)))["base_file_url"] == "http://flag.example/file/bot"
