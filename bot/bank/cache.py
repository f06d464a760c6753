"""A cache of validated question files, keyed by each file's bytes and the validator's own code.

Parsing and checking YAML is most of a start-up's time with a large bank (10,000 questions: about 3 s);
a file that has not changed since it was last validated, by a validator that has not changed either,
is read back from its cache entry instead. Editing one file re-validates that file only; the cross-file
rules (duplicate ids, one file per topic) still run on every load. A cache that cannot be read or
written is skipped, never an error: it only saves time.

An entry is JSON (bot/bank/plain.py), never a pickle: whoever can write the cache folder can at most
offer wrong questions, never run code as the bot, and an entry of any other shape is a miss that is
validated again and rewritten.
"""

from __future__ import annotations

import hashlib
import logging
import os
import json
from functools import cache
from pathlib import Path

from platformdirs import user_cache_dir

from bot.bank import plain

log = logging.getLogger(__name__)
CACHE_VARIABLE = "INTERVIEW_BOT_BANK_CACHE"  # a folder, or 0 to turn the cache off
_CODE = ("validate.py", "yaml_lines.py", "problems.py", "cache.py", "plain.py", "packed.py", "../domain.py", "../limits.py",
         "../text/control.py", "../text/markup.py")


@cache
def _code_version() -> str:
    """The validator's code: a changed rule invalidates every cached file."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in _CODE:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def cache_folder() -> Path | None:
    """The folder of INTERVIEW_BOT_BANK_CACHE, the user's cache folder by default, None when turned off."""
    setting = os.environ.get(CACHE_VARIABLE, "")
    if setting == "0":
        return None
    return Path(setting) if setting else Path(user_cache_dir("interview-bot", appauthor=False)) / "bank"


def _entry(folder: Path, data: bytes, name: str) -> Path:
    digest = hashlib.sha256(data)
    digest.update(name.encode())  # problems name their file
    return folder / f"{_code_version()}-{digest.hexdigest()[:32]}.json"


def load(data: bytes, name: str) -> plain.Validated | None:
    """The validated file for these bytes, or None (a miss) when there is no usable entry."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        with open(_entry(folder, data, name), "rb") as handle:
            return plain.decode(json.loads(handle.read()))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as error:  # unreadable, not JSON, or not our shape: a miss
        log.debug("bank cache entry for %s skipped (%s)", name, error)
        return None


def store(data: bytes, name: str, value: plain.Validated) -> None:
    """Keep the validated file for the next start; a folder that cannot be written is only a miss next time."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = _entry(folder, data, name)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        with open(partial, "w", encoding="utf-8") as handle:
            json.dump(plain.encode(value), handle, ensure_ascii=False, separators=(",", ":"))
        os.replace(partial, path)  # readers never see half an entry
    except OSError as error:
        log.debug("bank cache not written for %s (%s)", name, error)
