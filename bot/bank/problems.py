"""What is wrong with a bank file, in the one form every tool prints: FILE:LINE: FIELD: message."""

from __future__ import annotations

from dataclasses import dataclass

from bot.text.control import visible


@dataclass(frozen=True, order=True)
class Problem:
    """One problem found in a bank file."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return visible(f"{self.file}:{self.line}: {self.field}: {self.message}")  # one line, no raw escapes


class BankError(Exception):
    """The bank cannot be used; carries every problem found so that all are reported at once."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))
