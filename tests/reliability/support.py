"""What the reliability tests share: people and clicks as Telegram sends them, and waiting by polling."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from pathlib import Path

from bot.text.i18n import t

REPO = Path(__file__).resolve().parents[2]
FIXTURE_BANK = REPO / "tests" / "fixtures" / "bank"
RECORDED = {t("en", "daily.right"), t("en", "daily.wrong")}  # the pop-ups of a counted daily answer
APOLOGY = t("en", "help.something_wrong")


def member(user_id: int) -> dict:
    return {"id": user_id, "is_bot": False, "first_name": f"Member {user_id}", "language_code": "en"}


def group(chat_id: int) -> dict:
    return {"id": chat_id, "type": "supergroup", "title": f"Group {chat_id}"}


def click(query_id: str, user: dict, message: dict, data: str) -> dict:
    """A callback_query update body (the fake server gives it its update_id)."""
    return {"callback_query": {"id": query_id, "from": user, "chat_instance": f"ci{message['chat']['id']}",
                               "data": data, "message": message}}


async def eventually(condition: Callable[[], object], seconds: float = 30.0, what: str = "the condition") -> None:
    """Poll until `condition()` holds; generous by default, since CI machines are slow and loaded."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:.0f} s")
        await asyncio.sleep(0.02)


_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (\w+) ([\w.]+): ", re.MULTILINE)


def our_tracebacks(log: str) -> list[str]:
    """The log records of the bot's own loggers (bot.*, adapters.*) that carry a traceback.

    python-telegram-bot logs its own retries (a failed getUpdates) with a traceback; those are its
    business. A traceback under our names means an exception reached our error handler or a log.exception."""
    starts = [match.start() for match in _RECORD.finditer(log)] + [len(log)]
    records = [log[start:end] for start, end in zip(starts, starts[1:])]
    return [record for record in records if "Traceback" in record
            and (match := _RECORD.match(record)) and match.group(2).split(".")[0] in ("bot", "adapters")]
