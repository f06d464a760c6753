"""Send lanes: who goes first when the bot's sends outnumber its flood limit.

A person waiting on a reply (an answer's verdict, a command, the next interview question) goes ahead of
a reveal, and a reveal ahead of the daily broadcast, inside the same limits: during a 10,000-group daily
minute (minutes of posting at the limit) a DM interview still answers at once. The lane travels with the
work in a context variable, so the core marks a broadcast once and every send it makes inherits it;
anything unmarked is interactive.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

Lane = Literal["interactive", "reveal", "broadcast"]
PRIORITY: dict[Lane, int] = {"interactive": 0, "reveal": 1, "broadcast": 2}
_current: ContextVar[Lane] = ContextVar("send_lane", default="interactive")


def current_lane() -> Lane:
    return _current.get()


def priority() -> int:
    """The current lane's rank: lower goes first."""
    return PRIORITY[_current.get()]


@contextmanager
def lane(name: Lane) -> Iterator[None]:
    """Sends made inside (and in tasks started inside) go in lane `name`."""
    token = _current.set(name)
    try:
        yield
    finally:
        _current.reset(token)
