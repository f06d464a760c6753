"""What a benchmark reports in the table: a figure, its unit, and its goal if it has one.

Goals live beside the figures in each benchmark module, so the harness judges every benchmark the
same way and a goal is stated once (the table, the JSON and the docs all read it from here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    """A figure at a dotted path inside a benchmark's result, with an optional bound."""

    key: str
    unit: str = ""
    at_least: float | None = None
    at_most: float | None = None

    @property
    def goal(self) -> str:
        if self.at_least is not None:
            return f">= {self.at_least:g}{self.unit}"
        if self.at_most is not None:
            return f"<= {self.at_most:g}{self.unit}"
        return ""

    def met(self, value: Any) -> bool | None:
        """True/False against the goal; None when there is no goal or no number to judge."""
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return None
        if self.at_least is not None:
            return value >= self.at_least
        if self.at_most is not None:
            return value <= self.at_most
        return None


def lookup(result: dict[str, Any], dotted: str) -> Any:
    """The value at `a.b.c` inside nested dicts, or None when any part is missing."""
    value: Any = result
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def format_value(value: Any) -> str:
    """Numbers with three significant decimals at most; anything else as text."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}"
    return str(value)
