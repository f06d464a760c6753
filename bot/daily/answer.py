"""What a group member's click on the daily question comes to, below both ways of giving it (a button,
handled by the service, and a poll vote, by votes.py), so neither module imports the other for it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DailyAnswer:
    """A group member's recorded answer: right or wrong, and how many have answered so far."""

    correct: bool
    answered: int
    asked_id: int
