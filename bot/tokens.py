"""The one button-token format both platforms carry: ids only, never content, never trusted.

`a:<asked_id>:<letter>` fits Telegram's 64-byte callback_data and Discord's 100-character custom_id.
The store, not the token, decides whether a click counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.limits import CALLBACK_DATA_MAX_BYTES

_ANSWER = re.compile(r"^a:([1-9][0-9]{0,11}):([a-f])$")
FORGET_TOKEN = "forget:yes"  # the confirmation of /forget: it acts only on whoever presses it


@dataclass(frozen=True)
class AnswerToken:
    asked_id: int
    letter: str

    def encode(self) -> str:
        token = f"a:{self.asked_id}:{self.letter}"
        assert len(token.encode()) <= CALLBACK_DATA_MAX_BYTES
        return token


def answer_token(asked_id: int, letter: str) -> str:
    return AnswerToken(asked_id, letter).encode()


def parse_answer_token(token: str) -> AnswerToken | None:
    """The token's ids, or None for anything that is not exactly our format."""
    match = _ANSWER.match(token or "")
    if match is None:
        return None
    return AnswerToken(int(match.group(1)), match.group(2))
