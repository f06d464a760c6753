"""People's names as plain text: whatever a platform lets someone call themselves, shown safely.

A name may hold bidi overrides and zero-width characters (which reorder or hide the text around it),
control characters, or markup (backticks, asterisks) that our renderers would turn into code or bold.
Names are cleaned once, when the store records them, and shortened where a table shows them.
"""

from __future__ import annotations

import unicodedata

NAME_MAX = 64  # stored
TABLE_NAME_MAX = 32  # in a board's column
_MARKUP = str.maketrans("", "", "`*_~|<>")


def clean_name(name: str) -> str:
    """Visible characters only (no format or control characters, no markup), single spaces, at most NAME_MAX."""
    if name.isascii() and name.isprintable():  # most names: nothing to drop, no per-character lookup (each click)
        kept = name
    else:
        kept = "".join(ch for ch in name if unicodedata.category(ch) not in ("Cf", "Cc", "Cs", "Co", "Cn"))
    words = kept.translate(_MARKUP).split()
    return " ".join(words)[:NAME_MAX].strip()


def short_name(name: str, limit: int = TABLE_NAME_MAX) -> str:
    """A name cut to `limit` characters with an ellipsis, for tables and one-line lists."""
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"
