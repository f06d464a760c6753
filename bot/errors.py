"""Errors a user can cause, each carrying the i18n key and values of the message they see."""

from __future__ import annotations


ECHO_MAX = 64  # what a user typed is echoed back at most this long (a 10 KB argument is not a 10 KB reply)


def _echo(value: object) -> object:
    if isinstance(value, str) and len(value) > ECHO_MAX:
        return value[: ECHO_MAX - 1] + "…"
    return value


class UserError(Exception):
    """A request that cannot be done as asked; `key` and `values` make the user's message."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = {name: _echo(value) if name != "known" else value for name, value in values.items()}


class AnswerRefused(Exception):
    """A click that must not count; `reason` names the text `refusal.<reason>` the clicker sees."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    @property
    def message_key(self) -> str:
        return f"refusal.{self.reason}"
