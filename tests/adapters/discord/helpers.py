"""Small helpers shared by the Discord scenarios: the right and wrong letters, answers in the store."""

from __future__ import annotations

from bot.bank.loader import Bank
from bot.store import Database
from bot.store import interviews as records


async def letters(db: Database, bank: Bank, asked_id: int) -> tuple[str, str]:
    """(right letter, a wrong letter) as shown for this asked question."""
    asked = await records.get_asked(db, asked_id)
    assert asked is not None
    question = bank.get(asked.question_id)
    right = asked.shown_letter_of(question.correct_index)
    wrong = next(letter for letter in "abcdef"[: len(asked.option_order)] if letter != right)
    return right, wrong


async def answer_count(db: Database) -> int:
    row = await db.fetch_one("SELECT count(*) AS n FROM answers")
    return row["n"]


def asked_id_of(custom_id: str) -> int:
    return int(custom_id.split(":")[1])
