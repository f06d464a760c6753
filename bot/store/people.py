"""Users and chats: a platform's ids mapped to the store's, with names and languages."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bot.domain import ChatAddress, ChatRef, UserRef
from bot.store.database import Database, Transaction, placeholders
from bot.store.decks import move_decks
from bot.text.names import clean_name


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
    locale: str | None = None

    @property
    def address(self) -> ChatAddress:
        return ChatAddress(self.platform, self.platform_chat_id)


def _user(row: Any) -> UserRecord:
    return UserRecord(row["id"], row["platform"], row["platform_user_id"], row["name"], row["language"], row["locale"])


def _chat(row: Any) -> ChatRecord:
    return ChatRecord(row["id"], row["platform"], row["platform_chat_id"], row["kind"], row["title"],
                      row["language"], row["locale"])


# The user's row as it is, or added when there is none, in one statement. The INSERT sees the same snapshot
# as `found`: it adds nothing for a known user (and draws no id). Another worker adding the same person at
# that moment makes both parts empty, and the caller's upsert below settles it.
_FOUND_OR_ADDED = """
    WITH found AS (SELECT * FROM users WHERE platform = ? AND platform_user_id = ?),
         added AS (INSERT INTO users (platform, platform_user_id, name, locale, created_at)
                   SELECT ?::text, ?::text, ?::text, ?::text, ?::double precision
                   WHERE NOT EXISTS (SELECT 1 FROM found)
                   ON CONFLICT (platform, platform_user_id) DO NOTHING RETURNING *)
    SELECT * FROM added UNION ALL SELECT * FROM found"""


async def ensure_user(db: Database, user: UserRef, now: float) -> UserRecord:
    """The user's record, created on first sight; the name and locale follow the platform.

    Every click and command passes here, so a known user whose name and locale are unchanged costs one
    read, not a write transaction. The name is stored cleaned (plain visible text, bidi and zero-width
    characters and markup removed, at most 64 characters)."""
    user = replace(user, name=clean_name(user.name))
    if db.dialect.writes_in_with:  # found or added in one round trip (a new member's first click)
        row = await db.fetch_one(_FOUND_OR_ADDED, (user.platform, user.platform_id, user.platform, user.platform_id,
                                                   user.name, user.locale, now))
    else:
        row = await db.fetch_one("SELECT * FROM users WHERE platform = ? AND platform_user_id = ?",
                                 (user.platform, user.platform_id))
    if row is not None and row["name"] == user.name and (user.locale is None or row["locale"] == user.locale):
        return _user(row)

    row = await db.upsert_row(  # one hand-off (SQLite, its COMMIT shared), one round trip (PostgreSQL)
        """INSERT INTO users (platform, platform_user_id, name, locale, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (platform, platform_user_id)
           DO UPDATE SET name = excluded.name, locale = coalesce(excluded.locale, users.locale)""",
        (user.platform, user.platform_id, user.name, user.locale, now),
        "SELECT * FROM users WHERE platform = ? AND platform_user_id = ?", (user.platform, user.platform_id))
    assert row is not None
    return _user(row)


async def ensure_chat(db: Database, chat: ChatRef, now: float) -> ChatRecord:
    """The chat's record, created on first sight; its title (cleaned like a name), kind and locale follow
    the platform (one read when nothing changed)."""
    chat = replace(chat, title=clean_name(chat.title))
    row = await db.fetch_one("SELECT * FROM chats WHERE platform = ? AND platform_chat_id = ?",
                             (chat.platform, chat.platform_id))
    if (row is not None and row["title"] == chat.title and row["kind"] == chat.kind
            and (not chat.locale or row["locale"] == chat.locale)):
        return _chat(row)

    row = await db.upsert_row(
        """INSERT INTO chats (platform, platform_chat_id, kind, title, locale, created_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (platform, platform_chat_id) DO UPDATE SET title = excluded.title, kind = excluded.kind,
               locale = coalesce(excluded.locale, chats.locale)""",
        (chat.platform, chat.platform_id, chat.kind, chat.title, chat.locale or None, now),
        "SELECT * FROM chats WHERE platform = ? AND platform_chat_id = ?", (chat.platform, chat.platform_id))
    assert row is not None
    return _chat(row)


async def find_user(db: Database, platform: str, platform_user_id: str) -> UserRecord | None:
    row = await db.fetch_one("SELECT * FROM users WHERE platform = ? AND platform_user_id = ?",
                             (platform, platform_user_id))
    return _user(row) if row else None


async def get_chat(db: Database, chat_id: int) -> ChatRecord | None:
    row = await db.fetch_one("SELECT * FROM chats WHERE id = ?", (chat_id,))
    return _chat(row) if row else None


async def get_chats(db: Database, chat_ids: list[int]) -> dict[int, ChatRecord]:
    """Many chats by id, a few hundred per query (a broadcast reads thousands at once)."""
    chats: dict[int, ChatRecord] = {}
    for start in range(0, len(chat_ids), 500):
        chunk = chat_ids[start:start + 500]
        rows = await db.fetch_all(f"SELECT * FROM chats WHERE id IN ({placeholders(chunk)})", chunk)
        chats.update((row["id"], _chat(row)) for row in rows)
    return chats


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


async def move_chat(db: Database, platform: str, old_id: str, new_id: str) -> None:
    """A platform gave the chat a new id (Telegram group -> supergroup): follow it everywhere.

    When the new id is already known (someone used the bot in the supergroup first), the two records
    are merged into the new one: its history, interviews, posts and, unless it has its own, the old
    subscription move over, and the old record goes. The chats' rows are locked first (PostgreSQL), and
    the whole move runs as one call, run again should it meet a deadlock."""

    async def move(connection: Transaction) -> None:
        rows = await connection.fetch_all(  # locked: a second move of the same chat waits, then sees this one
            "SELECT id, platform_chat_id FROM chats WHERE platform = ? AND platform_chat_id IN (?, ?) ORDER BY id"
            + connection.dialect.locking("UPDATE"), (platform, old_id, new_id))
        ids = {row[1]: row[0] for row in rows}
        if old_id not in ids:
            return
        if new_id not in ids:
            await connection.execute("UPDATE chats SET platform_chat_id = ? WHERE id = ?", (new_id, ids[old_id]))
            return
        old, new = ids[old_id], ids[new_id]
        # A scheduled post of the same local day in both would break the one-a-day index: keep it as a manual one.
        await connection.execute(
            """UPDATE daily_posts SET kind = 'manual' WHERE chat_id = ? AND kind = 'scheduled'
               AND local_date IN (SELECT local_date FROM daily_posts WHERE chat_id = ? AND kind = 'scheduled')""",
            (old, new))
        for table in ("asked_questions", "interviews", "daily_posts"):
            await connection.execute(f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?", (new, old))
        await connection.execute(  # the new chat's own subscription, if it has one, wins
            "UPDATE subscriptions SET chat_id = ? WHERE chat_id = ? "
            "AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE chat_id = ?)", (new, old, new))
        await connection.execute("DELETE FROM subscriptions WHERE chat_id = ?", (old,))
        await move_decks(connection, old, new)  # its group decks too (the new record's own win a name)
        await connection.execute("DELETE FROM chats WHERE id = ?", (old,))

    await db.in_one_call(move)
