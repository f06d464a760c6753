"""The groups board in words: points per member with the reader's decimal separator."""

from __future__ import annotations

from bot.scores.boards import GroupRow
from bot.scores.view import groups_message
from bot.text.messages import Table


def test_points_per_member_use_the_languages_decimal_separator() -> None:
    rows = (GroupRow(1, 10, "telegram", "Study group", 4, 50),)  # 12.5 points per active member
    cells = {language: next(block for block in groups_message(rows, language).blocks if isinstance(block, Table)).rows[0]
             for language in ("en", "tr")}
    assert "12.5" in cells["en"] and "12,5" in cells["tr"]
