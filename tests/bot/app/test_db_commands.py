"""`interview-bot db upgrade` and `interview-bot db copy`, as an operator types them."""

from __future__ import annotations

import asyncio
import sqlite3

from bot.app.cli import main
from bot.domain import UserRef
from bot.store import Database
from bot.store.migrations import LATEST
from bot.store.people import ensure_user


def test_upgrade_brings_an_old_file_to_the_latest_schema(tmp_path, capsys) -> None:
    path = tmp_path / "old.sqlite3"

    async def old() -> None:
        await (await Database.open(path, migrate_to=2)).close()

    asyncio.run(old())
    assert main(["--db", str(path), "db", "upgrade"]) == 0
    assert f"schema version 2 -> {LATEST}" in capsys.readouterr().out
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == LATEST
    assert main(["--db", str(path), "db", "upgrade"]) == 0
    assert f"already at schema version {LATEST}" in capsys.readouterr().out


def test_upgrade_on_postgresql(postgres_url, capsys) -> None:
    assert main(["--db", postgres_url, "db", "upgrade"]) == 0
    assert f"schema version 0 -> {LATEST}" in capsys.readouterr().out


def test_copy_moves_a_file_onto_postgresql_and_refuses_to_do_it_twice(tmp_path, postgres_url, capsys) -> None:
    path = tmp_path / "bot.sqlite3"

    async def fill() -> None:
        async with await Database.open(path) as db:
            for number in range(5):
                await ensure_user(db, UserRef("test", f"u{number}", f"U{number}"), 1.0)

    asyncio.run(fill())
    assert main(["db", "copy", "--from", str(path), "--to", postgres_url]) == 0
    out = capsys.readouterr().out
    assert "users                      5 rows" in out and "every table's count matches" in out
    assert main(["db", "copy", "--from", str(path), "--to", postgres_url]) == 1
    err = capsys.readouterr().err
    assert err.startswith("interview-bot: ") and "already holds rows (users)" in err and err.count("\n") == 1


def test_bad_store_names_are_one_line(tmp_path, capsys) -> None:
    assert main(["db", "copy", "--from", "mysql://a@b/c", "--to", str(tmp_path / "x.sqlite3")]) == 1
    assert capsys.readouterr().err.strip() == ("interview-bot: mysql:// is not a store this bot knows: give a file path, "
                                               "sqlite:///path or postgresql://user@host:port/database")
    path = tmp_path / "same.sqlite3"
    assert main(["db", "copy", "--from", str(path), "--to", f"sqlite:///{path}"]) == 1
    assert "the same store" in capsys.readouterr().err
    assert main(["db", "copy", "--from", str(path), "--to", str(tmp_path / "other.sqlite3")]) == 1
    assert "no such store file" in capsys.readouterr().err
    assert not path.exists() and not (tmp_path / "other.sqlite3").exists(), "nothing written"


def test_an_unreachable_postgresql_is_one_line_without_the_password(capsys) -> None:
    from tests.postgres import free_port

    url = f"postgresql://bot:hunter2@127.0.0.1:{free_port()}/interviews"
    assert main(["--db", url, "db", "upgrade"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("interview-bot: cannot reach PostgreSQL at postgresql://bot:***@127.0.0.1:")
    assert "hunter2" not in err and err.count("\n") == 1
