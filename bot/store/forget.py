"""Forgetting a person: every row that holds them, deleted in one transaction.

Their answers (daily ones too, so boards no longer name them or count their points), their
interviews with the questions asked in them, their review cards and abilities, their private chats with the bot
and their user row. Group chats, posts and other members' answers stay: nothing in them is theirs.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.store.database import Database, Transaction
from bot.store.decks import forget_uploader
from bot.store.scores import forget_member


@dataclass(frozen=True)
class Forgotten:
    answers: int
    interviews: int
    review_cards: int


async def forget_user(db: Database, user_id: int) -> Forgotten:
    """Delete the person everywhere, in one transaction. The person's key lock, then their interviews'
    rows, come first (the order an answer or a start takes them): nothing of theirs is written while
    they are being deleted. Run as one call, so that PostgreSQL runs it again after a deadlock."""

    async def forget(connection: Transaction) -> Forgotten:
        await connection.lock("person", [user_id])
        await connection.fetch_all("SELECT id FROM interviews WHERE user_id = ? ORDER BY id"
                                   + connection.dialect.locking("UPDATE"), (user_id,))
        answers = (await connection.execute("DELETE FROM answers WHERE user_id = ?", (user_id,))).rowcount
        cards = (await connection.execute("DELETE FROM review_cards WHERE user_id = ?", (user_id,))).rowcount
        await forget_member(connection, user_id)
        await connection.execute("DELETE FROM abilities WHERE user_id = ?", (user_id,))
        await connection.execute("DELETE FROM ability_weeks WHERE user_id = ?", (user_id,))
        rows = await connection.fetch_all(
            "SELECT DISTINCT chat_id FROM interviews WHERE user_id = ?", (user_id,))
        private_chats = [row[0] for row in rows]
        await connection.execute(  # interview questions are answered only by their owner
            "DELETE FROM answers WHERE asked_id IN (SELECT q.id FROM asked_questions q JOIN interviews i "
            "ON i.id = q.interview_id WHERE i.user_id = ?)", (user_id,))
        await connection.execute(
            "DELETE FROM asked_questions WHERE interview_id IN (SELECT id FROM interviews WHERE user_id = ?)",
            (user_id,))
        interviews = (await connection.execute("DELETE FROM interviews WHERE user_id = ?", (user_id,))).rowcount
        for chat_id in private_chats:  # their DM with the bot (its title may be their name), unless still used
            await connection.execute(
                """DELETE FROM chats WHERE id = ? AND kind = 'private'
                   AND NOT EXISTS (SELECT 1 FROM asked_questions WHERE chat_id = ?)
                   AND NOT EXISTS (SELECT 1 FROM interviews WHERE chat_id = ?)
                   AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE chat_id = ?)""",
                (chat_id, chat_id, chat_id, chat_id))
        await connection.execute(  # poll votes still waiting for their poll to be known
            """DELETE FROM poll_votes_waiting WHERE EXISTS (
                 SELECT 1 FROM users u WHERE u.id = ? AND u.platform = poll_votes_waiting.platform
                    AND u.platform_user_id = poll_votes_waiting.platform_user_id)""", (user_id,))
        await connection.execute("UPDATE quiz_rounds SET starter_id = NULL WHERE starter_id = ?", (user_id,))
        await forget_uploader(connection, user_id)  # the group decks they added stay, without their name
        await connection.execute("DELETE FROM users WHERE id = ?", (user_id,))
        return Forgotten(answers, interviews, cards)

    return await db.in_one_call(forget)
