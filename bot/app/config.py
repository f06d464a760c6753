"""Settings from an optional YAML file and the environment (the environment wins).

Tokens are read here and nowhere else, and never logged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path

import yaml
from platformdirs import user_data_dir

from bot.review.cards import DEFAULT_RETENTION, RETENTION_RANGE

ENVIRONMENT = {
    "db_path": "INTERVIEW_BOT_DB",
    "questions_path": "INTERVIEW_BOT_QUESTIONS",
    "telegram_token": "TELEGRAM_BOT_TOKEN",
    "telegram_base_url": "TELEGRAM_BASE_URL",
    "telegram_base_file_url": "TELEGRAM_BASE_FILE_URL",
    "discord_token": "DISCORD_BOT_TOKEN",
    "default_language": "INTERVIEW_BOT_LANGUAGE",
    "log_level": "INTERVIEW_BOT_LOG_LEVEL",
    "review_retention": "INTERVIEW_BOT_REVIEW_RETENTION",
}
CONFIG_FILE_VARIABLE = "INTERVIEW_BOT_CONFIG"

ENVIRONMENT_HELP = """\
environment:
  INTERVIEW_BOT_DB         the store: a SQLite file (default: {db}), sqlite:///FILE,
                           or postgresql://USER@HOST:PORT/DATABASE (password: PGPASSWORD or ~/.pgpass)
  INTERVIEW_BOT_QUESTIONS  folder or file of the question bank (default: the shipped bank)
  INTERVIEW_BOT_LANGUAGE   default language, tr or en (default: en)
  INTERVIEW_BOT_LOG_LEVEL  DEBUG, INFO, WARNING... (default: WARNING)
  INTERVIEW_BOT_REVIEW_RETENTION  the chance of still knowing a missed question when its review
                           falls due, 0.7-0.99 (default 0.9; higher means more frequent reviews)
  INTERVIEW_BOT_BANK_CACHE  folder of the checked bank's cache (default: the user's cache
                           folder), or 0 to turn the cache off
  INTERVIEW_BOT_CONFIG     a YAML file with any of: db_path, questions_path, telegram_token,
                           telegram_base_url, telegram_base_file_url, discord_token,
                           default_language, log_level, review_retention
  TELEGRAM_BOT_TOKEN       token from @BotFather (interview-bot telegram)
  TELEGRAM_BASE_URL        another Bot API server, e.g. http://127.0.0.1:8081/bot
  TELEGRAM_BASE_FILE_URL   where that server serves files (default: TELEGRAM_BASE_URL with
                           /file before /bot), for the group decks' downloads
  DISCORD_BOT_TOKEN        token of the Discord application's bot (interview-bot discord)"""


class ConfigError(Exception):
    """The configuration cannot be used; the message says what to fix."""


def default_db_path() -> Path:
    """A file in the user's data directory, e.g. ~/.local/share/interview-bot/interview-bot.sqlite3."""
    return Path(user_data_dir("interview-bot", appauthor=False)) / "interview-bot.sqlite3"


def store_setting(value: str) -> Path | str:
    """INTERVIEW_BOT_DB or --db: a URL stays text (a Path would fold its //), anything else is a file."""
    return value if "://" in value else Path(value).expanduser()


@dataclass(frozen=True)
class Settings:
    db_path: Path | str  # a SQLite file, or a store URL (postgresql://..., sqlite:///...)
    questions_path: Path | None = None
    telegram_token: str | None = None
    telegram_base_url: str | None = None
    telegram_base_file_url: str | None = None  # default: paired with telegram_base_url (.../file/bot)
    discord_token: str | None = None
    default_language: str = "en"
    log_level: str = "WARNING"
    language_chosen: bool = False  # default_language was set (file or environment), so it beats LANG
    review_retention: float = DEFAULT_RETENTION  # FSRS: recall chance at which a review falls due


def load_settings(config_file: str | None = None) -> Settings:
    """File values first, then the environment over them."""
    values: dict[str, str] = {}
    path = config_file or os.environ.get(CONFIG_FILE_VARIABLE)
    if path:
        values.update(_read_file(Path(path)))
    for name, variable in ENVIRONMENT.items():
        if os.environ.get(variable):
            values[name] = os.environ[variable]
    settings = Settings(db_path=default_db_path())
    known = {field.name for field in fields(Settings)}
    for name, value in values.items():
        if name not in known or name == "language_chosen":
            raise ConfigError(f"{path}: unknown setting {name!r} (known: {', '.join(sorted(known))})")
        if name in ("db_path", "questions_path"):
            value = store_setting(value) if name == "db_path" else Path(value).expanduser()
        if name == "review_retention":
            value = _retention(value)
        settings = replace(settings, **{name: value})
    if "default_language" in values:
        settings = replace(settings, language_chosen=True)
    if settings.default_language not in ("tr", "en"):
        raise ConfigError(f"default_language must be tr or en, not {settings.default_language!r}")
    return settings


def _retention(text: str) -> float:
    low, high = RETENTION_RANGE
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not low <= value <= high:  # NaN fails here too
        raise ConfigError(f"review_retention must be a number from {low} to {high}, not {text[:32]!r}")
    return value


def _read_file(path: Path) -> dict[str, str]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not a text file (a YAML mapping of setting: value is expected)") from error
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(error, "problem", None) or "not valid YAML"
        raise ConfigError(f"{where}: not valid YAML: {problem}") from error
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must be a mapping of setting: value")
    return {str(key): str(value) for key, value in data.items()}
