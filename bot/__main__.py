"""`python -m bot` is the same as the `interview-bot` command."""

from __future__ import annotations

import sys


def run() -> int:
    """The command; a Ctrl-C while it is still starting (imports take half a second) is a quiet exit 130,
    not a KeyboardInterrupt traceback: `main` only catches what happens once it runs."""
    try:
        from bot.app.cli import main

        return main()
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":  # not when a spawned child process (the progress chart) imports this module
    raise SystemExit(run())
