"""Files a member sends to the bot (a group's deck), read through the Bot API: getFile, then the file URL.

The file URL follows the API URL: PTB pairs `https://api.telegram.org/bot` with
`https://api.telegram.org/file/bot`, so a self-hosted Bot API server at `http://host:8081/bot` serves its
files at `http://host:8081/file/bot`, and so does the tests' fake. TELEGRAM_BASE_FILE_URL overrides that.

A file is never downloaded before its size is known to be within the limit: the document's own
file_size (sent with the message) first, then getFile's, and the bytes received are counted again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot, Document
from telegram.error import TelegramError

from adapters.common.uploads import too_large

log = logging.getLogger(__name__)
API_PATH = "/bot"
FILE_PATH = "/file/bot"
PUBLIC_API_FILE_MAX = 20 * 1024 * 1024  # getFile on api.telegram.org hands out files up to 20 MB


def file_url_for(base_url: str) -> str | None:
    """The file URL that goes with a Bot API URL (`.../bot` -> `.../file/bot`, a `{token}` placeholder
    kept); None when the URL has no `/bot` to pair with (then TELEGRAM_BASE_FILE_URL must say it)."""
    scheme, slashes, rest = base_url.partition("://")
    host, slash, path = rest.partition("/")
    head, found, tail = f"{slash}{path}".rpartition(API_PATH)
    return f"{scheme}{slashes}{host}{head}{FILE_PATH}{tail}" if found else None


class FileRefused(Exception):
    """A file that is not read: `reason` is "too_large" (with its size) or "unreadable"."""

    def __init__(self, reason: str, size: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.size = reason, size


@dataclass(frozen=True)
class Received:
    """A downloaded file: its name as the member sent it, and its bytes."""

    filename: str
    data: bytes


async def download(bot: Bot, document: Document) -> Received:
    """The document's bytes, at most a deck's limit of them; FileRefused before any download when it is
    larger (or when Telegram will not hand it out), so an oversize file costs no traffic."""
    if too_large(document.file_size):
        raise FileRefused("too_large", document.file_size)
    try:
        file = await bot.get_file(document.file_id)
    except TelegramError as error:  # "file is too big" (over 20 MB on the public API), an expired id
        log.info("getFile for a document failed: %s", error)
        if "too big" in str(error).lower():  # then it is over the public API's 20 MB
            raise FileRefused("too_large", document.file_size or PUBLIC_API_FILE_MAX) from error
        raise FileRefused("unreadable") from error
    if too_large(file.file_size):
        raise FileRefused("too_large", file.file_size)
    try:
        data = bytes(await file.download_as_bytearray())
    except (TelegramError, RuntimeError) as error:  # RuntimeError: getFile gave no path
        log.info("downloading a document failed: %s", error)
        raise FileRefused("unreadable") from error
    if too_large(len(data)):  # a server that under-reported the size
        raise FileRefused("too_large", len(data))
    return Received(document.file_name or "", data)


def files_base(base_url: str | None, base_file_url: str | None) -> str | None:
    """The file URL to build the bot with: the one given, else the one paired with `base_url`; None keeps
    PTB's default (Telegram's own, right when `base_url` is Telegram's too)."""
    if base_file_url or not base_url:
        return base_file_url
    paired = file_url_for(base_url)
    if paired is None:
        log.warning("telegram: no file URL pairs with the Bot API URL (no /bot in its path); set "
                    "TELEGRAM_BASE_FILE_URL for files (group decks) to download")
    return paired
