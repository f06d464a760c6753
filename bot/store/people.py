"""Users and chats: a platform's ids mapped to the store's, with names, languages and settings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.domain import ChatRef, UserRef
from bot.store.database import Database


@dataclass(frozen=True)
class UserRecord:
    id: int
    platform: str
    platform_user_id: str
    name: str
    language: str | None
    locale: str | None


@dataclass(frozen=True)
class ChatRecord:
    id: int
    platform: str
    platform_chat_id: str
    kind: str
    title: str
    language: str | None
    settings: dict[str, Any]


def _user(row: Any) -> UserRecord:
    return UserRecord(row["id"], row["platform"], row["platform_user_id"], row["name"], row["language"], row["locale"])


def _chat(row: Any) -> ChatRecord:
    return ChatRecord(row["id"], row["platform"], row["platform_chat_id"], row["kind"], row["title"],
                      row["language"], json.loads(row["settings"] or "{}"))


async def ensure_user(db: Database, user: UserRef, now: float) -> UserRecord:
    """The user's record, created on first sight; the name and locale follow the platform."""
    async with db.transaction() as connection:
        await connection.execute(
            """INSERT INTO users (platform, platform_user_id, name, locale, created_at) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (platform, platform_user_id)
               DO UPDATE SET name = excluded.name, locale = coalesce(excluded.locale, users.locale)""",
            (user.platform, user.platform_id, user.name, user.locale, now),
        )
    row = await db.fetch_one("SELECT * FROM users WHERE platform = ? AND platform_user_id = ?",
                             (user.platform, user.platform_id))
    assert row is not None
    return _user(row)


async def ensure_chat(db: Database, chat: ChatRef, now: float) -> ChatRecord:
    """The chat's record, created on first sight; its title and kind follow the platform."""
    async with db.transaction() as connection:
        await connection.execute(
            """INSERT INTO chats (platform, platform_chat_id, kind, title, created_at) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (platform, platform_chat_id) DO UPDATE SET title = excluded.title, kind = excluded.kind""",
            (chat.platform, chat.platform_id, chat.kind, chat.title, now),
        )
    row = await db.fetch_one("SELECT * FROM chats WHERE platform = ? AND platform_chat_id = ?",
                             (chat.platform, chat.platform_id))
    assert row is not None
    return _chat(row)


async def get_user(db: Database, user_id: int) -> UserRecord | None:
    row = await db.fetch_one("SELECT * FROM users WHERE id = ?", (user_id,))
    return _user(row) if row else None


async def get_chat(db: Database, chat_id: int) -> ChatRecord | None:
    row = await db.fetch_one("SELECT * FROM chats WHERE id = ?", (chat_id,))
    return _chat(row) if row else None


async def find_chat(db: Database, platform: str, platform_chat_id: str) -> ChatRecord | None:
    row = await db.fetch_one("SELECT * FROM chats WHERE platform = ? AND platform_chat_id = ?",
                             (platform, platform_chat_id))
    return _chat(row) if row else None


async def set_user_language(db: Database, user_id: int, language: str | None) -> None:
    async with db.transaction() as connection:
        await connection.execute("UPDATE users SET language = ? WHERE id = ?", (language, user_id))


async def set_chat_language(db: Database, chat_id: int, language: str | None) -> None:
    async with db.transaction() as connection:
        await connection.execute("UPDATE chats SET language = ? WHERE id = ?", (language, chat_id))


async def update_chat_settings(db: Database, chat_id: int, changes: dict[str, Any]) -> dict[str, Any]:
    """Merge `changes` into the chat's settings (a None value removes a key); returns the result."""
    async with db.transaction() as connection:
        async with connection.execute("SELECT settings FROM chats WHERE id = ?", (chat_id,)) as cursor:
            row = await cursor.fetchone()
        settings = json.loads(row[0]) if row else {}
        for key, value in changes.items():
            if value is None:
                settings.pop(key, None)
            else:
                settings[key] = value
        await connection.execute("UPDATE chats SET settings = ? WHERE id = ?", (json.dumps(settings), chat_id))
    return settings


async def move_chat(db: Database, platform: str, old_id: str, new_id: str) -> None:
    """A platform gave the chat a new id (Telegram group -> supergroup): follow it everywhere."""
    async with db.transaction() as connection:
        await connection.execute(
            "UPDATE chats SET platform_chat_id = ? WHERE platform = ? AND platform_chat_id = ?",
            (new_id, platform, old_id),
        )
