"""A person's missed questions as an Anki deck, for `/export`: they keep studying them elsewhere.

"Missed" is what has a review card: every question they answered wrong (or let time out on) at least
once, in any interview, review or daily question. The deck's name, the key line and the note about a
missing explanation are in the person's language; each note's guid comes from the question and the
language, so a later export updates the cards they already have.
"""

from __future__ import annotations

import asyncio

from bot.bank.loader import Bank
from bot.caller import Caller
from bot.formats.anki import deck_bytes
from bot.replies import Document
from bot.store.database import Database
from bot.store.review import card_questions
from bot.text.i18n import t

FILENAME = "interview-bot-missed.apkg"


async def missed_deck(db: Database, bank: Bank, caller: Caller, now: float) -> Document | None:
    """The deck of the caller's missed questions still in the bank, or None when there are none.
    genanki writes through a temporary SQLite file: that runs in a thread, off the event loop."""
    if caller.user is None:
        return None
    ids = await card_questions(db, caller.user.id, bank.questions.keys())
    if not ids:
        return None
    questions = sorted((bank.questions[question_id] for question_id in ids), key=lambda q: (q.topic, q.id))
    language = caller.language
    data = await asyncio.to_thread(deck_bytes, questions, language, t(language, "export.deck"), now)
    return Document(FILENAME, data, t(language, "export.caption", count=len(questions)))
