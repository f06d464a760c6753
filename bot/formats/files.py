"""Reading a stranger's file within a size limit, and writing ours atomically with ordinary permissions."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bot.formats.model import MAX_FILE_BYTES, FormatError

FILE_MODE = 0o644  # mkstemp's 0600 would hide a bank or a deck from the service user that reads it


def read_file(path: Path) -> bytes:
    """The file's bytes, read no further than the size limit (a huge file is refused, not loaded)."""
    try:
        with path.open("rb") as stream:
            return stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise FormatError([f"{path}: cannot be read: {error.strerror or error}"]) from error


def write_atomically(path: Path, data: bytes) -> None:
    """Write through a temporary file beside `path`, then rename: a failure leaves no half file behind.
    OSError (no such folder, no permission, a full disk) is the caller's to report."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
