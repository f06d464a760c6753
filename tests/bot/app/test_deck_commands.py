"""`interview-bot deck list|add|remove|export --chat ID`: an operator manages a group's decks on the store
the bot uses; every mistake is one line and exit 1."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.app.cli import main
from bot.domain import ChatRef, UserRef
from bot.store import Database
from bot.store.people import ensure_chat, ensure_user
from tests.bot.decks.files import BROKEN, CSV, GIFT


def seen(store: Path, *chats: ChatRef) -> None:
    """The bot has been used in these chats (the store knows them)."""
    async def run() -> None:
        async with await Database.open(store) as db:
            await ensure_user(db, UserRef("telegram", "7", "Ana"), 0.0)
            for chat in chats:
                await ensure_chat(db, chat, 0.0)
    asyncio.run(run())


def test_add_list_export_remove(tmp_path, capsys) -> None:
    store = tmp_path / "store.sqlite3"
    seen(store, ChatRef("telegram", "-100", "group", "Study"))
    deck = tmp_path / "week.gift"
    deck.write_text(GIFT, encoding="utf-8")
    base = ["--db", str(store), "deck"]
    assert main([*base, "add", "week", str(deck), "--chat", "-100"]) == 0
    assert capsys.readouterr().out.startswith("deck `week`: 3 questions (1 easy, 1 medium, 1 hard)")
    assert main([*base, "list", "--chat", "-100", "--platform", "telegram"]) == 0
    listing = capsys.readouterr().out
    assert "deck:week" in listing and "interview-bot deck" in listing
    out = tmp_path / "week.csv"
    assert main([*base, "export", "week", "--chat", "-100", "--format", "csv", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("stem,options,key") and "wrote deck week" in capsys.readouterr().out
    assert main([*base, "export", "week", "--chat", "-100", "--out", str(out)]) == 1
    assert "exists" in capsys.readouterr().err
    assert main([*base, "remove", "week", "--chat", "-100"]) == 0
    assert "removed deck week (3 questions)" in capsys.readouterr().out
    assert main([*base, "remove", "week", "--chat", "-100"]) == 1
    assert capsys.readouterr().err.strip() == "interview-bot deck: chat -100 has no deck week"


def test_mistakes_are_one_line_and_store_nothing(tmp_path, capsys) -> None:
    store = tmp_path / "store.sqlite3"
    seen(store, ChatRef("telegram", "55", "group", "T"), ChatRef("discord", "55", "group", "D"),
         ChatRef("telegram", "7", "private", "Ana"))
    base = ["--db", str(store), "deck"]
    bad = tmp_path / "bad.csv"
    name, text, line = BROKEN["csv"]
    bad.write_text(text, encoding="utf-8")
    cases = [
        (["list", "--chat", "404"], "no chat 404 is known to the store"),
        (["list", "--chat", "55"], "known on telegram and discord: add --platform"),
        (["list", "--chat", "7"], "a private chat"),
        (["add", "Bad Name", str(bad), "--chat", "55", "--platform", "discord"], "is not a deck name"),
        (["add", "w", str(tmp_path / "missing.csv"), "--chat", "55", "--platform", "discord"], "cannot be read"),
    ]
    for argv, expected in cases:
        assert main([*base, *argv]) == 1, argv
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1, err
    assert main([*base, "add", "w", str(bad), "--chat", "55", "--platform", "discord"]) == 1
    err = capsys.readouterr().err
    assert "was not stored" in err and line in err
    assert main([*base, "list", "--chat", "55", "--platform", "discord"]) == 0
    assert "no decks yet" in capsys.readouterr().out
    good = tmp_path / "w.csv"
    good.write_text(CSV, encoding="utf-8")
    assert main([*base, "add", "w", str(good), "--chat", "55", "--platform", "telegram"]) == 0
