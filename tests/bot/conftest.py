"""The core and store suites run on both backends: each test that takes the store gets a SQLite file
and, again, a new PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def db_path(request, tmp_path: Path) -> Path | str:
    """Where the test's store lives: a SQLite file, or the URL of a new PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "store.sqlite3"
    return request.getfixturevalue("postgres_store_url")


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_store(request, tmp_path: Path) -> Path | str:
    """A store not yet created: a SQLite file path, or a new empty PostgreSQL database (for migrations)."""
    if request.param == "sqlite":
        return tmp_path / "empty.sqlite3"
    return request.getfixturevalue("postgres_url")
