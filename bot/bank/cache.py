"""A cache of validated question files, keyed by each file's bytes and the validator's own code.

Parsing and checking YAML is most of a start-up's time with a large bank (10,000 questions: about 3 s);
a file that has not changed since it was last validated, by a validator that has not changed either,
is read back from a pickle instead. Editing one file re-validates that file only; the cross-file
rules (duplicate ids, one file per topic) still run on every load. A cache that cannot be read or
written is skipped, never an error: it only saves time.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
from functools import cache
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

log = logging.getLogger(__name__)
CACHE_VARIABLE = "INTERVIEW_BOT_BANK_CACHE"  # a folder, or 0 to turn the cache off
_CODE = ("validate.py", "yaml_lines.py", "problems.py", "cache.py", "packed.py", "../domain.py", "../limits.py")


@cache
def _code_version() -> str:
    """The validator's code: a changed rule invalidates every cached file."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in _CODE:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def cache_folder() -> Path | None:
    setting = os.environ.get(CACHE_VARIABLE, "")
    if setting == "0":
        return None
    return Path(setting) if setting else Path(user_cache_dir("interview-bot", appauthor=False)) / "bank"


def _entry(folder: Path, data: bytes, name: str) -> Path:
    digest = hashlib.sha256(data)
    digest.update(name.encode())  # problems name their file
    return folder / f"{_code_version()}-{digest.hexdigest()[:32]}.pickle"


def load(data: bytes, name: str) -> Any | None:
    folder = cache_folder()
    if folder is None:
        return None
    try:
        with open(_entry(folder, data, name), "rb") as handle:
            return pickle.load(handle)
    except FileNotFoundError:
        return None
    except Exception as error:  # noqa: BLE001 - a broken entry is only a miss
        log.debug("bank cache entry for %s unreadable (%s)", name, error)
        return None


def store(data: bytes, name: str, value: Any) -> None:
    folder = cache_folder()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = _entry(folder, data, name)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        with open(partial, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)  # readers never see half an entry
    except OSError as error:
        log.debug("bank cache not written for %s (%s)", name, error)
