"""A file a member uploads (a group's deck): the one line every platform gives when it is not read.

Both adapters check the platform's own word on the size (Telegram's file_size, Discord's
attachment.size) before downloading, so an oversize file is refused without costing any traffic.
"""

from __future__ import annotations

from bot.limits import DECK_MAX_BYTES
from bot.text.i18n import t


def megabytes(size: int) -> str:
    """A size as people read it: 1.2 MB, 1 MB."""
    return f"{f'{size / 1_000_000:.1f}'.removesuffix('.0')} MB"


def too_large(size: int | None) -> bool:
    """Over the deck limit by the platform's word (an unknown size is left to the check on the bytes)."""
    return size is not None and size > DECK_MAX_BYTES


def too_large_text(language: str, size: int) -> str:
    return t(language, "upload.too_large", size=megabytes(size), limit=megabytes(DECK_MAX_BYTES))


def unreadable_text(language: str) -> str:
    return t(language, "upload.unreadable")
