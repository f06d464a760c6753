"""Secrets never reach a log line: a filter on every root handler replaces the bot tokens with <token>.

It sits on the handlers, not on one logger, so it catches every library's records (PTB logs the Bot
API URL, which holds the token, at DEBUG; a rejected token ends in an exception that prints it), the
record's arguments and its formatted traceback included.
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Iterable

HIDDEN = "<token>"
_TOKEN_LINE = re.compile(r"((?:telegram|discord)_token\s*[:=]\s*).*", re.IGNORECASE)


class RedactSecrets(logging.Filter):
    """Rewrites a record so that none of `secrets` appears in its message or its traceback."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = tuple(secret for secret in secrets if secret and len(secret) >= 8)

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, HIDDEN)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        record.msg, record.args = self.redact(message), None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = self.redact("".join(traceback.format_exception(*record.exc_info)).rstrip())
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        return True


def redact_logs(secrets: Iterable[str]) -> RedactSecrets:
    """Install the filter on every handler of the root logger (after logging is configured)."""
    redactor = RedactSecrets(secrets)
    for handler in logging.getLogger().handlers:
        handler.addFilter(redactor)
    return redactor


def hide_token_lines(text: str) -> str:
    """A config error quoting a `telegram_token:` or `discord_token:` line shows the key, not the value."""
    return _TOKEN_LINE.sub(lambda match: match.group(1) + HIDDEN, text)
