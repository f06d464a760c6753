"""Characters that drive a terminal instead of being read: C0 (except newline and tab), DEL and C1.

Why: a question's text is shown in terminals (the console, `questions validate`, import errors), where
ESC sequences can clear the screen, retitle the window or, on some terminals, write the clipboard (OSC
52). The bank and every importer refuse them (`first_control`); the console strips them again when
printing (`strip_control`), and error lines show them escaped (`visible`), so neither a shipped file
nor a stranger's reaches the terminal raw.
"""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # newline (\x0a) and tab (\x09) are text
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # an error line is one line: newline and tab escaped too


def first_control(text: str) -> str | None:
    """`U+001B` for the first control character in `text`, None when there is none."""
    found = CONTROL.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


def strip_control(text: str) -> str:
    """`text` without control characters (newlines and tabs kept): safe to print to a terminal."""
    return CONTROL.sub("", text)


def visible(text: str) -> str:
    """`text` with every control character written as an escape (`\\x1b`), for one-line error messages."""
    return _ANY_CONTROL.sub(lambda found: repr(found.group())[1:-1], text)
